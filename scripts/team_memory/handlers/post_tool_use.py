"""PostToolUse: the store guard's report on what the call changed, and recall by the files it named."""
from __future__ import annotations

from ..records.hookio import ToolCall
from ..tooluse.posttool import answer


def handle(payload: dict):
    return answer(ToolCall(payload))
