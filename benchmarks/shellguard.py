"""Cost of the Bash write guard (``bench.py shell-guard``).

1. The decision alone, in process: time per line over the labelled corpus (tests/fixtures/guard_corpus.jsonl).
2. The real PreToolUse launcher (a new ``python3 -S`` process, as hooks.json runs it) for an ordinary Bash line and a
   line that writes into the store, each run in turn with ``python3 -S -c pass`` (A B A B ...): median wall and
   CPU (user + system) time, and the median of the pairwise A/B ratios.

    python3 benchmarks/bench.py shell-guard --rounds 30   # the figures in docs/guards.md
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchlib import PY, REPO, run_wait4

sys.path.insert(0, os.path.join(REPO, "scripts"))
from team_memory.guards.shelljudge import judge  # noqa: E402

LINES = {"ordinary": "git status && npm test 2>&1 | tail -5", "store": "rm .claude/memory/decisions/m1.json"}


def timed(argv: list, stdin: bytes) -> tuple:
    """``(wall ms, CPU ms)`` of one child."""
    wall, _, _, cpu = run_wait4(argv, stdin)
    return wall * 1000, cpu * 1000


def decision_cost(project: Path) -> None:
    rows = [json.loads(line) for line in open(os.path.join(REPO, "tests", "fixtures", "guard_corpus.jsonl"))]
    stores = [str(project / ".claude" / "memory")]
    times = []
    for row in rows:
        start = time.perf_counter()
        judge(row["command"], str(project), stores)
        times.append((time.perf_counter() - start) * 1e6)
    times.sort()
    print(f"decision in process, {len(rows)} corpus lines: median {statistics.median(times):.0f} us, "
          f"95th percentile {times[int(len(times) * 0.95)]:.0f} us, max {times[-1]:.0f} us")


def launcher_cost(project: Path, rounds: int) -> None:
    base = [PY, "-S", "-c", "pass"]
    hook = [PY, "-S", os.path.join(REPO, "hooks", "pre_tool_use.py")]  # as hooks.json runs it
    for name, command in LINES.items():
        payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(project),
                              "session_id": "bench", "tool_use_id": "toolu_bench"}).encode()
        a, b = [], []
        timed(hook, payload)
        for _ in range(rounds):
            a.append(timed(hook, payload))
            b.append(timed(base, b""))
        ratio = statistics.median(x[1] / max(y[1], 1e-3) for x, y in zip(a, b))
        print(f"PreToolUse, {name} line ({command!r}), {rounds} rounds: "
              f"wall {statistics.median(x[0] for x in a):.1f} ms, cpu {statistics.median(x[1] for x in a):.1f} ms; "
              f"python3 -S -c pass: wall {statistics.median(y[0] for y in b):.1f} ms, "
              f"cpu {statistics.median(y[1] for y in b):.1f} ms; cpu ratio {ratio:.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="bench.py shell-guard", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=30, help="launcher runs per line (default 30)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        folder = project / ".claude" / "memory" / "decisions"
        folder.mkdir(parents=True)
        for i in range(50):
            (folder / f"m{i}.json").write_text("{}\n")
        os.environ["TEAM_MEMORY_STATE_DIR"] = str(Path(tmp) / "state")
        decision_cost(project)
        launcher_cost(project, args.rounds)
    return 0
