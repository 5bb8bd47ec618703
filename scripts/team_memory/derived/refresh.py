"""Keeping ``index.md``, the machine cache and the file map in step with the JSON files (and writing them).

``current_index`` (every reader's call) never waits on the lock; writers call ``apply_changes`` under theirs.

Current: written for this configuration, character policy and token shape, beside this ``index.md`` and
this file map (their stamps); no category folder changed and no memory file's ctime moved (an in-place
rewrite always moves it): one ``lstat`` per memory. A time within two ticks of the cache's own is not trusted.
A rebuild re-reads only the files whose inode, mtime, size or ctime differ from the cache's record.
"""
from __future__ import annotations

import os
import time

from ..base.fsutil import LockBusy, atomic_write_bytes, atomic_write_text, memory_file_stats, store_lock
from ..base.config import category_folders, warn
from ..base.model import CATEGORIES, INDEX_NAME, TEXT_POLICY
from .cache import CACHE_DIR, MAP_NAME, MAX_CACHE_BYTES, CacheInvalid, Index, cache_folder, cache_path, encode
from .cache import json_line

NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_DIRECTORY", 0)

VERSION = 3  # the shape of the tokens (``features.SmartFeatures``): a cache of another version is rebuilt
RACY_NS, RACY_FINE_NS = 2_000_000_000, 20_000_000  # whole-second file times, finer ones
BLOCK_BYTES = 4096  # the file map's block (``filemap.BLOCK_BYTES``; the writer's own: a test sets it apart)
READ_WHOLE = 512 * 1024  # a cache this small (about 500 memories) is read whole: no mmap module loaded (0.03x)


def settled(ns, written: int) -> bool:
    """A file or folder time ``ns`` far enough before ``written`` that nothing can change unseen in its tick."""
    return ns is not None and written - ns >= (RACY_NS if ns % 1_000_000_000 == 0 else RACY_FINE_NS)


def _lstat(path: str):
    try:  # the link's own: a linked category folder is never followed (``index.read_item``), nor is its time read
        return os.lstat(path)
    except OSError:
        return None


def _stamps(memory_root: str) -> list:
    """The stamps of ``index.md`` and the file map: any other file by those names means a rebuild."""
    paths = (os.path.join(memory_root, INDEX_NAME), os.path.join(memory_root, CACHE_DIR, MAP_NAME))
    return [[st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns] if st else None for st in map(_lstat, paths)]


def _read(memory_root: str):
    """The cache file's bytes, or mapped read-only (a prompt reads only its words' lines); None when unusable."""
    from ..base.safefs import is_real_dir, open_regular
    if not is_real_dir(os.path.join(memory_root, CACHE_DIR)):
        return None
    try:
        fd, st = open_regular(cache_path(memory_root))
    except OSError:
        return None
    try:
        if not 0 < st.st_size <= MAX_CACHE_BYTES:
            return None
        if st.st_size <= READ_WHOLE:
            return os.read(fd, st.st_size)
        import mmap
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _suits(header: dict, config: dict) -> bool:
    return header.get("version") == VERSION and header.get("text_policy") == TEXT_POLICY and header.get("config") == config


def _is_current(index: Index, memory_root: str, config: dict, sure: bool = True) -> bool:
    """``sure=False``: a time too close to the cache's own to trust counts as current (what differs only)."""
    header = index.header
    written, folders = header.get("written_ns"), header.get("folders")
    if not (_suits(header, config) and isinstance(written, int) and isinstance(folders, dict)
            and [header.get("index"), header.get("map")] == _stamps(memory_root)):
        return False
    (names, ctimes), at, now_ctimes = index.table(), 0, []
    for category, folder in category_folders(config).items():
        path = os.path.join(memory_root, folder)
        now = getattr(_lstat(path), "st_mtime_ns", None)
        if folders.get(folder) != now or (sure and now is not None and not settled(now, written)):
            return False
        count = header["files"].get(category, 0)
        got = _ctimes(path, names[at:at + count])
        if got is None:
            return False
        now_ctimes += got
        at += count
    return at == len(names) and now_ctimes == ctimes and not (sure and ctimes and not settled(max(ctimes), written))


