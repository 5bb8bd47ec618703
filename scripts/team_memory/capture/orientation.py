"""The SessionStart hook: a short orientation from the store's index (no memory file opened): counts per category,
the newest decisions' and constraints' titles, how to search and save; nothing for an empty or disabled store.
"""
from __future__ import annotations

import os

from ..records.hookio import DATA_NOTE, enabled_store, first_store
from ..base.cliname import cli_command
from ..base.model import CATEGORIES, display_name
from ..base.sanitize import sanitize_title
from ..records.store import project_root_of

SOURCES = ("startup", "resume", "clear", "compact")
MAX_CHARS = 1500
RECENT = 3           # titles shown per category
MAX_RECORDS_READ = 200  # memories of a category looked at to find the most recent ones (index order)
TITLE_CHARS = 100
SHOWN = (("decision", "Recent decisions"), ("constraint", "Recent constraints"))


def summary(memory_root: str, config: dict):
    """``(total, counts per category, newest titles per shown category)``, or None."""
    from ..derived.cache import CacheInvalid
    from ..derived.refresh import current_index
    for trust in (True, False):
        index = current_index(memory_root, config, trust)
        try:
            counts = {cat: len(index.ids_of(display_name(cat))) for cat in CATEGORIES}
            recent = {}
            for category, _ in SHOWN:
                ids = index.ids_of(display_name(category))[:MAX_RECORDS_READ]
                items = sorted(map(index.item, ids), key=lambda item: -item[4])  # newest first; ties in index order
                recent[category] = [sanitize_title(item[1], TITLE_CHARS) for item in items[:RECENT]]
            return sum(counts.values()), {c: n for c, n in counts.items() if n}, recent
        except CacheInvalid:  # a damaged or forged cache line: ignored, rebuilt
            continue
    return None


def on_session_start(payload: dict) -> str | None:
    """SessionStart handler: the orientation text, or None."""
    source = payload.get("source")
    if source is not None and source not in SOURCES:
        return None
    store = enabled_store(payload)
    if store is None:  # a plugin user whose repository has no memories yet: one line on how memory starts
        memory_root = first_store(payload)
        if memory_root is None or os.path.lexists(memory_root):
            return None  # not the plugin, not a repository, or a store that is there but switched off
        project = project_root_of(memory_root)
        return (f"team-memory: no team memories in this repository yet; the first save creates .claude/memory/ "
                f"at {project} (commit it to share): {cli_command(project)} save --record '<JSON, each apostrophe "
                f"written '\\''>'.\n")
    memory_root, config = store
    found = summary(memory_root, config)
    if found is None or not found[0]:
        return None
    total, counts, recent = found
    listed = ", ".join(f"{cat} {counts[cat]}" for cat in CATEGORIES if counts.get(cat))
    head = '<memory-context source=".claude/memory/" kind="orientation">'
    tail = "</memory-context>"
    cli = cli_command(project_root_of(memory_root))
    lines = [DATA_NOTE, f"team-memory: {total} active memor{'y' if total == 1 else 'ies'} ({listed})."]
    for category, label in SHOWN:
        titles = recent.get(category)
        if titles:
            lines += [f"{label}:"] + [f"- {t}" for t in titles]
    usage = (f"Search: {cli} search \"<words>\"; save: {cli} similar --category C --title \"...\" "
             f"then {cli} save --record '<the record as one line of JSON, each apostrophe written '\\''>'")
    while True:  # titles give way from the last, a label with its last title
        text = "\n".join([head, *lines, usage, tail]) + "\n"
        if len(text) <= MAX_CHARS or len(lines) <= 2:
            return text if len(text) <= MAX_CHARS else "\n".join([head, *lines[:2], tail]) + "\n"
        lines.pop()
        if lines[-1].endswith(":"):
            lines.pop()

