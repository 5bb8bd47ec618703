"""Guards: what a tool call may write into a store (PreToolUse, PostToolUse), the Bash and PowerShell judges."""
