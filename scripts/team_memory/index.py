"""``index.md``: the derived, one-line-per-active-memory index, and its upkeep.

Format (the prior plugin's, unchanged)::

    - [DECISION] <title> -> .claude/memory/decisions/<id>.json #tags:a,b

sorted by category then lower-cased title. The JSON files are the only source
of truth: the index can always be rebuilt (atomically, under the store lock),
and a reader that finds it stale rebuilds it, or, if another process holds
the lock, uses what is on disk without waiting.
"""
from __future__ import annotations

import os
import re

from .bodycache import cache_exists, derive_body_tokens, write_cache
from .config import category_enabled, category_folders
from .fsutil import LockBusy, atomic_write_text, category_dir, store_lock, within
from .model import CONFIG_NAME, INDEX_NAME, category_from_display, display_name
from .sanitize import TITLE_MAX, clean_line, clean_tag
from .store import iter_records, project_root_of, record_status
from .textnorm import stop_words_for

HEADER = (
    "# Memory Index\n\n"
    "<!-- Derived from the JSON files by team-memory; do not edit. "
    "Rebuild with: python3 scripts/memory.py rebuild -->\n\n"
)

_INDEX_RE = re.compile(r"^-\s+\[([A-Z_]+)\]\s+(.+?)\s+->\s+(\S+)(?:\s+#tags:(.+))?$")


def index_path(memory_root: str) -> str:
    return os.path.join(memory_root, INDEX_NAME)


def entry_from_record(memory_root: str, category: str, path: str, record: dict) -> dict:
    """The index entry of one record: display category, clean title, project-relative path, clean tags."""
    tags = []
    raw_tags = record.get("tags")
    for tag in raw_tags if isinstance(raw_tags, list) else []:
        if isinstance(tag, str):
            tag = clean_tag(tag).replace(",", "")
            if tag and tag not in tags:
                tags.append(tag)
    rel = os.path.relpath(path, project_root_of(memory_root)).replace(os.sep, "/")
    return {
        "category": display_name(category),
        "title": clean_line(record["title"])[:TITLE_MAX].strip(),
        "path": rel,
        "tags": tags,
    }


def format_index_line(entry: dict) -> str:
    line = f"- [{entry['category']}] {entry['title']} -> {entry['path']}"
    if entry["tags"]:
        line += f" #tags:{','.join(entry['tags'])}"
    return line


def build_entries(memory_root: str, config: dict, bodies: dict | None = None) -> list:
    """Index entries for every active memory of an enabled category, in index order.

    With ``bodies`` (a dict), also fills ``{entry path: body tokens}`` (see ``bodycache``).
    """
    entries = []
    stop_words = stop_words_for(config) if bodies is not None else frozenset()
    for category, path, record in iter_records(memory_root, config):
        if record_status(record) != "active" or not category_enabled(config, category):
            continue
        entry = entry_from_record(memory_root, category, path, record)
        if entry["title"]:
            entries.append(entry)
            if bodies is not None:
                bodies[entry["path"]] = derive_body_tokens(record, stop_words)
    entries.sort(key=lambda e: (e["category"], e["title"].lower(), e["path"]))
    return entries


def render_index(entries: list) -> str:
    return HEADER + "".join(format_index_line(e) + "\n" for e in entries)


def rebuild_index(memory_root: str, config: dict, blocking: bool = True) -> int:
    """Rewrite ``index.md`` from the JSON files under the store lock; return the entry count.

    With ``blocking=False`` raises ``LockBusy`` instead of waiting for another writer.
    """
    with store_lock(memory_root, blocking=blocking):
        return write_index_locked(memory_root, config)


def write_index_locked(memory_root: str, config: dict) -> int:
    """Rewrite ``index.md`` and the body-token cache beside it; the caller holds the store lock.

    The cache is written first, so a fresh index always has a cache at least as fresh.
    """
    bodies: dict = {}
    entries = build_entries(memory_root, config, bodies)
    write_cache(memory_root, bodies)
    atomic_write_text(index_path(memory_root), render_index(entries))
    return len(entries)


def parse_index_line(line: str) -> dict | None:
    """One index line -> ``{category, title, path, tags}``; None for anything else."""
    m = _INDEX_RE.match(line.rstrip("\r\n"))
    if not m or category_from_display(m.group(1)) is None:
        return None
    tags_str = m.group(4)
    tags = [t.strip().lower() for t in tags_str.split(",") if t.strip()] if tags_str else []
    return {"category": m.group(1), "title": m.group(2).strip(), "path": m.group(3), "tags": tags}


def parse_index_text(text: str) -> list:
    return [e for e in map(parse_index_line, text.splitlines()) if e is not None]


def read_index(memory_root: str) -> list | None:
    """The parsed entries of ``index.md``; None if it cannot be read."""
    path = index_path(memory_root)
    if not within(memory_root, path):  # a hand-made link out of the store: never followed
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return parse_index_text(f.read())
    except OSError:
        return None


def newest_source_mtime(memory_root: str, config: dict) -> float:
    """The newest modification time among the category folders, their JSON files and the config.

    Folder times catch files added, replaced or removed; file times catch in-place edits.
    """
    newest = 0.0
    with_config = [os.path.join(memory_root, CONFIG_NAME)]
    for path in with_config + [os.path.join(memory_root, f) for f in category_folders(config).values()]:
        try:
            newest = max(newest, os.stat(path).st_mtime)
        except OSError:
            continue
    for folder in category_folders(config).values():
        path = category_dir(memory_root, folder)
        if path is None:
            continue
        try:
            with os.scandir(path) as it:
                for entry in it:
                    if entry.name.endswith(".json"):
                        try:
                            newest = max(newest, entry.stat().st_mtime)
                        except OSError:
                            continue
        except OSError:
            continue
    return newest


def index_is_stale(memory_root: str, config: dict) -> bool:
    """True when ``index.md`` or the body-token cache is missing, or older than anything it is derived from."""
    if not cache_exists(memory_root):
        return True
    try:
        built = os.stat(index_path(memory_root)).st_mtime
    except OSError:
        return True
    return newest_source_mtime(memory_root, config) > built


def current_entries(memory_root: str, config: dict) -> list:
    """Fresh index entries for a reader that must not wait (the hooks).

    Rebuilds a stale index if the lock is free; if another process holds it,
    uses the index on disk, or builds the entries in memory when there is none.
    """
    if index_is_stale(memory_root, config):
        try:
            rebuild_index(memory_root, config, blocking=False)
        except LockBusy:
            entries = read_index(memory_root)
            return entries if entries is not None else build_entries(memory_root, config)
        except OSError:  # a read-only checkout, say: work from memory
            return build_entries(memory_root, config)
    entries = read_index(memory_root)
    return entries if entries is not None else build_entries(memory_root, config)


def resolve_entry_path(memory_root: str, config: dict, entry: dict) -> str | None:
    """The real file behind an index entry, or None if it lies outside its category folder.

    Rejects absolute paths, ``..`` escapes, and symlinks (files or folders) that point out of the store.
    """
    category = category_from_display(entry["category"])
    rel = entry["path"]
    if category is None or os.path.isabs(rel) or not rel.endswith(".json") or "\x00" in rel:
        return None
    real = os.path.realpath(os.path.join(project_root_of(memory_root), rel))
    folder = os.path.join(os.path.realpath(memory_root), category_folders(config)[category])
    if os.path.dirname(real) != folder:  # also rejects a category folder linked out of the store
        return None
    return real
