#!/usr/bin/env python3
"""team-memory CLI launcher: ``python3 scripts/memory.py <command>``; see ``--help``."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from team_memory.cli.main import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