def _ctimes(folder_path: str, names: list):
    """The ctimes of ``names`` in the folder (one ``lstat`` each, relative to the open folder); None when one is gone."""
    if not names:
        return []
    try:
        fd = os.open(folder_path, os.O_RDONLY | NO_FOLLOW)  # a linked folder (a forged file table) is not read
    except OSError:
        return None
    try:
        stat = os.stat
        return [stat(name, dir_fd=fd, follow_symlinks=False).st_ctime_ns for name in names]
    except (OSError, NotImplementedError, ValueError):
        return None
    finally:
        os.close(fd)


def current_index(memory_root: str, config: dict, trust: bool = True) -> Index:
    """The store's ``Index``, current (built in memory when locked or read-only); ``trust=False``: rebuild."""
    data = _read(memory_root) if trust else None
    if data is not None:
        try:
            index = Index(data)
            if _is_current(index, memory_root, config):
                return index
        except CacheInvalid:
            data = None
    try:
        with store_lock(memory_root, blocking=False):
            return Index(_rebuild_locked(memory_root, config, data))
    except (LockBusy, OSError):  # a writer is at work, or a read-only checkout: work from memory
        return index_in_memory(memory_root, config, data)


def index_in_memory(memory_root: str, config: dict, old=None) -> Index:
    """The store's ``Index`` built from the JSON files, nothing written (``old``: cache bytes to reuse)."""
    return Index(encode(*_build(memory_root, config, old)[:3]))


def _previous(old, config: dict):
    """``(index, {(category, name): (inode, mtime_ns, size, ctime_ns, id)})`` of an old cache's settled files."""
    try:
        index = Index(old) if old is not None else None
        if index is None or not _suits(index.header, config) or not isinstance(index.header.get("written_ns"), int):
            return None, {}
        names, ctimes = index.table()
        rows = json_line(old, index.stamps_at, "stamps", list)
    except CacheInvalid:
        return None, {}
    written, files = index.header["written_ns"], index.header["files"]
    categories = [category for category in CATEGORIES for _ in range(files.get(category, 0))]
    return index, {(category, os.fsdecode(name)): (row[0], row[1], row[2], ctime, row[3])
                   for category, name, ctime, row in zip(categories, names, ctimes, rows)
                   if isinstance(row, list) and len(row) == 4 and all(isinstance(v, int) for v in row)
                   and settled(ctime, written) and settled(row[1], written)}


def _build(memory_root: str, config: dict, old=None):
    """``(header, (names, ctimes, stamps), items, index.md text)``; unchanged files' old entries reused."""
    from ..text.features import SmartFeatures
    from .index import format_index_line, index_header, parse_index_line, read_item, reused_item
    features = SmartFeatures(config)
    folders = category_folders(config)
    written = time.time_ns()
    folder_times = {f: getattr(_lstat(os.path.join(memory_root, f)), "st_mtime_ns", None)
                    for f in sorted(set(folders.values()))}
    old_index, previous = _previous(old, config)
    counts, names, ctimes, stamps, found = {}, [], [], [], []
    for category in CATEGORIES:
        folder, before = folders[category], len(names)
        for _, name, st in sorted(memory_file_stats(memory_root, [folder])):
            if name[0] == ".":  # a writer's temp file
                continue
            row = previous.get((category, name))
            if row is not None and row[:4] == (st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns):
                got = reused_item(memory_root, category, folder, name, old_index.item(row[4])) if row[4] >= 0 else None
                stamp = row[:4]
            else:
                stamp, got = read_item(memory_root, config, features, category, folder, name)
                if stamp is None:
                    continue
            names.append(name)
            ctimes.append(stamp[3])
            stamps.append([stamp[0], stamp[1], stamp[2], -1])
            if got is not None:
                found.append((got[0]["category"], got[0]["title"].lower(), got[0]["path"], got, stamps[-1]))
        counts[category] = len(names) - before
    found.sort(key=lambda f: f[:3])
    lines = [format_index_line(f[3][0]) for f in found]
    items = []
    for line, (_, _, _, (entry, when, tokens, related), row) in zip(lines, found):
        parsed = parse_index_line(line)
        if parsed is None:
            continue
        if parsed != entry:  # the line reads back otherwise (never for what the writer makes): score what it says
            tokens = [*map(sorted, features.surface_tokens(parsed)), tokens[2]]
        row[3] = len(items)
        items.append([parsed, when, tokens, related])
    header = {"version": VERSION, "text_policy": TEXT_POLICY, "config": config, "written_ns": written,
              "folders": folder_times, "files": counts}
    return header, (names, ctimes, stamps), items, index_header() + "".join(line + "\n" for line in lines)


