"""UserPromptSubmit: the memories relevant to the prompt, as one ``<memory-context>`` block."""
from __future__ import annotations

from ..recall.retrieve import context_for_prompt


def handle(payload: dict):
    return context_for_prompt(payload)
