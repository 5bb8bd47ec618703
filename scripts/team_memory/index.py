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

from .cliname import stable_cli
from .config import category_enabled, category_folder, category_folders
from .model import CONFIG_NAME, INDEX_NAME, category_from_display, display_name
from .store import project_root_of, record_status

HEADER = (
    "# Memory Index\n\n"
    "<!-- Derived from the JSON files by team-memory; do not edit. "
    f"Rebuild with: {stable_cli()} rebuild -->\n\n"
)

_INDEX_PATTERN = r"^-\s+\[([A-Z_]+)\]\s+(.+?)\s+->\s+(\S+)(?:\s+#tags:(.+))?$"
_index_re = None


def index_path(memory_root: str) -> str:
    return os.path.join(memory_root, INDEX_NAME)


def entry_from_record(memory_root: str, category: str, path: str, record: dict) -> dict:
    """The index entry of one record: display category, clean title, project-relative path, clean tags."""
    from .exposure import recall_tag, recall_title
    from .sanitize import TITLE_MAX, clean_tag
    tags = []
    raw_tags = record.get("tags")
    for tag in raw_tags if isinstance(raw_tags, list) else []:
        if isinstance(tag, str):
            tag = recall_tag(clean_tag(tag).replace(",", ""))
            if tag and tag not in tags:
                tags.append(tag)
    rel = os.path.relpath(path, project_root_of(memory_root)).replace(os.sep, "/")
    return {
        "category": display_name(category),
        "title": recall_title(record["title"], TITLE_MAX),
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
    from .sanitize import safe_name
    from .store import iter_records
    if bodies is not None:
        from .bodycache import derive_body_tokens
        from .textnorm import stop_words_for
        stop_words = stop_words_for(config)
    entries = []
    for category, path, record in iter_records(memory_root, config):
        if record_status(record) != "active" or not category_enabled(config, category):
            continue
        entry = entry_from_record(memory_root, category, path, record)
        if entry["title"] and safe_name(os.path.basename(path)):
            entries.append(entry)
            if bodies is not None:
                bodies[entry["path"]] = derive_body_tokens(record, stop_words)
    entries.sort(key=lambda e: (e["category"], e["title"].lower(), e["path"]))
    return entries


def render_index(entries: list) -> str:
    return HEADER + "".join(format_index_line(e) + "\n" for e in entries)


def rebuild_index(memory_root: str, config: dict, blocking: bool = True, full: bool = True) -> int:
    """Rewrite ``index.md`` from the JSON files under the store lock; return the entry count.

    ``full=False`` checks every file but re-reads only those whose inode, size or modification
    time differ from what the machine cache recorded (a full rebuild when there is no usable
    cache). With ``blocking=False`` raises ``LockBusy`` instead of waiting for another writer.
    """
    from .fsutil import store_lock
    with store_lock(memory_root, blocking=blocking):
        if full:
            return write_index_locked(memory_root, config)
        from .upkeep import apply_changes_locked
        return apply_changes_locked(memory_root, config, check_all=True)


def write_index_locked(memory_root: str, config: dict) -> int:
    """Rewrite ``index.md`` (and the machine cache) from every JSON file; the caller holds the store lock."""
    from .upkeep import rebuild_locked
    return rebuild_locked(memory_root, config)


def apply_changes(memory_root: str, config: dict, changed_paths, before=None) -> int:
    """Bring ``index.md`` and the machine cache up to date after a writer changed ``changed_paths``.

    For writers: call it under the store lock they already hold, after the JSON files were
    written, replaced or removed. It re-lists only the folders of those paths and reads
    only new or changed files (a full rebuild if the cache cannot be patched). Returns the
    number of index lines. ``before``: ``upkeep.folder_stamps(paths)`` taken right before the
    writer wrote them, under the same lock (then only those files are looked at).
    """
    from .upkeep import apply_changes_locked
    return apply_changes_locked(memory_root, config, changed_paths, before=before)


def parse_index_line(line: str) -> dict | None:
    """One index line -> ``{category, title, path, tags}``; None for anything else."""
    simple = _parse_simple(line)
    if simple is not None:
        return simple
    if not line.startswith("-"):  # the header and blank lines: no ``re`` for them (hook start-up speed)
        return None
    global _index_re
    if _index_re is None:
        import re
        _index_re = re.compile(_INDEX_PATTERN)
    m = _index_re.match(line.rstrip("\r\n"))
    if not m or category_from_display(m.group(1)) is None:
        return None
    tags_str = m.group(4)
    tags = [t.strip().lower() for t in tags_str.split(",") if t.strip()] if tags_str else []
    return {"category": m.group(1), "title": m.group(2).strip(), "path": m.group(3), "tags": tags}


def _parse_simple(line: str) -> dict | None:
    """The regex's answer without the regex, for the lines the index writer makes; None when unsure."""
    if not line.startswith("- [") or "\r" in line or "\n" in line:
        return None
    close = line.find("] ", 3)
    category = line[3:close]
    if close < 0 or category not in _DISPLAY_NAMES:
        return None
    rest = line[close + 2:]
    title, arrow, tail = rest.partition(" -> ")
    if not arrow or not title or "->" in title or title != title.strip() or not title.isprintable():
        return None
    path, space, tags_str = tail.partition(" ")
    if not path or not path.isprintable() or " " in path:
        return None
    if space:
        if not tags_str.startswith("#tags:") or not tags_str.isprintable() or " " in tags_str:  # printable: no other space
            return None
        tags_str = tags_str[6:]
        if not tags_str:
            return None
    tags = [t.lower() for t in tags_str.split(",") if t] if space else []
    return {"category": category, "title": title, "path": path, "tags": tags}


_DISPLAY_NAMES = frozenset(display_name(c) for c in ("decision", "constraint", "preference", "runbook",
                                                      "tech_debt", "session_summary"))


def parse_index_text(text: str) -> list:
    return [e for e in map(parse_index_line, text.splitlines()) if e is not None]


MAX_INDEX_BYTES = 256 * 1024 * 1024  # about two million lines


def read_index(memory_root: str) -> list | None:
    """The parsed entries of ``index.md``; None if it cannot be read."""
    from .safefs import read_regular
    try:  # never through a link, never a FIFO, bounded
        return parse_index_text(read_regular(index_path(memory_root), MAX_INDEX_BYTES)[0].decode("utf-8", "replace"))
    except OSError:
        return None


def newest_source_mtime(memory_root: str, config: dict, include_config: bool = True) -> float:
    """The newest modification time among the category folders, their JSON files and the config.

    Folder times catch files added, replaced or removed; file times catch in-place edits.
    """
    newest = 0.0
    with_config = [os.path.join(memory_root, CONFIG_NAME)] if include_config else []
    for path in with_config + [os.path.join(memory_root, f) for f in category_folders(config).values()]:
        try:
            newest = max(newest, os.stat(path).st_mtime)
        except OSError:
            continue
    from .fsutil import category_dir
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
    """True when ``index.md`` or the machine cache is missing, was built for another
    configuration, or any memory file was added, removed or changed since (per file: inode,
    size, mtime and ctime, so an in-place rewrite that keeps the size and the times counts too).

    The hooks bring such an index up to date on the next prompt (``upkeep.fresh_cache``).
    """
    if not os.path.isfile(index_path(memory_root)):
        return True
    from .upkeep import cache_is_current
    return not cache_is_current(memory_root, config)


def current_entries(memory_root: str, config: dict) -> list:
    """Fresh index entries for a reader that must not wait (the hooks).

    Rebuilds a stale index if the lock is free; if another process holds it,
    uses the index on disk, or builds the entries in memory when there is none.
    """
    from .fsutil import LockBusy
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
    folder = _real_folder(memory_root, category_folder(config, category))
    if folder[0] is None:  # a category folder linked out of the store
        return None
    # The common case, cheaply: "<the folder, as the index writes it>/<plain name>" naming a
    # regular file (not a symlink) is that file in that folder; realpath only for the rest.
    prefix, name = folder[1], rel[len(folder[1]):]
    if rel.startswith(prefix) and name not in (".json", "..json") and "/" not in name and os.sep not in name:
        try:
            st = os.lstat(os.path.join(folder[0], name))
        except OSError:
            st = None
        if st is not None and stat_is_regular(st.st_mode):
            return os.path.join(folder[0], name)
    real = os.path.realpath(os.path.join(project_root_of(memory_root), rel))
    if os.path.dirname(real) != folder[0]:
        return None
    return real


_folders_seen: dict = {}


def _real_folder(memory_root: str, folder: str):
    """``(real path, project-relative prefix ending in "/")`` of a category folder, memoised."""
    key = (memory_root, folder)
    got = _folders_seen.get(key)
    if got is None:
        path = os.path.join(memory_root, folder)
        rel = os.path.relpath(path, project_root_of(memory_root)).replace(os.sep, "/") + "/"
        real = os.path.realpath(path)
        if os.path.dirname(real) != os.path.realpath(memory_root):
            real = None  # linked out of the store: nothing in it is ever read
        got = _folders_seen[key] = (real, rel)
    return got


def stat_is_regular(mode: int) -> bool:
    return (mode & 0o170000) == 0o100000
