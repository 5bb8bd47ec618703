"""PreToolUse: deny direct writes into a memory store (the CLI writes memories).

Most calls cannot concern a store (``guards.toolgate.outside_store``): they end here, before the
full guard is imported.
"""
from __future__ import annotations

from ..guards.toolgate import outside_store
from ..records.hookio import ToolCall, tool_calls


def _certainly_outside(call) -> bool:
    try:
        return outside_store(call)
    except Exception:  # noqa: BLE001 - unsure: the full guard decides
        return False


def handle(payload: dict):
    """The guard's answer for this call; for Codex's ``apply_patch``, the first denial among the files it names."""
    calls = [ToolCall(call) for call in tool_calls(payload)]
    calls = [call for call in calls if not _certainly_outside(call)]
    if not calls:
        return None
    from ..guards.guards import guard_tool_use
    return next(filter(None, map(guard_tool_use, calls)), None)
