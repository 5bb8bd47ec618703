#!/usr/bin/env python3
"""Stress figures for team-memory: concurrent writers, kill -9 crashes, hostile hook input, privacy,
git-delivered content (``stress_git.py``), patterns and derived files built to stall or break a hook
(``stress_patterns.py``).

    python3 benchmarks/stress.py              # full size (the figures in docs/reliability.md)
    python3 benchmarks/stress.py --quick      # CI size (well under 3 minutes on 2 cores)
    python3 benchmarks/stress.py --only crashes,hostile --seed 7

Each section prints its counts and one ``PASS``/``FAIL`` line; the exit code is 1 when any
check failed. Everything happens in a temporary folder. The real CLI (``scripts/memory.py``)
and the real hooks run as subprocesses; hooks run exactly as ``hooks.json`` words them
(``/bin/sh -c 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/<event>.py"'``), with ``python3`` on PATH
being this interpreter. Most generated hostile payloads run in a forked child of a worker that
has already imported the hook's modules and then executes the real launcher file as
``__main__`` with the payload on fd 0 (an interpreter start costs ~70 ms, a fork ~5 ms); the
fixed corpus and a share of the generated payloads run as full subprocesses.

"Never reads a file outside the memory root" is checked with an audit hook
(``sys.addaudithook``: ``open``, ``os.listdir``, ``os.scandir``, and the writes ``os.mkdir``,
``os.rename``, ``os.remove``, ``os.rmdir``, ``os.symlink``, ``os.link``; an ``O_NOFOLLOW`` open and
the writes are judged by the folder they happen in, as the kernel does), installed through a
``sitecustomize`` on PYTHONPATH for subprocesses and directly in forked children.
Standard library only.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the phases beside this file
from stress_lab import Lab, SIZES  # noqa: E402
from stress_checks import Tally  # noqa: E402
from stress_concurrency import section_concurrency, worker_hooks, worker_rebuild, worker_writer  # noqa: E402
from stress_crashes import section_crashes  # noqa: E402
from stress_hostile import section_hostile, worker_payloads  # noqa: E402
from stress_privacy import section_privacy  # noqa: E402


# --- main ----------------------------------------------------------------------------------

SECTIONS = ("concurrency", "crashes", "hostile", "privacy", "git", "patterns")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="CI size (under 3 minutes on 2 cores)")
    p.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections to run")
    p.add_argument("--seed", type=int, default=8)
    p.add_argument("--keep", action="store_true", help="keep the temporary folder")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    for name in ("lab", "project", "log", "stop", "ctx", "event", "out"):
        p.add_argument(f"--{name}", help=argparse.SUPPRESS)
    for name in ("index", "count", "writers", "start", "exec-count"):
        p.add_argument(f"--{name}", type=int, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        if a.worker == "payloads":
            a.stop = int(a.stop)
        {"writer": worker_writer, "rebuild": worker_rebuild, "hooks": worker_hooks,
         "payloads": worker_payloads}[a.worker](a)
        return 0
    size = SIZES["quick" if a.quick else "full"]
    wanted = [s.strip() for s in a.only.split(",") if s.strip()]
    unknown = set(wanted) - set(SECTIONS)
    if unknown:
        p.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    base = Path(tempfile.mkdtemp(prefix="tm-stress-"))
    lab = Lab(base, setup=True)
    print(f"team-memory stress ({'quick' if a.quick else 'full'} size, seed {a.seed}) in {base}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; sizes {size}\n", flush=True)
    t0 = time.monotonic()
    canaries: list = []
    results = {}
    try:
        for name in SECTIONS:
            if name not in wanted:
                continue
            if name == "hostile":
                results[name] = section_hostile(lab, size, a.seed, canaries, a.jobs)
            elif name == "git":
                from stress_git import section_git
                results[name] = section_git(lab, size, a.seed, Tally())
            elif name == "patterns":
                from stress_patterns import section_patterns
                results[name] = section_patterns(lab, size, a.seed, canaries)
            else:
                results[name] = {"concurrency": section_concurrency, "crashes": section_crashes,
                                 "privacy": section_privacy}[name](lab, size, a.seed, canaries)
    finally:
        if not a.keep:
            shutil.rmtree(base, ignore_errors=True)
    ok = all(results.values())
    print(f"stress: {'PASS' if ok else 'FAIL'} "
          f"({', '.join(k + (' PASS' if v else ' FAIL') for k, v in results.items())}) "
          f"in {time.monotonic() - t0:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
