#!/usr/bin/env python3
"""Cost of the Bash write guard. Prints the numbers.

1. The decision alone, in process: time per line over the labelled corpus (tests/fixtures/guard_corpus.jsonl).
2. The real PreToolUse launcher (a new ``python3 -S`` process, as hooks.json runs it) for an ordinary Bash line and a
   line that writes into the store, each run in turn with ``python3 -S -c pass`` (A B A B ...): median wall and
   CPU (user + system) time, and the median of the pairwise A/B ratios.

Usage: python3 benchmarks/bench_shell_guard.py [ROUNDS]
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from team_memory.guards.shelljudge import judge  # noqa: E402

LINES = {"ordinary": "git status && npm test 2>&1 | tail -5", "store": "rm .claude/memory/decisions/m1.json"}


def timed(argv: list, stdin: bytes) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000


def decision_cost(project: Path) -> None:
    rows = [json.loads(line) for line in (REPO / "tests" / "fixtures" / "guard_corpus.jsonl").open()]
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
    base = [sys.executable, "-S", "-c", "pass"]
    hook = [sys.executable, "-S", str(REPO / "hooks" / "pre_tool_use.py")]  # as hooks.json runs it
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


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        folder = project / ".claude" / "memory" / "decisions"
        folder.mkdir(parents=True)
        for i in range(50):
            (folder / f"m{i}.json").write_text("{}\n")
        os.environ["TEAM_MEMORY_STATE_DIR"] = str(Path(tmp) / "state")
        decision_cost(project)
        launcher_cost(project, rounds)


if __name__ == "__main__":
    main()
