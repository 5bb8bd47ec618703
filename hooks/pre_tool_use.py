#!/usr/bin/env python3
"""PreToolUse: deny direct writes into .claude/memory/ (use the CLI). Stdlib only; always exits 0."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
try:
    from team_memory.guards import guard_tool_use
    from team_memory.hookio import run_hook
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] write guard disabled: {exc}", file=sys.stderr)
    sys.exit(0)

if __name__ == "__main__":
    sys.exit(run_hook("PreToolUse", guard_tool_use))
