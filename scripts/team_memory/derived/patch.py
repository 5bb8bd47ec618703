"""The incremental update: after a writer changed some files, re-read only the folders they
live in (a listing and one ``lstat`` per file; only new or changed files are read), patch
``index.md`` line by line and append to the cache's delta. Byte-identical to a full rebuild
(``upkeep.rebuild_locked``), which it falls back to when the cache cannot be patched.
"""
from __future__ import annotations

import os
from itertools import repeat

from . import cache as cachemod
from .cache import DEAD, NO_CATEGORY, Cache, CacheInvalid, folder_mtime, racy
from .cachewrite import f64_bytes, files_section, pack_item, u32_bytes, write_delta
from .freshness import recorded_stamp, stale_folders
from ..base.config import category_folders
from ..text.features import features_for
from ..base.model import CATEGORIES
from .reader import Reader
from .upkeep import CAT_CODE, COMPACT_MIN, cache_compatible, dumps_ascii, in_background, index_file, cache_item, list_folders, cache_meta, rereader, stat_names, unsettled_names, rebuild_locked, sort_key, source_stamps


def folder_stamps(paths) -> dict:
    """``{folder: mtime_ns}`` of the folders ``paths`` live in: what a writer takes, under the
    store lock, right before it writes them (see ``apply_changes_locked``'s ``before``)."""
    return {os.path.dirname(os.path.abspath(p)): folder_mtime(os.path.dirname(os.path.abspath(p))) for p in paths}


def apply_changes_locked(memory_root: str, config: dict, changed_paths=(), strategy=None, check_all=False,
                         before=None, deadline=None, stale=()) -> int:
    """Bring ``index.md`` and the cache up to date after ``changed_paths`` were written or removed.

    Re-lists the folders those files live in (and any other folder that changed; every folder
    with ``check_all``), reads only new or changed files (a file whose inode, size, nanosecond modification
    time and ctime are those the cache recorded is not read again), and patches
    the index and the cache; falls back to a full rebuild when the cache cannot be patched.
    The caller holds the store lock. Returns the number of index lines.

    ``before`` (``folder_stamps`` of the changed paths, taken by the writer before it wrote):
    a folder whose stamp then was the one the cache trusts had no change the cache has not
    seen, so only the writer's own files are looked at there, not the whole folder. Its new
    stamp is recorded as too recent to trust, so the next check re-lists it all the same.
    """
    strategy = strategy or features_for(config)
    try:
        cache = Cache(cachemod.cache_path(memory_root))
    except CacheInvalid:
        return rebuild_locked(memory_root, config, strategy, deadline)
    try:
        if not cache_compatible(cache, config, strategy):
            return rebuild_locked(memory_root, config, strategy, deadline)
        folders = category_folders(config)
        scan = set(folders.values()) if check_all else set(stale_folders(cache, folders, files=False)) | set(stale)
        force = set()
        for path in changed_paths:
            folder_path, name = os.path.split(os.path.abspath(path))
            for folder in set(folders.values()):
                if os.path.abspath(os.path.join(memory_root, folder)) == folder_path:
                    scan.add(folder)
                    force.add((folder, name))
        narrow = set()
        if before and not check_all:
            recorded, written = cache.meta["folders"], cache.meta["written_ns"]
            for folder, _ in force:
                stamp = before.get(os.path.abspath(os.path.join(memory_root, folder)), False)
                if stamp is not False and folder in recorded and recorded[folder] == stamp and not racy(stamp, written):
                    narrow.add(folder)
        result = _patch(memory_root, config, strategy, cache, folders, scan, force, narrow, deadline)
    except (CacheInvalid, ValueError, KeyError, IndexError, TypeError, OverflowError):
        result = None
    finally:
        cache.close()
    return rebuild_locked(memory_root, config, strategy, deadline) if result is None else result


