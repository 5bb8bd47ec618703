#!/usr/bin/env python3
"""SessionStart: print a short orientation to the team's memory. Stdlib only; always exits 0."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
try:
    from team_memory.hookio import run_hook
    from team_memory.orientation import on_session_start
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] SessionStart hook disabled: {exc}", file=sys.stderr)
    sys.exit(0)

if __name__ == "__main__":
    sys.exit(run_hook("SessionStart", on_session_start))
