"""Guards: the PreToolUse/PostToolUse handlers (what a tool call may write) and their Bash reader."""
