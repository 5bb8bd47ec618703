"""``index.md``: one line per active memory, by category then lower-cased title (the prior plugin's format)::

    - [DECISION] <title> -> .claude/memory/decisions/<id>.json #tags:a,b

and the memory files read for the derived files (bounded, never through a link) into index items.
"""
from __future__ import annotations

import os

from ..base.config import category_enabled, category_folder, category_folders
from ..base.model import INDEX_NAME, category_from_display, display_name
from ..base.safefs import S_IFMT, S_IFREG, kind_of, read_regular
from ..base.sanitize import TITLE_MAX
from ..records.exposure import name_is_shown, recall_title, shown_tag
from ..records.store import NotARecord, parse_memory, project_root_of, record_status, record_time, warn_skipped


def index_header() -> str:
    from ..base.cliname import stable_cli  # (not imported where recall reads this module)
    return ("# Memory Index\n\n<!-- Derived from the JSON files by team-memory; do not edit. "
            f"Rebuild with: {stable_cli()} rebuild -->\n\n")


def index_path(memory_root: str) -> str:
    return os.path.join(memory_root, INDEX_NAME)


def entry_from_record(memory_root: str, category: str, path: str, record: dict) -> dict:
    """The index entry of one record: display category, clean title, project-relative path, clean tags."""
    raw_tags = record.get("tags") if isinstance(record.get("tags"), list) else []
    # each hidden before it is cleaned: "<private>x</private>" never reads "privatexprivate"
    tags = list(dict.fromkeys(tag for tag in (shown_tag(t) for t in raw_tags if isinstance(t, str)) if tag))
    rel = os.path.relpath(path, project_root_of(memory_root)).replace(os.sep, "/")
    return {"category": display_name(category), "title": recall_title(record["title"], TITLE_MAX), "path": rel,
            "tags": tags}


def format_index_line(entry: dict) -> str:
    tags = f" #tags:{','.join(entry['tags'])}" if entry["tags"] else ""
    return f"- [{entry['category']}] {entry['title']} -> {entry['path']}{tags}"


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def parse_index_line(line: str) -> dict | None:
    """One index line -> ``{category, title, path, tags}``; None for anything else (the header, blank lines). What
    ``^-\\s+\\[([A-Z_]+)\\]\\s+(.+?)\\s+->\\s+(\\S+)(?:\\s+#tags:(.+))?$`` said of a line, in one pass: that
    expression took quadratic time on a long run of spaces (``index.md`` is a file anyone can commit)."""
    line = line.rstrip("\r\n") if line.startswith("-") else ""
    i = _skip_space(line, 1)
    if i == 1 or not line.startswith("[", i):
        return None
    close = line.find("]", i + 1)
    category = line[i + 1:close]
    if close < 0 or not category or not all("A" <= ch <= "Z" or ch == "_" for ch in category) \
            or category_from_display(category) is None:
        return None
    rest = line[close + 1:]
    if "\n" in rest or not rest[:1].isspace():
        return None
    k = rest.find("->", 3)  # a space, the title (one character at least), a space
    blank = None  # the expression's \s+ takes every leading space first: a title of spaces only if nothing else fits
    while k >= 0:
        start = _skip_space(rest, k + 2)
        end = start
        while end < len(rest) and not rest[end].isspace():
            end += 1
        if rest[k - 1].isspace() and start > k + 2 and end > start:
            tail = _skip_space(rest, end)
            if end == len(rest) or (tail > end and rest.startswith("#tags:", tail) and len(rest) > tail + 6):
                tags_str = rest[tail + 6:] if end < len(rest) else None
                tags = [t.strip().lower() for t in tags_str.split(",") if t.strip()] if tags_str else []
                found = {"category": category, "title": rest[:k].strip(), "path": rest[start:end], "tags": tags}
                if found["title"]:
                    return found
                blank = blank or found
        k = rest.find("->", k + 1)
    return blank


def newest_source_mtime(memory_root: str, config: dict) -> float:
    """The newest modification time among the category folders and their JSON files."""
    from ..base.fsutil import memory_file_stats
    folders = category_folders(config).values()
    times = [st.st_mtime for _folder, _name, st in memory_file_stats(memory_root, folders)]
    for path in (os.path.join(memory_root, f) for f in folders):
        try:
            times.append(os.lstat(path).st_mtime)  # a linked folder is never followed
        except OSError:
            continue
    return max(times + [0.0])


def resolve_entry_path(memory_root: str, config: dict, entry: dict) -> str | None:
    """The real file behind an index entry, or None if it lies outside its category folder."""
    category = category_from_display(entry["category"])
    rel = entry["path"]
    if category is None or os.path.isabs(rel) or not rel.endswith(".json") or "\x00" in rel:
        return None
    folder, prefix = _real_folder(memory_root, category_folder(config, category))
    if folder is None:  # a category folder linked out of the store
        return None
    # "<the folder, as the index writes it>/<plain name>" naming a regular file is that file; realpath for the rest
    name = rel[len(prefix):]
    if rel.startswith(prefix) and name not in (".json", "..json") and "/" not in name and os.sep not in name:
        if kind_of(os.path.join(folder, name)) == S_IFREG:  # a regular file, not a link
            return os.path.join(folder, name)
    real = os.path.realpath(os.path.join(project_root_of(memory_root), rel))
    return real if os.path.dirname(real) == folder else None


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


MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is skipped (and reported), never read


def read_item(memory_root: str, config: dict, features, category: str, folder: str, name: str):
    """``(stamp, item | None)`` of one memory file, an item ``[entry, time, tokens, related]``; the stamp None when
    the file cannot be read at all."""
    path = os.path.join(memory_root, folder, name)
    try:  # never through a link, never a FIFO, bounded
        data, st = read_regular(path, MAX_MEMORY_BYTES)
    except OSError as exc:
        warn_skipped(path, memory_root, exc)
        try:  # one too large is recorded in the file table (not in the index) until it changes
            st = os.lstat(path)
        except OSError:
            return None, None
        too_large = st.st_mode & S_IFMT == S_IFREG and st.st_size > MAX_MEMORY_BYTES
        return (_stamp(st) if too_large else None), None
    try:
        record = parse_memory(data)
    except NotARecord as exc:
        warn_skipped(path, memory_root, exc)
        return _stamp(st), None
    active = record_status(record) == "active" and category_enabled(config, category)
    entry = entry_from_record(memory_root, category, path, record) if active else None
    if not (entry and entry["title"] and name_is_shown(name)):  # a hostile file name is never printed
        return _stamp(st), None
    related = []
    if record.get("related_files"):
        from ..records.relpaths import usable
        related = usable(record["related_files"])
    return _stamp(st), [entry, record_time(record), features.prepare_entry(entry, record), related]


def reused_item(memory_root: str, category: str, folder: str, name: str, item: list) -> list:
    """The item of an unchanged file from ``Index.item``, its path and category from where the file is."""
    path = _real_folder(memory_root, folder)[1] + name  # .claude/memory/<folder>/<name>
    entry = {"category": display_name(category), "title": item[1], "path": path, "tags": item[3]}
    return [entry, item[4], [item[5], item[6], item[7]], [e for e in item[8] if isinstance(e, str)]]


def _stamp(st) -> tuple:
    """What tells versions apart: an in-place rewrite can keep inode, size and mtime, never the ctime."""
    return st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns
