"""The UserPromptSubmit handler: prompt in, ``<memory-context>`` block out.

Find the store, make the derived files current (never waiting), rank, hold back what the session was
just shown (``dedupe``), format (``block``). A store with no cache and over ``COLD_FILES`` memory files
is built by a detached process: reading them all in the hook could outlast the client's time-out.
"""
from __future__ import annotations

import os

from ..records.hookio import enabled_store
from ..base.config import max_inject, warn
from .block import format_block, sizes
from .rank import rank

MIN_PROMPT_CHARS = 10
COLD_FILES = 2000  # about a second of reading on a 2-core machine; 10,000 took 5 s (docs/benchmarks.md)


def command_arguments(prompt: str) -> str:
    """``prompt`` without a leading ``/name`` or ``/plugin:name`` (a path stays): a slash command is matched by
    its arguments only, or its name would match memories about the command's own words."""
    text = prompt.lstrip()
    name = text[1:].split(None, 1)[0] if text[:1] == "/" and text[1:2].strip() else ""
    if not name or not all(c.isalnum() or c in "-_:." for c in name):
        return prompt
    return text[1 + len(name):].strip()


def context_for_prompt(payload: dict) -> str | None:
    """UserPromptSubmit handler: the block to inject, or None for nothing."""
    raw = next((v for v in (payload.get("prompt"), payload.get("user_prompt")) if isinstance(v, str) and v), "")
    prompt = command_arguments(raw)
    if len(raw.strip()) < MIN_PROMPT_CHARS or not prompt.strip():
        return None
    store = enabled_store(payload)
    limit = max_inject(store[1]) if store is not None else 0
    return _recall(payload, prompt, *store, limit) if limit else None


def _recall(payload: dict, prompt: str, memory_root: str, config: dict, limit: int):
    """The block for the prompt, or None; what it shows is held back from the next prompts (``dedupe``)."""
    from ..derived.refresh import current_index
    if cold(memory_root, config):
        from ..derived.drift import hand_over
        hand_over(memory_root, __name__, "build_in_background")  # at most one at a time (its start gate)
        warn(f"no memories recalled: this store's first index (over {COLD_FILES:,} memories) is being built "
             "in the background; recall resumes once it is done")
        return None
    index = current_index(memory_root, config)
    if not index.n:
        return None
    from ..records.hookio import session_of
    from .dedupe import Recall, window as dedupe_window
    session, n = session_of(payload), dedupe_window(config)
    recall = Recall(memory_root, session, n) if session else None  # n == 0 holds nothing back, still marks
    hits = rank(memory_root, config, prompt, limit, index, exclude=recall.shown if recall else None)
    marks = None
    if hits:  # only a block that shows something reads the stale marks (one small file)
        from ..derived.drift import marks_for
        marks = marks_for(memory_root, [(h.entry["path"], h.record) for h in hits])
    block = format_block(hits, config, *sizes(config), marks) or None
    if recall is not None:
        try:
            recall.save([h.entry["path"] for h in hits] if block else [])
        except OSError as exc:  # state is a nicety: never lose the block over it
            warn(f"could not save recall state: {exc}")
    return block


def cold(memory_root: str, config: dict) -> bool:
    """Whether the store has no machine cache yet and more than ``COLD_FILES`` memory files."""
    from ..base.config import category_folders
    from ..derived.cache import cache_path
    if os.path.lexists(cache_path(memory_root)):
        return False
    count = 0
    for folder in set(category_folders(config).values()):
        path = os.path.join(memory_root, folder)
        try:
            if os.path.islink(path):
                continue  # never followed (``derived.index``)
            with os.scandir(path) as entries:
                count += sum(1 for entry in entries if entry.name.endswith(".json"))
        except OSError:
            continue
        if count > COLD_FILES:
            return True
    return False


def build_in_background(memory_root: str) -> int:
    """What a cold prompt hands over (``derived.drift.hand_over``): the index built under the store lock."""
    from ..base.config import load_config
    from ..derived.refresh import rebuild_index
    try:
        rebuild_index(memory_root, load_config(memory_root), full=False)
    except OSError:
        return 1
    return 0
