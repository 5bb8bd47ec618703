"""The SessionStart hook: a short orientation to the team's memory.

On ``startup``, ``resume``, ``clear`` and ``compact`` (or no ``source`` at all)
``on_session_start`` brings the machine cache up to date (as the prompt hook does), then prints, inside a
``<memory-context kind="orientation">`` block, how many active memories each
category holds, the titles of the most recent active decisions and
constraints (sanitized: recalled text is data), and one line on how to search
and save. It prints nothing when the store is empty or retrieval is disabled,
and never more than ``MAX_CHARS``. The counts and each memory's time come from the cache
(``summary_from_cache``: no memory file is opened); without a usable cache, from the index and
the records (``summary_from_records``), with the same answer.
"""
from __future__ import annotations

import os

from ..base import fastjson
from ..records.hookio import DATA_NOTE, enabled_store, first_store
from ..base.cliname import cli_command
from ..derived.cache import CacheInvalid
from ..derived.freshness import current_as_is
from ..base.model import CATEGORIES, category_from_display
from ..base.sanitize import sanitize_title
from ..records.store import project_root_of, read_bytes, record_status

SOURCES = ("startup", "resume", "clear", "compact")
MAX_CHARS = 1500
RECENT = 3           # titles shown per category
MAX_RECORDS_READ = 200  # memories of a category looked at to find the most recent ones (index order)
TITLE_CHARS = 100
SHOWN = (("decision", "Recent decisions"), ("constraint", "Recent constraints"))


def _newest(dated: list) -> list:
    """The titles of the ``RECENT`` newest of ``(time, title)`` pairs, newest first (ties: index order)."""
    dated.sort(key=lambda d: -d[0])
    return [sanitize_title(title, TITLE_CHARS) for _, title in dated[:RECENT]]


def summary_from_cache(memory_root: str, config: dict):
    """``(total, counts per category, newest titles per shown category)`` from the machine cache,
    made current first (``fresh_cache``: every memory file checked, changes patched in); no memory
    file and no ``index.md`` is read. None when there is no usable cache: the caller reads the records.
    """
    cache = current_as_is(memory_root, config)
    if cache is None:  # something changed: the upkeep, imported only then for start-up speed
        from ..derived.freshcache import Building, fresh_cache, hook_budget
        from ..text.features import features_for
        try:
            cache = fresh_cache(memory_root, config, features_for(config), hook_budget())
        except Building:
            return None
        if cache is None:
            return None
    try:
        ocat = cache.ocat
        counts = {cat: ocat.count(code) for code, cat in enumerate(CATEGORIES) if ocat.count(code)}
        shown = {category: [ident for _, ident in cache.ids_of_category(CATEGORIES.index(category))][:MAX_RECORDS_READ]
                 for category, _ in SHOWN}
        every = [ident for ids in shown.values() for ident in ids]
        times = dict(zip(every, cache.times(every)))  # one read of the entries for both
        recent = {}
        for category, ids in shown.items():
            titles = []
            for ident in sorted(ids, key=lambda i: -times[i]):  # stable: ties stay in index order
                entry = cache.item(ident)[0]
                if entry is not None:
                    titles.append(sanitize_title(entry["title"], TITLE_CHARS))
                    if len(titles) == RECENT:
                        break
            recent[category] = titles
        return sum(counts.values()), counts, recent
    except (CacheInvalid, OSError, ValueError, TypeError, KeyError, IndexError):
        return None
    finally:
        cache.close()


def _recent_titles(memory_root: str, config: dict, entries: list, category: str) -> list:
    """Titles of the newest active memories of ``category`` (by ``updated_at``), newest first."""
    from ..derived.index import resolve_entry_path  # for start-up speed: only the path without a cache reads records
    from ..records.times import record_time
    dated = []
    for entry in [e for e in entries if category_from_display(e["category"]) == category][:MAX_RECORDS_READ]:
        path = resolve_entry_path(memory_root, config, entry)
        if path is None:
            continue
        try:  # never through a link, never a FIFO, bounded
            record = fastjson.loads(read_bytes(path)[0])
        except (OSError, ValueError, RecursionError):
            continue
        if not isinstance(record, dict) or record_status(record) != "active":
            continue
        dated.append((record_time(record), entry["title"]))
    return _newest(dated)


def summary_from_records(memory_root: str, config: dict, entries: list):
    """``summary_from_cache``'s answer from index entries, reading the records for their times."""
    counts = {}
    for e in entries:
        cat = category_from_display(e["category"])
        if cat:
            counts[cat] = counts.get(cat, 0) + 1
    recent = {category: _recent_titles(memory_root, config, entries, category) for category, _ in SHOWN}
    return len(entries), counts, recent


def build_orientation(memory_root: str, summary) -> str:
    total, counts, recent = summary
    listed = ", ".join(f"{cat} {counts[cat]}" for cat in CATEGORIES if counts.get(cat))
    head = '<memory-context source=".claude/memory/" kind="orientation">'
    tail = "</memory-context>"
    cli = cli_command(project_root_of(memory_root))
    lines = [DATA_NOTE, f"team-memory: {total} active memor{'y' if total == 1 else 'ies'} ({listed})."]
    for category, label in SHOWN:
        titles = recent.get(category)
        if titles:
            lines.append(f"{label}:")
            lines += [f"- {t}" for t in titles]
    usage = (f"Search: {cli} search \"<words>\"; save: {cli} similar --category C --title \"...\" "
             f"then {cli} save --record '<the record as one line of JSON, each apostrophe written '\\''>'")
    while True:
        text = "\n".join([head, *lines, usage, tail]) + "\n"
        if len(text) <= MAX_CHARS or len(lines) <= 2:
            return text if len(text) <= MAX_CHARS else "\n".join([head, *lines[:2], tail]) + "\n"
        lines.pop()
        if lines[-1].endswith(":"):
            lines.pop()


def first_use(payload: dict) -> str | None:
    """One line for a plugin user whose repository has no memories yet: how memory starts."""
    memory_root = first_store(payload)
    if memory_root is None or os.path.lexists(memory_root):
        return None  # not the plugin, not a repository, or a store that is there but switched off
    project = project_root_of(memory_root)
    return (f"team-memory: no team memories in this repository yet; the first save creates .claude/memory/ "
            f"at {project} (commit it to share): {cli_command(project)} save --record '<JSON, each apostrophe "
            f"written '\\''>'.\n")


def on_session_start(payload: dict) -> str | None:
    """SessionStart handler: the orientation text, or None."""
    source = payload.get("source")
    if source is not None and source not in SOURCES:
        return None
    store = enabled_store(payload)
    if store is None:
        return first_use(payload)
    memory_root, config = store
    summary = summary_from_cache(memory_root, config)
    if summary is None:  # no usable cache (a read-only checkout, another process building it): the records
        from ..derived.refresh import current_entries  # for start-up speed: only this path needs the index
        entries = current_entries(memory_root, config)
        summary = summary_from_records(memory_root, config, entries) if entries else None
    if summary is None or not summary[0]:
        return None
    return build_orientation(memory_root, summary)

