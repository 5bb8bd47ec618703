"""The file map: which active memories name a file in their ``related_files``.

Recall by file (the PostToolUse hook) asks "which memories are about ``app/session.py``?"
on every Read, Edit and Write. It must answer without listing the store or reading a memory
file, so the derived files carry the answer: ``<store>/.cache/files.map``, written whenever
``index.md`` and the machine cache are rebuilt (``upkeep.rebuild_locked``) or patched
(``patch.apply_changes_locked``), under the store lock, atomically, in the ``.cache`` folder
that is never a link (``cachewrite``). The hook reads it without a lock.

Format (UTF-8 text, ``\\n`` line ends)::

    team-memory file map 1
    <key>\\t<entry>\\t<memory>

one line per (active memory, ``related_files`` entry), the lines sorted as bytes:

- ``entry``: the entry as ``relpaths.normalise`` stores it; entries it refuses (``..``, an
  absolute path, ``.git``...) are left out, never followed;
- ``memory``: the memory's index path (``.claude/memory/decisions/x.json``), the key recall
  uses everywhere;
- ``key``: where a lookup finds the line: a file or folder entry without its trailing ``/``;
  a glob's literal folders, the segments before the first one with a glob character (``""``
  for a glob at the top, such as ``**/*.sql``).

A lookup for ``a/b/c.py`` looks at the lines keyed ``""``, ``a``, ``a/b`` and ``a/b/c.py``:
each run of lines is found by bisecting the bytes (``\\t`` sorts before every character an
entry may hold, so a key's lines are together), then each entry is matched against the whole
path (``relpaths.matches``). The cost is one bounded read plus a few dozen comparisons per
folder level, whatever the store's size; at most ``MAX_TESTED`` lines are matched per lookup.
Retired and archived memories are never in the map (the reader only yields active ones).
"""
from __future__ import annotations

import os

MAP_REL = (".cache", "files.map")  # beside the machine cache (``cache.CACHE_DIR``; not imported: the hook's speed)
MAGIC = b"team-memory file map 1\n"
MAX_MAP_BYTES = 16 * 1024 * 1024  # a bigger map is not written (a warning says so) and never read
MAX_TESTED = 2000  # lines matched against one path at most (a teammate's thousands of top-level globs)
MAX_PATHS = 8  # paths of one tool call looked up
GLOB_CHARS = "*?["


def map_path(memory_root: str) -> str:
    return os.path.join(memory_root, *MAP_REL)


def related_entries(record: dict) -> list:
    """The record's ``related_files`` entries in their stored form; refused ones left out."""
    from ..records.relpaths import MAX_ENTRIES, normalise
    raw = record.get("related_files")
    out = []
    for entry in raw[:MAX_ENTRIES] if isinstance(raw, list) else ():
        try:
            entry = normalise(entry)
        except ValueError:
            continue
        if entry not in out:
            out.append(entry)
    return out


def key_of(entry: str) -> str:
    """Where a lookup finds ``entry`` (see the module doc)."""
    if not any(c in entry for c in GLOB_CHARS):
        return entry.rstrip("/")
    literal = []
    for part in entry.split("/"):
        if any(c in part for c in GLOB_CHARS):
            break
        literal.append(part)
    return "/".join(literal)


def map_lines(related: dict) -> list:
    """``{memory path: [entries]}`` -> the map's lines (bytes, sorted, without line ends)."""
    lines = set()
    for memory, entries in related.items():
        if "\t" in memory or "\n" in memory:
            continue
        for entry in entries:
            lines.add(f"{key_of(entry)}\t{entry}\t{memory}".encode("utf-8", "surrogateescape"))
    return sorted(lines)


