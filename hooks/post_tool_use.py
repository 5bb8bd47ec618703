#!/usr/bin/env python3
"""PostToolUse: report memory files a tool changed anyway (invalid, removed, rewritten); never moves one. Stdlib only; always exits 0."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
try:
    from team_memory.posttool import check_tool_result
    from team_memory.hookio import run_hook
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] write check disabled: {exc}", file=sys.stderr)
    sys.exit(0)

if __name__ == "__main__":
    sys.exit(run_hook("PostToolUse", check_tool_result))
