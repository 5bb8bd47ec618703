"""Keeping ``index.md`` and the machine cache in step with the JSON files.

- ``rebuild_locked``: read every memory once, write ``index.md`` and a new cache.
- the pieces the incremental update (``patch.apply_changes_locked``) shares with it: the
  folder listings, the cache item of an index line, the header, compatibility.

The hook's call is ``freshcache.fresh_cache``; memory files are read by ``reader``. A full
rebuild and a patch produce byte-identical ``index.md`` files (tests compare them).
"""
from __future__ import annotations

import os
import time

from . import cache as cachemod
from .cache import NO_CATEGORY, Cache, file_stamp, folder_mtime, racy
from .cachewrite import f64_bytes, files_section, pack_item, u32_bytes, write_cache
from .freshness import cache_compatible, memory_stats, version_stamp, describes  # noqa: F401 - cache_compatible found here too
from ..base.config import category_folders
from ..text.features import features_for
from ..base.model import CATEGORIES, INDEX_NAME, TEXT_POLICY, display_name
from ..records.store import NotARecord, parse_memory
from .reader import Reader, read_memory_file

CAT_CODE = {display_name(c): i for i, c in enumerate(CATEGORIES)}
COMPACT_MIN = 1000  # patched-in entries tolerated before a full rebuild compacts the cache


def index_file(memory_root: str) -> str:
    return os.path.join(memory_root, INDEX_NAME)


def _memory_names(folder_path: str) -> dict:
    """name -> ``version_stamp`` of the memory files of one folder, in listing order."""
    names, stats = memory_stats(folder_path)
    return dict(zip(names, map(version_stamp, stats)))


def unsettled_names(table: dict, written: int) -> set:
    """The files of a table stamped too close to when the cache was taken: they may have
    changed again within the same clock tick, unseen, so they are read again."""
    recent = written - cachemod.RACY_NS
    return {name for name, old in table.items()
            if max(old[1], old[4]) > recent and (racy(old[1], written) or racy(old[4], written))}


def in_background(fn, *args):
    """Start ``fn(*args)`` in a thread; returns ``join()``, which waits and gives its result (or raises).

    For the folder listings: ``lstat`` releases the GIL, so a listing overlaps the Python
    work of a patch. ``_thread`` is built in (``threading`` costs an import); where no thread
    can be started, ``join`` runs ``fn`` itself.
    """
    try:
        import _thread
        box: list = []
        done = _thread.allocate_lock()
        done.acquire()

        def run():
            try:
                box.append((True, fn(*args)))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller by join()
                box.append((False, exc))
            finally:
                done.release()
        _thread.start_new_thread(run, ())
    except (ImportError, RuntimeError):
        return lambda: fn(*args)

    def join():
        if done.locked():
            done.acquire()  # the thread releases it once, when it is done
            done.release()
        ok, value = box[0]
        if not ok:
            raise value
        return value
    return join


def list_folders(paths: dict) -> dict:
    return {folder: _memory_names(path) for folder, path in paths.items()}


def stat_names(folder_path: str, names) -> dict:
    """``_memory_names`` for just ``names`` (those that are memory files and exist)."""
    out = {}
    if os.path.islink(folder_path):
        return out
    for name in names:
        if name[-5:] != ".json" or name[0] == ".":
            continue
        try:
            st = os.lstat(os.path.join(folder_path, name))
        except OSError:
            continue
        if st.st_mode & 0o170000 == 0o100000:  # a regular file
            out[name] = version_stamp(st)
    return out


def sort_key(entry: dict) -> list:
    return [entry["category"], entry["title"].lower(), entry["path"]]


def cache_item(strategy, line: str, key: list, entry: dict, features, reread, when: float) -> list:
    """The cache item of one index line: ``[parsed entry | None, features | None, sort key, block line | None,
    time]`` (``when``: the record's ``times.record_time``).

    ``features`` were prepared from ``entry``; when the line does not parse back to that
    entry (it always does for what the index writer makes) they are prepared again from
    the parsed entry, with the record read again by ``reread()``.
    """
    from .index import parse_index_line
    from ..base.sanitize import block_line
    parsed = parse_index_line(line)
    if parsed is None:
        return [None, None, key, None, 0.0]
    if parsed != entry:
        try:
            record = reread()
        except (OSError, NotARecord):
            record = None
        features = strategy.prepare_entry(parsed, record)
    return [parsed, features, key, block_line(parsed), when]


def rereader(memory_root: str, folder: str, name: str):
    return lambda: parse_memory(read_memory_file(os.path.join(memory_root, folder, name))[0])


def source_stamps(memory_root: str, folders: dict) -> dict:
    """The folders' modification times and the time now, taken *before* reading them."""
    return {"folders": {f: folder_mtime(os.path.join(memory_root, f)) for f in sorted(set(folders.values()))},
            "written_ns": time.time_ns()}


