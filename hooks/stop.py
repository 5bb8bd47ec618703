#!/usr/bin/env python3
"""Stop: ask Claude, once per stretch, to save what the conversation decided or learned. Stdlib only; always exits 0."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
try:
    from team_memory.hookio import run_hook
    from team_memory.capture import on_stop
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] Stop hook disabled: {exc}", file=sys.stderr)
    sys.exit(0)

if __name__ == "__main__":
    sys.exit(run_hook("Stop", on_stop))
