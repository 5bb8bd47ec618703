"""Keeping ``index.md`` and the machine cache in step with the JSON files.

- ``rebuild_locked``: read every memory once, write ``index.md`` and a new cache.
- ``apply_changes_locked``: after a writer changed some files, re-read only the folders
  they live in (a directory listing and one ``lstat`` per file there; only new or
  changed files are read), patch ``index.md`` line by line and append to the cache.
- ``fresh_cache``: what the hook calls. ``freshness.stale_folders`` tells whether the
  cache still matches ``index.md``, the configuration, every category folder and every
  memory file (its ctime); a changed folder is patched in as above, anything else
  triggers a full rebuild. It never waits for the store lock: when another process holds
  it, it works from what is on disk. With the hook's time budget, upkeep that takes
  longer is handed to a detached process (``finish_in_background``) under the lock.

Both paths produce byte-identical ``index.md`` files (tests compare them).
"""
from __future__ import annotations

import os
import time
from itertools import repeat

from . import cache as cachemod
from .cache import DEAD, NO_CATEGORY, Cache, CacheInvalid, file_stamp, folder_mtime, racy, u32_bytes
from .freshness import _memory_stats, _recorded, _stamp, cache_root, stale_folders  # noqa: F401 - stale_folders: the API
from ..base.config import category_enabled, category_folders, warn
from ..text.features import features_for
from ..base.model import CATEGORIES, INDEX_NAME, TEXT_POLICY, display_name
from ..records.store import NotARecord, parse_memory, project_root_of, record_status

CAT_CODE = {display_name(c): i for i, c in enumerate(CATEGORIES)}
COMPACT_MIN = 1000  # patched-in entries tolerated before a full rebuild compacts the cache


def _index_file(memory_root: str) -> str:
    return os.path.join(memory_root, INDEX_NAME)


def _rel_folder(memory_root: str, folder: str) -> str:
    rel = os.path.relpath(os.path.join(memory_root, folder), project_root_of(memory_root))
    return rel.replace(os.sep, "/") + "/"


def _memory_names(folder_path: str) -> dict:
    """name -> ``_stamp`` of the memory files of one folder, in listing order."""
    names, stats = _memory_stats(folder_path)
    return dict(zip(names, map(_stamp, stats)))


def _unsettled_names(table: dict, written: int) -> set:
    """The files of a table stamped too close to when the cache was taken: they may have
    changed again within the same clock tick, unseen, so they are read again."""
    recent = written - cachemod.RACY_NS
    return {name for name, old in table.items()
            if max(old[1], old[4]) > recent and (racy(old[1], written) or racy(old[4], written))}


def _in_background(fn, *args):
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


def _list_folders(paths: dict) -> dict:
    return {folder: _memory_names(path) for folder, path in paths.items()}


def _stat_names(folder_path: str, names) -> dict:
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
            out[name] = _stamp(st)
    return out


MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is skipped (and reported), never read


class OutOfTime(Exception):
    """The caller's deadline passed before every file was read (the hook's time budget)."""


class TooLarge(OSError):
    pass