def cache_meta(memory_root: str, config: dict, strategy, stamps: dict, count: int) -> dict:
    from ..records.exposure import descriptions_attr  # for speed: only a cache write needs it, not the hook's read
    from .filemap import MAGIC as filemap_magic
    return dict(stamps, filemap=filemap_magic.decode().strip(), strategy=strategy.name, strategy_version=getattr(strategy, "cache_version", 0),
                config=config, index=file_stamp(index_file(memory_root)), count=count,
                descriptions_attr=descriptions_attr(config), text_policy=TEXT_POLICY)


def dumps_ascii(value) -> bytes:
    return cachemod.json_dumps(value).encode("ascii")


def rebuild_locked(memory_root: str, config: dict, strategy=None, deadline=None) -> int:
    """Re-read every memory; write ``index.md`` and the cache. The caller holds the store lock.

    With ``deadline`` (``time.monotonic()``), raises ``OutOfTime`` (nothing written) once it passes.
    """
    from ..base.fsutil import atomic_write_text
    from .index import HEADER, format_index_line
    strategy = strategy or features_for(config)
    folders = category_folders(config)
    stamps = source_stamps(memory_root, folders)
    reader = Reader(memory_root, config, strategy, deadline)
    tables, found = {}, []
    for category in CATEGORIES:
        folder = folders[category]
        table = tables[category] = {}
        for name in sorted(_memory_names(os.path.join(memory_root, folder))):
            stamp, got = reader.read(category, folder, name)
            if stamp is None:
                continue
            table[name] = stamp
            if got is not None:
                found.append((sort_key(got[0]), got[0], category, name, got[1], got[2]))
    found.sort(key=lambda f: f[0])
    lines = [format_index_line(f[1]) for f in found]
    atomic_write_text(index_file(memory_root), HEADER + "".join(line + "\n" for line in lines), durable=False)
    for ident, (_, _, category, name, _, _) in enumerate(found):
        tables[category][name][3] = ident
    items = [cache_item(strategy, line, f[0], f[1], f[4], rereader(memory_root, folders[f[2]], f[3]), f[5])
             for line, f in zip(lines, found)]
    from .filemapwrite import write_map
    write_map(memory_root, reader.related)
    _write_full(memory_root, config, strategy, stamps, items, tables)
    return len(lines)


def _write_full(memory_root, config, strategy, stamps, items, tables) -> None:
    """A fresh cache whose ids are the index positions."""
    postings: dict = {}
    for ident, item in enumerate(items):
        if item[1] is not None:
            for key in strategy.index_keys(item[1]):
                postings.setdefault(key, []).append(ident)
    keys = sorted(postings)
    n = len(items)
    dense = cachemod.dense_min(n)
    size = (n + 7) // 8
    kpost, post, kbit, bitmaps = [0], [], [], []
    koff, blob = [0], []
    for key in keys:
        ids = postings[key]
        post.extend(ids)
        kpost.append(len(post))
        encoded = key.encode("utf-8")
        blob.append(encoded)
        koff.append(koff[-1] + len(encoded) + 1)
        if len(ids) >= dense:
            kbit.append(len(bitmaps))
            bitmaps.append(cachemod.bits_of(ids, size).to_bytes(size, "little"))
        else:
            kbit.append(cachemod.NO_BITS)
    blobs = [dumps_ascii(pack_item(item)) for item in items]
    eoff = [0]
    for item_blob in blobs:
        eoff.append(eoff[-1] + len(item_blob))
    fvoc, fvoc_table = _fuzzy_vocabulary(keys)
    sections = {
        "keys": b"\n".join(blob), "koff": u32_bytes(koff), "kpost": u32_bytes(kpost), "post": u32_bytes(post),
        "kbit": u32_bytes(kbit), "bits": b"".join(bitmaps), "fvoc": fvoc,
        "eoff": u32_bytes(eoff), "ents": b"".join(blobs), "etime": f64_bytes(item[4] for item in items), "pos": u32_bytes(range(n)), "order": u32_bytes(range(n)),
        "ocat": bytes(CAT_CODE.get(item[2][0], NO_CATEGORY) for item in items),
    }
    for category, table in tables.items():
        sections["f:" + category] = files_section(table)
    meta = cache_meta(memory_root, config, strategy, stamps, n)
    meta.update(n_ids=n, bits_size=size, fvoc=fvoc_table, dead=[])
    write_cache(memory_root, meta, sections)


def _fuzzy_vocabulary(keys: list):
    """The ``fvoc`` section and its ``[length, start, end]`` table: title and tag tokens by length."""
    tokens = sorted({key[:-2] for key in keys if key[-1] in "32"}, key=lambda t: (len(t), t))
    chunks, table, offset = [], [], 0
    i = 0
    while i < len(tokens):
        length = len(tokens[i])
        j = i
        while j < len(tokens) and len(tokens[j]) == length:
            j += 1
        data = "\n".join(tokens[i:j]).encode("utf-8")
        table.append([length, offset, offset + len(data)])
        chunks.append(data)
        offset += len(data)
        i = j
    return b"".join(chunks), table