def _patch(memory_root, config, strategy, cache: Cache, folders: dict, scan: set, force: set, narrow=frozenset(),
           deadline=None):
    """Patch index.md and the cache for the folders in ``scan``; None when a full rebuild is needed.

    A changed folder is re-listed with one ``lstat`` per file: a file counts as changed when it
    is new, gone, or has another inode, size, nanosecond modification time or ctime (git checkouts unlink
    and re-create files, and the new file often gets the old inode number back).
    """
    from ..base.fsutil import atomic_write_bytes
    stamps = source_stamps(memory_root, folders)  # before anything is listed
    listed = in_background(list_folders, {folders[c]: os.path.join(memory_root, folders[c]) for c in CATEGORIES
                                            if folders[c] in scan and folders[c] not in narrow})
    index = _index_lines(memory_root)
    if index is None:
        return None
    text_path, head, lines = index
    order = cache.order.tolist()
    ocat = bytearray(cache.ocat)
    if len(lines) != len(order) or len(ocat) != len(order):
        return None
    reader = Reader(memory_root, config, strategy, deadline)
    dead, new, tables, touched = _changes(memory_root, cache, reader, folders, (scan, force, narrow), listed)
    if not _patch_map(memory_root, touched, reader.related):
        return None
    changed = bool(dead or new)
    if not changed:
        old, now_ns = cache.meta["folders"], stamps["written_ns"]
        if all(old.get(f) == stamps["folders"].get(f) for f in scan) and (
                any(racy(old.get(f), now_ns) for f in scan)
                or any(unsettled_names(t, now_ns) for t in tables.values())):
            return len(order)  # nothing new, and nothing the cache could record better yet
    if len(new) + (cache.n_ids - len(order)) + len(dead) > COMPACT_MIN + len(order) // 4:
        return None
    pos = cache.pos
    for p in sorted((pos[i] for i in dead), reverse=True):  # remove, then insert where a full rebuild would
        del order[p], lines[p], ocat[p]
    sections = _insert_new(strategy, cache, new, order, lines, ocat)
    if changed:
        atomic_write_bytes(text_path, head + b"\n".join(lines) + (b"\n" if lines else b""), durable=False)
    sections.update(_file_tables(cache, tables))
    meta = cache_meta(memory_root, config, strategy, stamps, len(order))
    meta.update(n_ids=sections.pop("n_ids"), bits_size=cache.meta["bits_size"], fvoc=cache.meta["fvoc"],
                dead=sorted(set(cache.meta["dead"]) | dead))
    write_delta(memory_root, cache.gen, meta, sections)
    return len(order)


def _index_lines(memory_root: str):
    """``(path, header bytes, lines)`` of index.md as it is; None when a rebuild must replace it."""
    from .index import HEADER, MAX_INDEX_BYTES
    from ..base.safefs import read_regular  # bytes: the lines are moved, not read (the cache vouches for them)
    text_path = index_file(memory_root)
    try:
        text = read_regular(text_path, MAX_INDEX_BYTES)[0]
    except OSError:  # missing, or a link / FIFO: a rebuild replaces it (os.replace swaps the link, not its target)
        return None
    head = HEADER.encode("utf-8")
    if not text.startswith(head):
        return None
    lines = text[len(head):].split(b"\n")
    if lines[-1] != b"":
        return None
    lines.pop()
    return text_path, head, lines


def _changes(memory_root: str, cache: Cache, reader, folders: dict, which: tuple, listed) -> tuple:
    """``(dead ids, new rows, category -> file table, paths looked at)`` for the folders in ``which``
    (``(scan, force, narrow)``); ``listed()`` gives the re-listed folders."""
    scan, force, narrow = which
    dead, new, tables, touched = set(), [], {}, set()
    written = cache.meta["written_ns"]
    for category in CATEGORIES:
        folder = folders[category]
        if folder not in scan:
            continue
        table = tables[category] = cache.folder_files(category)
        soon = unsettled_names(table, written)
        if folder in narrow:  # only the writer's files (and those stamped too soon to trust)
            todo = soon | {name for f, name in force if f == folder}
            current = stat_names(os.path.join(memory_root, folder), todo)
        else:
            current = listed()[folder]
            # new or changed (inode, time, size), gone, forced by the writer, or stamped too soon to trust
            todo = {name for name, now in current.items() if recorded_stamp(table.get(name)) != now}
            todo.update(table.keys() - current.keys())
            todo.update(name for f, name in force if f == folder)
            todo.update(soon)
        touched.update(reader.path_of(folder, name) for name in todo)
        for name in sorted(todo):
            _change(memory_root, cache, reader, (category, folder, name), (table, current.get(name)), dead, new)
    return dead, new, tables, touched