def write_map(memory_root: str, related: dict) -> None:
    """Replace the map with one built from ``related`` (``{memory path: [entries]}``). Under the store lock."""
    from ..base.config import warn
    from ..base.fsutil import atomic_write_bytes
    from .cachewrite import _cache_folder
    lines = map_lines(related)
    data = MAGIC + b"".join(line + b"\n" for line in lines)
    if len(data) > MAX_MAP_BYTES:
        warn(f"the file map would be {len(data)} bytes (more than {MAX_MAP_BYTES}); recall by file is off "
             f"until fewer related_files entries are stored")
        data = MAGIC
    _cache_folder(memory_root)
    atomic_write_bytes(map_path(memory_root), data, durable=False)


def read_related(memory_root: str):
    """The map as ``{memory path: [entries]}``; None when it is missing or not a map (then rebuild)."""
    data = _read(memory_root)
    if data is None:
        return None
    related: dict = {}
    for line in data[len(MAGIC):].split(b"\n"):
        parts = line.decode("utf-8", "surrogateescape").split("\t")
        if len(parts) == 3:
            related.setdefault(parts[2], []).append(parts[1])
    return related


def _read(memory_root: str):
    from ..base.safefs import read_regular
    try:
        data = read_regular(map_path(memory_root), MAX_MAP_BYTES)[0]
    except OSError:
        return None
    return data if data.startswith(MAGIC) and (len(data) == len(MAGIC) or data.endswith(b"\n")) else None


def lookup(cwd: str, paths: list):
    """``(memory root, [(file, memory path)])`` for the files a tool call named (relative to ``cwd``
    or absolute), as the map of the store above ``cwd`` has them; None when the map names none.

    A file is named by its path inside the repository (lexically; failing that, with the links
    in its folders resolved, for a project reached through a link): nothing is read but the map.
    """
    from ..records.storeroot import find_memory_root, project_root_of
    try:
        memory_root = find_memory_root(cwd)
    except OSError:  # a store reached through a link is never used
        return None
    if memory_root is None:
        return None
    from ..records.relpaths import repo_relative
    root = project_root_of(memory_root)
    files = []
    for path in paths[:MAX_PATHS]:
        rel = repo_relative(path, cwd, root)
        if rel is None and isinstance(path, str) and path and "\x00" not in path:
            full = os.path.join(cwd, os.path.expanduser(path))
            rel = repo_relative(os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full)),
                                cwd, os.path.realpath(root))
        if rel and rel not in files:
            files.append(rel)
    found = memories_for(memory_root, files) if files else []
    return (memory_root, found) if found else None


def memories_for(memory_root: str, paths: list) -> list:
    """``[(path, memory path)]``: the memories whose entries name each repository-relative file of
    ``paths`` (``a/b.py``), each memory once: for each path, entries keyed by the file itself
    first, then by each folder above it, the deepest first. ``[]`` when the map is missing or unreadable
    (the next prompt's refresh writes it).
    """
    data = _read(memory_root)
    if data is None or len(data) == len(MAGIC):
        return []
    candidates = []
    for path in paths:
        parts = path.split("/")
        for key in ["/".join(parts[:k]) for k in range(len(parts), 0, -1)] + [""]:  # the most specific first
            target = key.encode("utf-8", "surrogateescape") + b"\t"
            start = _first_at_or_after(data, len(MAGIC), target)
            while start < len(data) and data.startswith(target, start) and len(candidates) < MAX_TESTED:
                end = data.find(b"\n", start)
                candidates.append((path, data[start + len(target):end]))
                start = end + 1
    if not candidates:
        return []
    from ..records.relpaths import matches
    found, seen = [], set()
    for path, line in candidates:
        entry, _, memory = line.decode("utf-8", "surrogateescape").partition("\t")
        if memory not in seen and matches(entry, path):
            seen.add(memory)
            found.append((path, memory))
    return found


def _first_at_or_after(data: bytes, lo: int, target: bytes) -> int:
    """The offset of the first line (from ``lo``, a line start) that sorts at or after ``target``."""
    hi = len(data)
    while lo < hi:
        mid = (lo + hi) // 2
        i = data.rfind(b"\n", lo, mid)
        start = lo if i < 0 else i + 1
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        if data[start:end] < target:
            lo = end + 1
        else:
            hi = start
    return lo
