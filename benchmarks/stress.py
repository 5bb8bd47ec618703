"""The stress run (``bench.py stress``): the sections of ``stress_*.py`` in one temporary project, one
``PASS``/``FAIL`` line each; the exit code is 1 when any check failed. What the sections share: ``stress_lab.py``.

    python3 benchmarks/bench.py stress              # full size (the figures in docs/reliability.md)
    python3 benchmarks/bench.py stress --quick      # CI size (well under 3 minutes on 2 cores)
    python3 benchmarks/bench.py stress --only crashes,hostile --seed 7
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from stress_concurrency import section_concurrency, worker_hooks, worker_rebuild, worker_writer
from stress_crashes import section_crashes
from stress_git import section_git
from stress_hostile import section_hostile, worker_payloads
from stress_lab import SIZES, Lab, Tally
from stress_patterns import section_patterns
from stress_privacy import section_privacy

SECTIONS = ("concurrency", "crashes", "hostile", "privacy", "git", "patterns")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench.py stress", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
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
                results[name] = section_git(lab, size, a.seed, Tally())
            elif name == "patterns":
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
