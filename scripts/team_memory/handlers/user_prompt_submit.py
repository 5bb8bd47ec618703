"""UserPromptSubmit: the memories relevant to the prompt, as one ``<memory-context>`` block."""
from __future__ import annotations

from ..recall.retrieve import context_for_prompt as handle  # noqa: F401 - the event's handler