def read_memory_file(path: str):
    """``(bytes, stat)`` of one memory file, read with a bound and never through a link.

    Raises ``OSError`` for a link, anything but a regular file (a FIFO is never waited on)
    and ``TooLarge`` for a file over ``MAX_MEMORY_BYTES``.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000:
            raise OSError("not a regular file")
        if st.st_size > MAX_MEMORY_BYTES:
            raise TooLarge(f"larger than {MAX_MEMORY_BYTES >> 20} MiB ({st.st_size} bytes); not read")
        chunks, total = [], 0
        while total <= MAX_MEMORY_BYTES:
            chunk = os.read(fd, MAX_MEMORY_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_MEMORY_BYTES:  # it grew while we read it
            raise TooLarge(f"larger than {MAX_MEMORY_BYTES >> 20} MiB; not read")
        return b"".join(chunks), st
    finally:
        os.close(fd)


class _Reader:
    """Turns memory files into index entries, with the tag clean-up memoised.

    ``deadline`` (a ``time.monotonic()`` value): ``read`` raises ``OutOfTime`` once it has passed.
    """

    def __init__(self, memory_root: str, config: dict, strategy, deadline=None):
        from ..records.exposure import recall_tag, recall_title
        from ..base.sanitize import TITLE_MAX, clean_tag, safe_name
        self.memory_root, self.config, self.strategy, self.deadline = memory_root, config, strategy, deadline
        self.recall_title, self.clean_tag, self.title_max = recall_title, clean_tag, TITLE_MAX
        self.recall_tag, self.safe_name = recall_tag, safe_name
        self.tags: dict = {}
        self.prefix: dict = {}

    def read(self, category: str, folder: str, name: str):
        """``(stamp, (entry, features) | None)`` of one file; stamp None when it cannot be read at all.

        The features come from the strategy with the whole record at hand (``smart`` keeps
        the body's tokens); the record itself is not kept.
        """
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime()
        path = os.path.join(self.memory_root, folder, name)
        try:
            data, st = read_memory_file(path)
        except TooLarge as exc:  # recorded in the file table (not in the index) until it changes
            warn(f"skipped {os.path.relpath(path, self.memory_root)}: {exc}")
            st = _lstat(path)
            return (None if st is None else [st.st_ino, st.st_mtime_ns, st.st_size, -1, st.st_ctime_ns]), None
        except OSError as exc:
            warn(f"skipped {os.path.relpath(path, self.memory_root)}: {exc}")
            return None, None
        stamp = [st.st_ino, st.st_mtime_ns, st.st_size, -1, st.st_ctime_ns]
        try:
            record = parse_memory(data)
        except NotARecord as exc:
            warn(f"skipped {os.path.relpath(path, self.memory_root)}: {exc}")
            return stamp, None
        if record_status(record) != "active" or not category_enabled(self.config, category):
            return stamp, None
        entry = self.entry(category, folder, name, record)
        if entry is None:
            return stamp, None
        return stamp, (entry, self.strategy.prepare_entry(entry, record))

    def entry(self, category: str, folder: str, name: str, record: dict):
        tags = []
        raw_tags = record.get("tags")
        for tag in raw_tags if isinstance(raw_tags, list) else []:
            if isinstance(tag, str):
                clean = self.tags.get(tag)
                if clean is None:
                    clean = self.tags[tag] = self.recall_tag(self.clean_tag(tag).replace(",", ""))
                if clean and clean not in tags:
                    tags.append(clean)
        prefix = self.prefix.get(folder)
        if prefix is None:
            prefix = self.prefix[folder] = _rel_folder(self.memory_root, folder)
        title = self.recall_title(record["title"], self.title_max)
        if not title or not self.safe_name(name):  # a hostile file name is never printed (validate reports it)
            return None
        return {"category": display_name(category), "title": title, "path": prefix + name, "tags": tags}


def sort_key(entry: dict) -> list:
    return [entry["category"], entry["title"].lower(), entry["path"]]


def _item(strategy, line: str, key: list, entry: dict, features, reread) -> list:
    """The cache item of one index line: ``[parsed entry | None, features | None, sort key, block line | None]``.

    ``features`` were prepared from ``entry``; when the line does not parse back to that
    entry (it always does for what the index writer makes) they are prepared again from
    the parsed entry, with the record read again by ``reread()``.
    """
    from .index import parse_index_line
    from ..base.sanitize import block_line
    parsed = parse_index_line(line)
    if parsed is None:
        return [None, None, key, None]
    if parsed != entry:
        try:
            record = reread()
        except (OSError, NotARecord):
            record = None
        features = strategy.prepare_entry(parsed, record)
    return [parsed, features, key, block_line(parsed, getattr(strategy, "seed_block", False))]


def _lstat(path: str):
    try:
        return os.lstat(path)
    except OSError:
        return None


def _rereader(memory_root: str, folder: str, name: str):
    return lambda: parse_memory(read_memory_file(os.path.join(memory_root, folder, name))[0])


def source_stamps(memory_root: str, folders: dict) -> dict:
    """The folders' modification times and the time now, taken *before* reading them."""
    return {"folders": {f: folder_mtime(os.path.join(memory_root, f)) for f in sorted(set(folders.values()))},
            "written_ns": time.time_ns()}


def _meta(memory_root: str, config: dict, strategy, stamps: dict, count: int) -> dict:
    from ..records.exposure import descriptions_attr  # for speed: only a cache write needs it, not the hook's read
    return dict(stamps, strategy=strategy.name, strategy_version=getattr(strategy, "cache_version", 0),
                config=config, index=file_stamp(_index_file(memory_root)), count=count,
                descriptions_attr=descriptions_attr(config), text_policy=TEXT_POLICY)


def _dumps(value) -> bytes:
    return cachemod._json_dumps(value).encode("ascii")


def rebuild_locked(memory_root: str, config: dict, strategy=None, deadline=None) -> int:
    """Re-read every memory; write ``index.md`` and the cache. The caller holds the store lock.

    With ``deadline`` (``time.monotonic()``), raises ``OutOfTime`` (nothing written) once it passes.
    """
    from ..base.fsutil import atomic_write_text
    from .index import HEADER, format_index_line
    strategy = strategy or features_for(config)
    folders = category_folders(config)
    stamps = source_stamps(memory_root, folders)
    reader = _Reader(memory_root, config, strategy, deadline)
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
                found.append((sort_key(got[0]), got[0], category, name, got[1]))
    found.sort(key=lambda f: f[0])
    lines = [format_index_line(f[1]) for f in found]
    atomic_write_text(_index_file(memory_root), HEADER + "".join(line + "\n" for line in lines), durable=False)
    for ident, (_, _, category, name, _) in enumerate(found):
        tables[category][name][3] = ident
    items = [_item(strategy, line, f[0], f[1], f[4], _rereader(memory_root, folders[f[2]], f[3]))
             for line, f in zip(lines, found)]
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
    blobs = [_dumps(cachemod.pack_item(item)) for item in items]
    eoff = [0]
    for item_blob in blobs:
        eoff.append(eoff[-1] + len(item_blob))
    fvoc, fvoc_table = _fuzzy_vocabulary(keys)
    sections = {
        "keys": b"\n".join(blob), "koff": u32_bytes(koff), "kpost": u32_bytes(kpost), "post": u32_bytes(post),
        "kbit": u32_bytes(kbit), "bits": b"".join(bitmaps), "fvoc": fvoc,
        "eoff": u32_bytes(eoff), "ents": b"".join(blobs), "pos": u32_bytes(range(n)), "order": u32_bytes(range(n)),
        "ocat": bytes(CAT_CODE.get(item[2][0], NO_CATEGORY) for item in items),
    }
    for category, table in tables.items():
        sections["f:" + category] = cachemod.files_section(table)
    meta = _meta(memory_root, config, strategy, stamps, n)
    meta.update(n_ids=n, bits_size=size, fvoc=fvoc_table, dead=[])
    cachemod.write_cache(memory_root, meta, sections)


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


def _compatible(cache: Cache, config: dict, strategy) -> bool:
    meta = cache.meta
    return (meta.get("strategy") == strategy.name
            and meta.get("strategy_version") == getattr(strategy, "cache_version", 0)
            and meta.get("text_policy") == TEXT_POLICY
            and meta.get("config") == config
            and meta.get("index") == file_stamp(_index_file(cache_root(cache))))


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
        if not _compatible(cache, config, strategy):
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
    from .index import HEADER, format_index_line
    stamps = source_stamps(memory_root, folders)  # before anything is listed
    listed = _in_background(_list_folders, {folders[c]: os.path.join(memory_root, folders[c]) for c in CATEGORIES
                                            if folders[c] in scan and folders[c] not in narrow})
    text_path = _index_file(memory_root)
    from .index import MAX_INDEX_BYTES
    from ..base.safefs import read_regular  # bytes: the lines are moved, not read (the cache vouches for them)
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
    order = cache.order.tolist()
    ocat = bytearray(cache.ocat)
    if len(lines) != len(order) or len(ocat) != len(order):
        return None
    pos = cache.pos
    reader = _Reader(memory_root, config, strategy, deadline)
    dead, new, tables = set(), [], {}
    written = cache.meta["written_ns"]
    for category in CATEGORIES:
        folder = folders[category]
        if folder not in scan:
            continue
        table = tables[category] = cache.folder_files(category)
        get = table.get
        soon = _unsettled_names(table, written)
        if folder in narrow:  # only the writer's files (and those stamped too soon to trust)
            todo = soon | {name for f, name in force if f == folder}
            current = _stat_names(os.path.join(memory_root, folder), todo)
        else:
            current = listed()[folder]
            # new or changed (inode, time, size), gone, forced by the writer, or stamped too soon to trust
            todo = {name for name, now in current.items() if _recorded(get(name)) != now}
            todo.update(table.keys() - current.keys())
            todo.update(name for f, name in force if f == folder)
            todo.update(soon)
        for name in sorted(todo):
            old, now = table.get(name), current.get(name)
            if now is None:
                if old is not None:
                    if old[3] >= 0:
                        dead.add(old[3])
                    del table[name]
                continue
            stamp, got = reader.read(category, folder, name)
            if old is not None and old[3] >= 0:
                if stamp is not None and got is not None:
                    kept = cache.item(old[3])
                    if kept[0] == got[0] and kept[1] == got[1] and kept[2] == sort_key(got[0]):  # re-read, unchanged
                        stamp[3] = old[3]
                        table[name] = stamp
                        continue
                dead.add(old[3])
            if stamp is None:
                table.pop(name, None)
                continue
            table[name] = stamp
            if got is not None:
                new.append((sort_key(got[0]), got[0], stamp, got[1], _rereader(memory_root, folder, name)))
    changed = bool(dead or new)
    if not changed:
        old, now_ns = cache.meta["folders"], stamps["written_ns"]
        if all(old.get(f) == stamps["folders"].get(f) for f in scan) and (
                any(racy(old.get(f), now_ns) for f in scan)
                or any(_unsettled_names(t, now_ns) for t in tables.values())):
            return len(order)  # nothing new, and nothing the cache could record better yet
    n_ids = cache.n_ids
    if len(new) + (n_ids - len(order)) + len(dead) > COMPACT_MIN + len(order) // 4:
        return None
    # Remove, then insert each new line where a full rebuild would put it.
    for p in sorted((pos[i] for i in dead), reverse=True):
        del order[p], lines[p], ocat[p]
    keys_of_new = {}
    new.sort(key=lambda n: n[0])
    sections = {}  # the delta's: the base's big sections stay where they are
    eoff = cache._section("eoff", "u32")[:n_ids + 1].tolist()
    xpost = {k: list(v) for k, v in cache.xpost.items()}
    extra = []
    for key, entry, stamp, features, reread in new:
        ident = n_ids + len(extra)
        line = format_index_line(entry)
        item = _item(strategy, line, key, entry, features, reread)
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
        blob = _dumps(cachemod.pack_item(item))
        extra.append(blob)
        eoff.append(eoff[-1] + len(blob))
        if item[1] is not None:
            for k in strategy.index_keys(item[1]):
                xpost.setdefault(k, []).append(ident)
    total = n_ids + len(extra)
    if changed:
        atomic_write_bytes(text_path, head + b"\n".join(lines) + (b"\n" if lines else b""), durable=False)
    where = dict(zip(order, range(len(order))))
    newpos = list(map(where.get, range(total), repeat(DEAD, total)))
    sections["xents"] = (cache.raw("xents") if "xents" in cache.loc else b"") + b"".join(extra)
    sections.update(eoff=u32_bytes(eoff), pos=u32_bytes(newpos), order=u32_bytes(order), ocat=bytes(ocat))
    xkeys = list(xpost)
    xoff = [0]
    for key in xkeys:
        xoff.append(xoff[-1] + len(xpost[key]))
    sections.update(xkeys="\n".join(xkeys).encode("utf-8"), xoff=u32_bytes(xoff),
                    xids=u32_bytes([i for key in xkeys for i in xpost[key]]))
    for name in cache.loc:
        if name.startswith("f:"):
            category = name[2:]
            if category in tables:
                sections[name] = cachemod.files_section(tables[category])
            elif name in cache.in_delta:  # changed by an earlier patch: the base has an older table
                sections[name] = cache.raw(name)
    meta = _meta(memory_root, config, strategy, stamps, len(order))
    meta.update(n_ids=total, bits_size=cache.meta["bits_size"], fvoc=cache.meta["fvoc"],
                dead=sorted(set(cache.meta["dead"]) | dead))
    cachemod.write_delta(memory_root, cache.gen, meta, sections)
    return len(order)


HOOK_BUDGET_S = 2.0  # seconds of upkeep a hook may spend before it hands the rest over
BUDGET_ENV = "TEAM_MEMORY_HOOK_BUDGET"


class Building(Exception):
    """No usable cache yet: it is being built (in the background, or by another process)."""


def hook_budget() -> float:
    """The hook's upkeep budget in seconds: ``$TEAM_MEMORY_HOOK_BUDGET``, else ``HOOK_BUDGET_S``."""
    try:
        return max(0.0, float(os.environ.get(BUDGET_ENV) or HOOK_BUDGET_S))
    except ValueError:
        return HOOK_BUDGET_S


def _checked(path: str, config: dict, strategy, unsure: bool = True):
    """``(cache | None, compatible, stale folders | None)`` of the cache at ``path``."""
    try:
        cache = Cache(path)
    except CacheInvalid:
        return None, False, None
    try:
        ok = _compatible(cache, config, strategy)
        return cache, ok, stale_folders(cache, category_folders(config), unsure=unsure) if ok else None
    except (KeyError, TypeError, ValueError, CacheInvalid):
        return cache, False, None


def fresh_cache(memory_root: str, config: dict, strategy, budget=None):
    """An up-to-date cache for the hook, or None to fall back to the plain path. Never waits.

    Brings the cache up to date under the store lock when the lock is free. With ``budget``
    (seconds; the hook's), upkeep that takes longer is handed to a detached background
    process (``finish_in_background``) and the caller gets what is ready: the cache as it
    was when it is usable (stale), else ``Building``. Without a budget (the CLI) it works
    to the end. When another process holds the lock: the cache on disk if usable, else
    ``Building`` with a budget, None without.
    """
    path = cachemod.cache_path(memory_root)
    cache, ok, stale = _checked(path, config, strategy)
    if ok and not stale:
        return cache
    _close(cache)
    from ..base.fsutil import LockBusy, store_lock
    try:
        with store_lock(memory_root, blocking=False):
            deadline = None if budget is None else time.monotonic() + budget
            if ok:
                apply_changes_locked(memory_root, config, (), strategy, deadline=deadline, stale=stale)
            else:
                rebuild_locked(memory_root, config, strategy, deadline)
    except OutOfTime:
        why = ("the index is being built in the background" if _hand_over(memory_root)
               else "the index could not be built within the hook's time")
        cache = _ready(path, config, strategy, budget, why)
        if cache is not None:
            warn(f"{why}; recalled from it as it was")
        return cache
    except LockBusy:  # a writer (or a background build) is at work: use what is on disk
        return _ready(path, config, strategy, budget, "another process is building the index")
    except OSError:  # a read-only checkout, say
        return None
    cache, ok, _ = _checked(path, config, strategy)
    return cache if ok else _close(cache)


def _ready(path: str, config: dict, strategy, budget, why: str):
    """The cache on disk when it suits this configuration (possibly stale), else ``Building``/None."""
    cache, ok, _ = _checked(path, config, strategy)
    if ok:
        return cache
    _close(cache)
    if budget is not None:
        raise Building(why)
    return None


def _hand_over(memory_root: str) -> bool:
    """Start ``finish_in_background`` in a detached process; False when it cannot be started.

    Its own session (a hook's time-out kills the hook, not it), no inherited pipes (the
    client waits for none of them); it takes the store lock itself, or leaves when busy.
    """
    import subprocess
    import sys
    scripts = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from team_memory.derived.upkeep import finish_in_background; finish_in_background(sys.argv[2])")
    try:
        subprocess.Popen([sys.executable or "python3", "-S", "-c", code, scripts, memory_root],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except (OSError, ValueError):
        return False
    return True


def finish_in_background(memory_root: str) -> int:
    """The upkeep a hook handed over: bring ``index.md`` and the cache up to date under the
    store lock, with no time limit. Leaves at once when another process holds the lock."""
    from ..base.config import load_config
    from ..base.fsutil import LockBusy, store_lock
    config = load_config(memory_root)
    try:
        with store_lock(memory_root, blocking=False):
            apply_changes_locked(memory_root, config, check_all=True)
    except LockBusy:
        return 1
    return 0


def cache_is_current(memory_root: str, config: dict) -> bool:
    """True when the cache suits ``config`` and every memory file is the one it recorded
    (a file stamped too recently to be sure of counts as current: the hook re-checks it)."""
    cache, ok, stale = _checked(cachemod.cache_path(memory_root), config, features_for(config), unsure=False)
    _close(cache)
    return ok and not stale


def _close(cache):
    if cache is not None:
        cache.close()
    return None