def _change(memory_root: str, cache: Cache, reader, where: tuple, state: tuple, dead: set, new: list) -> None:
    """One file of ``where`` (``(category, folder, name)``) against its ``table`` row; ``now``: its stamp or None."""
    category, folder, name = where
    table, now = state
    old = table.get(name)
    if now is None:
        if old is not None:
            if old[3] >= 0:
                dead.add(old[3])
            del table[name]
        return
    stamp, got = reader.read(category, folder, name)
    if old is not None and old[3] >= 0:
        if stamp is not None and got is not None:
            kept = cache.item(old[3])
            if (kept[0] == got[0] and kept[1] == got[1] and kept[2] == sort_key(got[0])
                    and cache.time_of(old[3]) == got[2]):  # re-read, unchanged
                stamp[3] = old[3]
                table[name] = stamp
                return
        dead.add(old[3])
    if stamp is None:
        table.pop(name, None)
        return
    table[name] = stamp
    if got is not None:
        new.append((sort_key(got[0]), got[0], stamp, got[1], rereader(memory_root, folder, name), got[2]))


def _insert_new(strategy, cache: Cache, new: list, order: list, lines: list, ocat: bytearray) -> dict:
    """Insert each new row where a full rebuild would put it; the delta's sections (the base's big sections
    stay where they are) and ``n_ids``, the ids in use after it."""
    from .index import format_index_line
    n_ids = cache.n_ids
    keys_of_new = {}
    new.sort(key=lambda n: n[0])
    eoff = cache.section("eoff", "u32")[:n_ids + 1].tolist()
    xpost = {k: list(v) for k, v in cache.xpost.items()}
    extra, extra_times = [], []
    for key, entry, stamp, features, reread, when in new:
        ident = n_ids + len(extra)
        line = format_index_line(entry)
        item = cache_item(strategy, line, key, entry, features, reread, when)
        keys_of_new[ident] = key
        lo, hi = 0, len(order)
        while lo < hi:
            mid = (lo + hi) // 2
            other = order[mid]
            if (keys_of_new[other] if other in keys_of_new else cache.item(other)[2]) < key:
                lo = mid + 1
            else:
                hi = mid
        order.insert(lo, ident)
        lines.insert(lo, line.encode("utf-8"))
        ocat.insert(lo, CAT_CODE.get(key[0], NO_CATEGORY))
        stamp[3] = ident
        blob = dumps_ascii(pack_item(item))
        extra.append(blob)
        extra_times.append(item[4])
        eoff.append(eoff[-1] + len(blob))
        if item[1] is not None:
            for k in strategy.index_keys(item[1]):
                xpost.setdefault(k, []).append(ident)
    total = n_ids + len(extra)
    where = dict(zip(order, range(len(order))))
    newpos = list(map(where.get, range(total), repeat(DEAD, total)))
    sections = {"n_ids": total,
                "xents": (cache.raw("xents") if "xents" in cache.loc else b"") + b"".join(extra),
                "xtime": (cache.raw("xtime") if "xtime" in cache.loc else b"") + f64_bytes(extra_times),
                "eoff": u32_bytes(eoff), "pos": u32_bytes(newpos), "order": u32_bytes(order), "ocat": bytes(ocat)}
    xkeys = list(xpost)
    xoff = [0]
    for key in xkeys:
        xoff.append(xoff[-1] + len(xpost[key]))
    sections.update(xkeys="\n".join(xkeys).encode("utf-8"), xoff=u32_bytes(xoff),
                    xids=u32_bytes([i for key in xkeys for i in xpost[key]]))
    return sections


def _file_tables(cache: Cache, tables: dict) -> dict:
    """The delta's file-table sections: the re-listed categories', and those an earlier patch changed."""
    sections = {}
    for name in cache.loc:
        if name.startswith("f:"):
            category = name[2:]
            if category in tables:
                sections[name] = files_section(tables[category])
            elif name in cache.in_delta:  # changed by an earlier patch: the base has an older table
                sections[name] = cache.raw(name)
    return sections


def _patch_map(memory_root: str, touched: set, related: dict) -> bool:
    """Bring the file map in step: the memories in ``touched`` (every file looked at) as just read.

    False when there is no map to patch (then a full rebuild writes one).
    """
    from .filemapwrite import read_related, write_map
    old = read_related(memory_root)
    if old is None:
        return False
    now = {path: entries for path, entries in old.items() if path not in touched}
    now.update(related)
    if {p: sorted(e) for p, e in now.items()} != {p: sorted(e) for p, e in old.items()}:
        write_map(memory_root, now)
    return True