def _rebuild_locked(memory_root: str, config: dict, old=None) -> bytes:
    """Rebuild and write ``index.md``, the file map and the cache (the caller holds the store lock)."""
    header, table, items, text = _build(memory_root, config, old)
    atomic_write_text(os.path.join(memory_root, INDEX_NAME), text, durable=False)
    write_map(memory_root, {item[0]["path"]: item[3] for item in items if item[3]})
    header["index"], header["map"] = _stamps(memory_root)
    data = encode(header, table, items)
    cache_folder(memory_root)
    atomic_write_bytes(cache_path(memory_root), data)  # a temp file in .cache, fsync, os.replace
    return data


def encode_map(related: dict) -> bytes:
    """The file map's bytes for ``related`` (``{memory path: [entries]}``; the format: ``filemap``)."""
    from ..records.relpaths import literal_prefix
    from .filemap import MAGIC
    lines = sorted({f"{literal_prefix(entry)}\t{entry}\t{memory}".encode("utf-8", "surrogateescape")
                    for memory, entries in related.items() if "\t" not in memory and "\n" not in memory
                    for entry in entries})
    index, offset, block_start, segments = [], 0, None, set()
    for line in lines:
        key = line[:line.index(b"\t")]
        segments.add(key.split(b"/", 1)[0])
        if block_start is None or offset - block_start >= BLOCK_BYTES:
            block_start = offset
            index.append(key + b"\t%d\n" % offset)
        offset += len(line) + 1
    seg_bytes = b"\t".join(sorted(segments)) + b"\n" if segments else b""
    index_bytes = b"".join(index)
    return (MAGIC + b"%d %d\n" % (len(seg_bytes), len(index_bytes)) + seg_bytes + index_bytes
            + b"".join(line + b"\n" for line in lines))


def write_map(memory_root: str, related: dict) -> None:
    """Replace the file map with one built from ``{memory path: [entries]}``; the caller holds the store lock."""
    from .filemap import MAX_MAP_BYTES, map_path
    data = encode_map(related)
    if len(data) > MAX_MAP_BYTES:
        warn(f"the file map would be {len(data)} bytes (more than {MAX_MAP_BYTES}); recall by file is off "
             f"until fewer related_files entries are stored")
        data = encode_map({})
    cache_folder(memory_root)
    atomic_write_bytes(map_path(memory_root), data, durable=False)


def rebuild_index(memory_root: str, config: dict, full: bool = True) -> int:
    """Rewrite ``index.md`` and the cache under the store lock (``full=False``: changed files only); the count."""
    with store_lock(memory_root):
        return apply_changes(memory_root, config, full)


def apply_changes(memory_root: str, config: dict, full: bool = False) -> int:
    """Bring ``index.md`` and the cache up to date under a writer's lock (``full``: from every file); the count."""
    return Index(_rebuild_locked(memory_root, config, None if full else _read(memory_root))).n


def index_is_outdated(memory_root: str, config: dict) -> bool:
    """Whether ``index.md`` or the cache is missing or out of date (the next prompt brings it up to date)."""
    data = _read(memory_root)
    try:
        return data is None or not _is_current(Index(data), memory_root, config, sure=False)
    except CacheInvalid:
        return True

