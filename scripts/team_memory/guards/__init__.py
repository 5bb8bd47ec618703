"""Guards: the PreToolUse/PostToolUse handlers (what a tool call may write), the Bash and PowerShell readers and
judges."""
