"""What stale marks cost: the prompt hook, ``review`` and ``stats`` on a store in a git repository.

Builds a store (``benchlib.make_store``) in a git repository where ``--related`` memories name files (two of
``--files`` files, a folder now and then), commits it, then makes ``--commits`` commits that touch
those files, so many memories are stale. A twin of the project, identical but for every
``related_files`` left out, is the yardstick: same memories, same hits for the prompt, no marks.
Every scenario runs once per round in both, in a shuffled order; the report gives medians of
CPU seconds (user + system, ``os.wait4``) and wall seconds, and the ratio of the medians.

    python3 benchmarks/bench.py stale                        # 10,000 memories, 2,000 naming files
    python3 benchmarks/bench.py stale --size 1000 --related 200 --rounds 10
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
from statistics import median

from benchlib import CLI, PY, REPO, git, hook_argv, make_store, match_prompt, run_wait4, scratch

ENV = dict(os.environ, CLAUDE_PLUGIN_ROOT=REPO)


def memory_files(memory_root: str) -> list:
    return sorted(os.path.join(folder, name) for folder, dirs, names in os.walk(memory_root)
                  if not os.path.basename(folder).startswith(".") for name in names if name.endswith(".json"))


def build(workdir: str, size: int, related: int, files: int, commits: int, seed: int):
    """``(project with related files, twin without)``, both repositories with the same history."""
    rng = random.Random(seed)
    project = os.path.join(workdir, "stale")
    memory_root = make_store(project, size, seed)
    paths = [f"app/pkg{i % 20}/mod{i}.py" for i in range(files)]
    for path in paths:
        os.makedirs(os.path.join(project, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(project, path), "w", encoding="utf-8") as f:
            f.write(f"x = {path!r}\n")
    for path in rng.sample(memory_files(memory_root), related):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        record["related_files"] = rng.sample(paths, 2) + ([f"app/pkg{rng.randrange(20)}/"] if rng.random() < 0.2 else [])
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(record, indent=2) + "\n")
    git(project, "init", "-q")
    with open(os.path.join(project, ".gitignore"), "w", encoding="utf-8") as f:
        f.write(".claude/memory/index.md\n.claude/memory/.lock\n.claude/memory/.cache/\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "the store", date="2024-01-01T00:00:00Z")
    for _ in range(commits):
        path = rng.choice(paths)
        with open(os.path.join(project, path), "a", encoding="utf-8") as f:
            f.write("# changed\n")
        git(project, "commit", "-qam", f"change {path}")
    twin = os.path.join(workdir, "plain")
    shutil.copytree(project, twin, symlinks=True)
    for path in memory_files(os.path.join(twin, ".claude", "memory")):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        if record.pop("related_files", None) is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(record, indent=2) + "\n")
    git(twin, "commit", "-qam", "no related files")
    return project, twin


def stale_prompt(project: str, stale: list) -> str | None:
    """A prompt whose block shows a stale memory (its title asked about), or None."""
    for item in stale:
        prompt = f"how do we handle the {item['title'].lower()} question again?"
        if b"changed since" in hook_output(project, prompt):
            return prompt
    return None


def hook_output(project: str, prompt: str) -> bytes:
    return subprocess.run(hook_argv(), input=json.dumps({"prompt": prompt, "cwd": project}).encode(),
                          capture_output=True, env=ENV).stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="bench.py stale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10000, help="memories in the store (default 10,000)")
    parser.add_argument("--related", type=int, default=2000, help="memories that name files (default 2,000)")
    parser.add_argument("--files", type=int, default=400, help="files they name (default 400)")
    parser.add_argument("--commits", type=int, default=200, help="commits after the store's (default 200)")
    parser.add_argument("--rounds", type=int, default=15, help="runs of every scenario per project (default 15)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with scratch(prefix="tm-stalebench-") as workdir:
        project, twin = build(workdir, args.size, args.related, args.files, args.commits, args.seed)
        for where in (project, twin):
            run_wait4([PY, CLI, "rebuild", "--root", where])
        review = subprocess.run([PY, CLI, "review", "--json", "--root", project], capture_output=True, text=True)
        found = json.loads(review.stdout)
        prompt = stale_prompt(project, found["stale"][:50]) if found["stale"] else None
        memory_root = os.path.join(project, ".claude", "memory")
        prompt = prompt or match_prompt(project, memory_root, random.Random(args.seed))
        scenarios = {
            "hook (prompt)": lambda where: (hook_argv(), json.dumps({"prompt": prompt, "cwd": where}).encode()),
            "stats": lambda where: ([PY, CLI, "stats", "--root", where], b""),
            "review --json": lambda where: ([PY, CLI, "review", "--json", "--root", where], b""),
        }
        times = {(name, kind): [] for name in scenarios for kind in ("stale", "plain")}
        rng = random.Random(args.seed)
        for _ in range(args.rounds):
            order = [(name, kind) for name in scenarios for kind in ("stale", "plain")]
            rng.shuffle(order)
            for name, kind in order:
                argv_, stdin = scenarios[name](project if kind == "stale" else twin)
                wall, _, code, cpu = run_wait4(argv_, stdin, env=ENV)
                if code != 0:
                    raise SystemExit(f"{name} ({kind}) exited {code}")
                times[(name, kind)].append((cpu, wall))
        shown = hook_output(project, prompt).decode()
        print(f"{args.size:,} memories, {args.related:,} naming 2-3 of {args.files:,} files; {args.commits:,} commits "
              f"after the store's; {found['count']:,} stale; {args.rounds} rounds; prompt {prompt!r}")
        print(f"marks shown by the hook for that prompt: {shown.count('changed since')}\n")
        print("| scenario | stale: cpu s, wall s | no related files: cpu s, wall s | ratio (cpu, wall) |")
        print("| --- | --- | --- | --- |")
        for name in scenarios:
            sc, sw = (median([t[i] for t in times[(name, "stale")]]) for i in (0, 1))
            pc, pw = (median([t[i] for t in times[(name, "plain")]]) for i in (0, 1))
            print(f"| {name} | {sc:.3f}, {sw:.3f} | {pc:.3f}, {pw:.3f} | {sc / pc:.2f}, {sw / pw:.2f} |")
    return 0
