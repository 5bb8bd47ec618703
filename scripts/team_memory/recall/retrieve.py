"""The UserPromptSubmit handler: prompt in, ``<memory-context>`` block out.

Four steps, one module each: find the store (``enabled_store``: ``records.hookio``), make the
derived files current (``derived.refresh.current_index``, never waiting), rank (``rank``), format
(``block``). Memories already recalled in the session are held back
(``dedupe``).
"""
from __future__ import annotations

from ..records.hookio import enabled_store
from ..base.config import max_inject, warn
from .block import excerpt_chars, format_block, output_budget
from .matching import get_strategy
from .rank import rank

MIN_PROMPT_CHARS = 10


def prompt_of(payload: dict) -> str:
    """The prompt text of a UserPromptSubmit payload (``prompt``, else ``user_prompt``)."""
    for key in ("prompt", "user_prompt"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def command_arguments(prompt: str) -> str:
    """``prompt`` without a leading ``/name`` or ``/plugin:name`` (a path such as ``/usr/bin/x`` stays).

    A slash command (``/team-memory:memory-search pgbouncer``) is matched by its arguments only: the
    command's name would match memories about the command's own words.
    """
    text = prompt.lstrip()
    if not text.startswith("/"):
        return prompt
    end = 1
    while end < len(text) and not text[end].isspace():
        end += 1
    name = text[1:end]
    if not name or not all(c.isalnum() or c in "-_:." for c in name):
        return prompt
    return text[end:].strip()


def context_for_prompt(payload: dict) -> str | None:
    """UserPromptSubmit handler: the block to inject, or None for nothing."""
    raw = prompt_of(payload)
    prompt = command_arguments(raw)
    if len(raw.strip()) < MIN_PROMPT_CHARS or not prompt.strip():
        return None
    store = enabled_store(payload)
    if store is None:
        return None
    memory_root, config = store
    limit = max_inject(config)
    if limit == 0:
        return None
    hits, block, recall = _recall(payload, prompt, memory_root, config, limit)
    if recall is not None:
        try:
            recall.save([h.entry["path"] for h in hits] if block else [])
        except OSError as exc:  # state is a nicety: never lose the block over it
            warn(f"could not save recall state: {exc}")
    return block


def _recall(payload: dict, prompt: str, memory_root: str, config: dict, limit: int):
    """``(hits, block or None, Recall or None)`` for the prompt."""
    from ..derived.refresh import current_index
    index = current_index(memory_root, config)
    if not index.n:
        return [], None, None
    from ..records.hookio import session_of
    from .dedupe import Recall, window as dedupe_window
    session, n = session_of(payload), dedupe_window(config)
    recall = Recall(memory_root, session, n) if session else None  # n == 0 holds nothing back, still marks
    strategy = get_strategy(config)
    hits = rank(memory_root, config, prompt, limit, index, strategy=strategy,
                exclude=recall.held_back() if recall else None)
    marks = None
    if hits:  # only a block that shows something reads the stale marks (one small file)
        from ..derived.drift import marks_for
        marks = marks_for(memory_root, [(h.entry["path"], h.record) for h in hits])
    block = format_block(hits, config, output_budget(config), excerpt_chars(config), marks) or None
    return hits, block, recall
