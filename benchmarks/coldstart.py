#!/usr/bin/env python3
"""team-memory: the hook on a cold big store, and the cost of its per-file freshness check.

Cold start: a store of N memories with about ``--content`` bytes of text each and no
index or cache (a fresh clone). The UserPromptSubmit hook runs as ``hooks.json`` says,
once, timed; then again every ``--every`` seconds until it works from a ready cache (no
"no memories recalled" line), each run timed. The first run spends its budget, hands the
rest of the build to a background process and answers nothing; the later ones answer at
once (nothing, and one stderr line, until the build is done).

Freshness check: in-process cost of ``freshness.stale_folders`` (the per-file ``lstat``
check) on the built store, median of ``--rounds``.

    python3 benchmarks/coldstart.py --size 10000 --content 8000
    python3 benchmarks/coldstart.py --size 1000 --content 8000 --check-only
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench import hook_argv, percentile  # noqa: E402
from storegen import make_record, write_record  # noqa: E402

PY = sys.executable
CHECK = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from team_memory.derived import cache as cachemod
from team_memory.base.config import category_folders, load_config
from team_memory.derived.freshness import stale_folders
root, rounds = sys.argv[2], int(sys.argv[3])
folders = category_folders(load_config(root))
times = []
with cachemod.Cache(cachemod.cache_path(root)) as cache:
    for _ in range(rounds):
        t = time.perf_counter()
        stale = stale_folders(cache, folders)
        times.append(time.perf_counter() - t)
        assert stale == [], stale
times.sort()
print(times[len(times) // 2] * 1000, times[0] * 1000)
"""


def make_big_store(project: str, n: int, content: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    memory_root = os.path.join(project, ".claude", "memory")
    os.makedirs(os.path.join(project, ".git"), exist_ok=True)
    now = datetime.now(timezone.utc)
    words = [f"{w}{i}" for w in ("cache", "queue", "shard", "probe", "vault", "token", "proxy", "batch")
             for i in range(400)]
    for i in range(n):
        rec = make_record(rng, i, now, sessions=False)
        pad = content - len(json.dumps(rec["content"]))
        if pad > 0:
            rec["content"]["notes"] = " ".join(rng.choice(words) for _ in range(pad // 9))[:pad]
        write_record(memory_root, rec)
    return memory_root


def run_hook(project: str, prompt: str, budget_env: dict) -> tuple:
    payload = json.dumps({"prompt": prompt, "cwd": project, "hook_event_name": "UserPromptSubmit"}).encode()
    start = time.perf_counter()
    proc = subprocess.run(hook_argv(), input=payload, capture_output=True, env=budget_env, timeout=120)
    return time.perf_counter() - start, proc.stdout, proc.stderr.decode(errors="replace").strip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10000, help="memories in the store")
    parser.add_argument("--content", type=int, default=8000, help="bytes of content per memory (about)")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between prompts after the first")
    parser.add_argument("--rounds", type=int, default=15, help="runs of the in-process freshness check")
    parser.add_argument("--check-only", action="store_true", help="build with rebuild, then time the check only")
    parser.add_argument("--workdir", help="where to build the store (default: a temporary folder, removed after)")
    args = parser.parse_args(argv)
    workdir = args.workdir or tempfile.mkdtemp(prefix="team-memory-cold-")
    env = dict(os.environ)
    try:
        project = os.path.join(workdir, f"cold-{args.size}")
        t = time.perf_counter()
        memory_root = make_big_store(project, args.size, args.content)
        print(f"store: {args.size:,} memories, ~{args.content:,} bytes of content each, "
              f"generated in {time.perf_counter() - t:.1f} s")
        if args.check_only:
            t = time.perf_counter()
            subprocess.run([PY, os.path.join(REPO, "scripts", "memory.py"), "rebuild", "--root", project],
                           check=True, capture_output=True)
            print(f"rebuild (no budget, the CLI): {time.perf_counter() - t:.1f} s")
        else:
            prompt = "how do we handle the cache probe shard question again?"
            t0 = time.perf_counter()
            runs = []
            while True:
                took, out, err = run_hook(project, prompt, env)
                runs.append(took)
                print(f"  prompt {len(runs):3d} at {time.perf_counter() - t0:6.1f} s: hook took {took * 1000:7.1f} ms, "
                      f"{'answered' if out else 'nothing'}{'; stderr: ' + err[:90] if err else ''}")
                if "no memories recalled" not in err or time.perf_counter() - t0 > 900:
                    break  # the cache is ready (whether this prompt matched or not)
                time.sleep(args.every)
            print(f"hook: first run {runs[0]:.2f} s, slowest {max(runs):.2f} s, median {percentile(runs, 0.5):.2f} s; "
                  f"the cache was ready after {time.perf_counter() - t0:.1f} s ({len(runs)} prompts)")
        time.sleep(0.05)
        out = subprocess.run([PY, "-S", "-c", CHECK, os.path.join(REPO, "scripts"), memory_root, str(args.rounds)],
                             capture_output=True, text=True, check=True).stdout.split()
        print(f"per-file freshness check ({args.size:,} files): median {float(out[0]):.1f} ms, "
              f"min {float(out[1]):.1f} ms ({args.rounds} rounds, in-process)")
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
