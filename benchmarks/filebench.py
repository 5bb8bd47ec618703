"""Recall by file: the PostToolUse hook on a Read or an Edit, against ``python3 -S -c pass`` (``bench.py --file-recall``).

One generated store (10,000 memories by default), ``--with-files`` of them (2,000 by default)
naming source files in ``related_files`` (7 in 10 a file, 2 a folder, 1 a glob), built with
``rebuild``; then the hook exactly as ``hooks.json`` runs it, on a Read (or an Edit) of:

- ``file without memories``: a file in a folder no entry reaches (decided from the map's head);
- ``Edit, file without memories``: the same file edited (the guard's fast path too);
- ``file without memories, beside globs``: a file under a folder whose glob entries do not match
  it (``src/**/*.py`` and a ``.md`` file): the entries are read and matched, none names it;
- ``file with memories``: a file that one file entry and its folder's entries name, in a new
  session each run (so the memories are shown: each memory file read again, the block, the marks);
- ``file with memories, shown``: the same file again in one session (already shown: nothing printed).

Each run is paired with a run of ``python3 -S -c pass`` right before or after it (drawn at random);
the ratio is the median of the pairs' ratios. Bytecode as Python does by default (``__pycache__``).
"""
from __future__ import annotations

import json
import os
import random
import subprocess
from datetime import datetime, timezone

from storegen import NOUNS, VERBS, make_record, write_record

TARGET = 1.5  # a file without memories: within the guard hooks' budget


def source_files(rng: random.Random, count: int) -> list:
    """Repository-relative source paths, ``src/<noun>/<verb>_<noun>.py`` and a few others."""
    paths = set()
    while len(paths) < count:
        noun, verb = rng.choice(NOUNS), rng.choice(VERBS)
        paths.add(rng.choice((f"src/{noun}/{verb}_{noun}.py", f"tests/{noun}/test_{verb}.py",
                              f"sql/{noun}/{verb}.sql")))
    return sorted(paths)


def make_file_store(project: str, n: int, with_files: int, seed: int) -> tuple:
    """Write the store; return ``(memory root, a file with memories)``."""
    rng = random.Random(seed)
    memory_root = os.path.join(project, ".claude", "memory")
    os.makedirs(os.path.join(project, ".git"), exist_ok=True)
    os.makedirs(memory_root, exist_ok=True)
    files = source_files(rng, 3000)
    now = datetime.now(timezone.utc)
    for i in range(n):
        rec = make_record(rng, i, now, sessions=False)
        if i < with_files:
            entries = []
            for _ in range(rng.randint(1, 3)):
                path, roll = rng.choice(files), rng.random()
                entries.append(path if roll < 0.7 else path.rsplit("/", 1)[0] + "/" if roll < 0.9
                               else path.split("/", 1)[0] + "/**/*." + path.rsplit(".", 1)[1])
            rec["related_files"] = sorted(set(entries))
            rec["record_status"] = "active"
        write_record(memory_root, rec)
    return memory_root, files[0]


def bench_file_recall(repo: str, py: str, cli: str, n: int, with_files: int, rounds: int, workdir: str,
                      seed: int, run_wait4, percentile) -> dict:
    project = os.path.join(workdir, f"file-recall-{n}")
    memory_root, hit = make_file_store(project, n, with_files, seed)
    target = os.path.join(project, hit)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write("x = 1\n")
    subprocess.run([py, cli, "rebuild", "--root", project], check=True, capture_output=True)
    with open(os.path.join(repo, "hooks.json"), encoding="utf-8") as f:
        command = json.load(f)["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    command = command.split(" || ")[0]  # the chain's first interpreter: what runs where python3 exists
    argv = [py if a == "python3" else a for a in command.replace("${CLAUDE_PLUGIN_ROOT}", repo).split()]
    argv = [a.strip('"') for a in argv]
    env = dict(os.environ, TEAM_MEMORY_STATE_DIR=os.path.join(workdir, "state"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    counter = [0]

    def payload(path: str, session: str | None = None, tool: str = "Read") -> bytes:
        counter[0] += 1
        tool_input = {"file_path": path} if tool == "Read" else {"file_path": path, "old_string": "a", "new_string": "b"}
        return json.dumps({"session_id": session or f"bench-{counter[0]}", "cwd": project,
                           "hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": tool_input,
                           "tool_response": {"type": "text"}}).encode()

    nothing = os.path.join(project, "docs", "guide", "intro.md")
    cases = {"file without memories": lambda: payload(nothing),
             "Edit, file without memories": lambda: payload(nothing, tool="Edit"),
             "file without memories, beside globs": lambda: payload(os.path.join(project, "src", "vendored", "notes.md")),
             "file with memories": lambda: payload(target),
             "file with memories, shown": lambda: payload(target, "bench-shown")}
    shown = subprocess.run(argv, input=cases["file with memories"](), capture_output=True, cwd=project, env=env)
    if shown.returncode != 0 or b"additionalContext" not in shown.stdout or shown.stderr:
        raise SystemExit(f"the hook did not recall the file's memories: {shown.stdout[:300]!r} {shown.stderr[:300]!r}")
    base = [py, "-S", "-c", "pass"]
    rng = random.Random(seed)
    times = {name: [] for name in cases}
    ratios = {name: [] for name in cases}
    cpu_ratios = {name: [] for name in cases}
    order = list(cases)
    times_base = []
    for _ in range(rounds):
        rng.shuffle(order)
        for name in order:
            stdin = cases[name]()
            first = rng.random() < 0.5
            if first:
                base_s, _, _, base_cpu = run_wait4(base, cwd=project)
            elapsed, _, code, cpu = run_wait4(argv, stdin, cwd=project, env=env)
            if not first:
                base_s, _, _, base_cpu = run_wait4(base, cwd=project)
            if code != 0:
                raise SystemExit(f"{name}: exit {code}")
            times[name].append(elapsed)
            times_base.append(base_s)
            ratios[name].append(elapsed / base_s)
            cpu_ratios[name].append(cpu / base_cpu if base_cpu > 0 else float("nan"))
    rows = {name: {"median_ms": percentile(times[name], 0.5) * 1000, "ratio": percentile(ratios[name], 0.5),
                   "cpu_ratio": percentile(cpu_ratios[name], 0.5), "base_ms": percentile(times_base, 0.5) * 1000}
            for name in cases}
    with open(os.path.join(memory_root, ".cache", "files.map"), "rb") as f:
        map_lines = f.read().count(b"\n") - 1
    return {"n": n, "with_files": with_files, "map_lines": map_lines, "hit": hit, "rows": rows}


def report(res: dict, rounds: int, machine: str) -> str:
    lines = [machine,
             f"store: {res['n']:,} memories, {res['with_files']:,} with related files ({res['map_lines']:,} map lines); "
             f"rounds: {rounds}; each run paired with python3 -S -c pass, the ratio is the median of the pairs' ratios",
             f"file with memories: {res['hit']}", "",
             "| PostToolUse on | median ms | x `python3 -S -c pass` (paired) | x, CPU time | target |",
             "| --- | ---: | ---: | ---: | --- |"]
    for name, row in res["rows"].items():
        verdict = f"<= {TARGET} {'met' if row['ratio'] <= TARGET else 'MISSED'}" if "without" in name else ""
        lines.append(f"| {name} | {row['median_ms']:.1f} | {row['ratio']:.2f} | {row['cpu_ratio']:.2f} | {verdict} |")
    lines.append(f"\n`python3 -S -c pass`: {next(iter(res['rows'].values()))['base_ms']:.1f} ms (median)")
    return "\n".join(lines)
