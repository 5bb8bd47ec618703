"""PreToolUse: deny direct writes into a memory store; most calls end at ``toolgate.outside_store``, before the
full guard is imported."""
from __future__ import annotations

from ..guards.toolgate import outside_store
from ..records.hookio import ToolCall, tool_calls


def handle(payload: dict):
    """The guard's answer for this call; for Codex's ``apply_patch``, the first denial among the files it names."""
    calls = [call for call in map(ToolCall, tool_calls(payload)) if not outside_store(call)]
    if not calls:
        return None
    from ..guards.guards import guard_tool_use
    return next(filter(None, map(guard_tool_use, calls)), None)
