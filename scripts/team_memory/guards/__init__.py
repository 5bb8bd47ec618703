"""Guards: the PreToolUse/PostToolUse handlers (what a tool call may write), their Bash and PowerShell readers and judges."""
