"""PreToolUse: deny direct writes into a memory store (the CLI writes memories).

Most calls cannot concern a store (``guards.toolgate.outside_store``): they end here, before the
full guard is imported.
"""
from __future__ import annotations

from ..guards.toolgate import outside_store
from ..records.hookio import ToolCall


def handle(payload: dict):
    call = ToolCall(payload)
    try:
        if outside_store(call):
            return None
    except Exception:  # noqa: BLE001 - unsure: the full guard decides
        pass
    from ..guards.guards import guard_tool_use
    return guard_tool_use(call)
