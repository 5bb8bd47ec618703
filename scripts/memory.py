#!/usr/bin/env python3
"""team-memory CLI launcher: ``python3 scripts/memory.py <command>``; see ``--help``."""
import sys

if sys.version_info < (3, 9):  # checked before anything of the package loads (this file parses on any Python 3)
    sys.exit("team-memory needs Python 3.9 or newer; this is Python " + sys.version.split()[0]
             + " (" + sys.executable + "). Run it with a newer python3.")

from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from team_memory.cli.main import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
