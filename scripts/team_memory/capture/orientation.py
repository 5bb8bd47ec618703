"""The SessionStart hook: a short orientation to the team's memory.

On ``startup``, ``resume``, ``clear`` and ``compact`` (or no ``source`` at all)
``on_session_start`` rebuilds a stale index, then prints, inside a
``<memory-context kind="orientation">`` block, how many active memories each
category holds, the titles of the most recent active decisions and
constraints (sanitized: recalled text is data), and one line on how to search
and save. It prints nothing when the store is empty or retrieval is disabled,
and never more than ``MAX_CHARS``.
"""
from __future__ import annotations

import os

from ..base import fastjson
from ..records.hookio import first_store
from ..base.cliname import cli_command
from ..derived.index import resolve_entry_path
from ..derived.refresh import current_entries
from ..base.model import CATEGORIES, category_from_display
from ..recall.retrieve import enabled_store
from ..recall.block import DATA_NOTE
from ..recall.rank import parse_time
from ..base.sanitize import sanitize_title
from ..records.store import project_root_of, read_bytes, record_status

SOURCES = ("startup", "resume", "clear", "compact")
MAX_CHARS = 1500
RECENT = 3           # titles shown per category
MAX_RECORDS_READ = 200  # records opened to find the most recent ones
TITLE_CHARS = 100


def _recent_titles(memory_root: str, config: dict, entries: list, category: str) -> list:
    """Titles of the newest active memories of ``category`` (by ``updated_at``), newest first."""
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
        when = parse_time(record.get("updated_at")) or parse_time(record.get("created_at"))
        dated.append((when.timestamp() if when else 0.0, entry["title"]))
    dated.sort(key=lambda d: -d[0])
    return [sanitize_title(title, TITLE_CHARS) for _, title in dated[:RECENT]]


def build_orientation(memory_root: str, config: dict, entries: list) -> str:
    counts = {}
    for e in entries:
        cat = category_from_display(e["category"])
        if cat:
            counts[cat] = counts.get(cat, 0) + 1
    summary = ", ".join(f"{cat} {counts[cat]}" for cat in CATEGORIES if counts.get(cat))
    head = '<memory-context source=".claude/memory/" kind="orientation">'
    tail = "</memory-context>"
    cli = cli_command(project_root_of(memory_root))
    lines = [DATA_NOTE, f"team-memory: {len(entries)} active memories ({summary})."]
    for category, label in (("decision", "Recent decisions"), ("constraint", "Recent constraints")):
        titles = _recent_titles(memory_root, config, entries, category)
        if titles:
            lines.append(f"{label}:")
            lines += [f"- {t}" for t in titles]
    usage = (f"Search: {cli} search \"<words>\"; save: {cli} similar --category C --title \"...\" "
             f"then {cli} save --record '<the record as one line of JSON>'")
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
            f"at {project} (commit it to share): {cli_command(project)} save --record '<JSON>'.\n")


def on_session_start(payload: dict) -> str | None:
    """SessionStart handler: the orientation text, or None."""
    source = payload.get("source")
    if source is not None and source not in SOURCES:
        return None
    store = enabled_store(payload)
    if store is None:
        return first_use(payload)
    memory_root, config = store
    entries = current_entries(memory_root, config)
    if not entries:
        return None
    return build_orientation(memory_root, config, entries)

