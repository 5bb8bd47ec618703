#!/usr/bin/env python3
"""UserPromptSubmit: print the memories relevant to the prompt. Stdlib only; always exits 0."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
try:
    from team_memory.hookio import run_hook
    from team_memory.retrieve import context_for_prompt
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] retrieval disabled: {exc}", file=sys.stderr)
    sys.exit(0)

if __name__ == "__main__":
    sys.exit(run_hook("UserPromptSubmit", context_for_prompt))
