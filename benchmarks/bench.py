#!/usr/bin/env python3
"""team-memory benchmarks, one entry point (standard library only): ``bench.py <what> [options]``.

Each ``<what>`` backs figures the docs publish (docs/benchmarks.md, docs/reliability.md, docs/guards.md,
docs/staleness.md); ``bench.py <what> --help`` describes it.

    python3 benchmarks/bench.py floor --rounds 21 --against ../main  # every hook vs its floor and another checkout
    python3 benchmarks/bench.py floor --sizes 100 --rounds 1         # a smoke run
    python3 benchmarks/bench.py hooks --rounds 11       # every hook at 1,000 memories, with and without bytecode
    python3 benchmarks/bench.py view --rounds 3         # the HTML page at 1,000 and 10,000 memories
    python3 benchmarks/bench.py stale                   # git-drift marks at 10,000 memories
    python3 benchmarks/bench.py install-size            # what each install copies (the real client)
    python3 benchmarks/bench.py shell-guard --rounds 30 # the Bash write guard's cost
    python3 benchmarks/bench.py stress --quick          # concurrency, crashes, hostile input, privacy, git, patterns
"""
from __future__ import annotations

import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

COMMANDS = {  # what -> (module, keyword arguments of its main)
    "floor": ("floorbench", {"kind": "floor"}), "hooks": ("floorbench", {"kind": "hooks"}), "view": ("viewbench", {}),
    "stale": ("stalebench", {}), "install-size": ("installsize", {}), "shell-guard": ("shellguard", {}),
    "stress": ("stress", {}),
}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        module, kw = COMMANDS[argv[0]]
        return importlib.import_module(module).main(argv[1:], **kw)
    print(__doc__.strip())
    print(f"\n<what>: {', '.join(COMMANDS)}")
    if argv[:1] in ([], ["-h"], ["--help"]):
        return 0
    print(f"\nbench.py: unknown benchmark {argv[0]!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
