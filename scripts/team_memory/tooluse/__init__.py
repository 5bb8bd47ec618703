"""Tool use: PostToolUse composed from the store guard and recall by file (layers that know nothing of each other)."""
