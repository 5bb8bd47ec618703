"""Is the machine cache still what the memory files say? The hook asks on every prompt.

Three levels, cheapest first: the cache suits the configuration and ``index.md``; each
category folder's modification time (files added, replaced or removed); then every memory
file, one ``lstat`` each, against the cache's file table (inode, mtime, size, ctime). The
last one is what sees an in-place rewrite (truncate and write, as editors save), which
changes no folder; ctime moves on every write and no tool can set it back. A stamp taken
within two ticks of the file clock of the cache's own time is not trusted (racy): the file
may have changed again in the same tick, so it is read again.

The per-file level costs one ``lstat`` per memory (2-5 microseconds each here): the one
cost of the hook that grows with the store (see docs/benchmarks.md). A forked child doing
it while the hook ranks was tried and measured slower on a busy 2-core machine.
"""
from __future__ import annotations

import os

from . import cache as cachemod
from .cache import Cache, CacheInvalid, file_stamp, folder_mtime, racy
from ..base.model import CATEGORIES, INDEX_NAME, TEXT_POLICY


def cache_root(cache: Cache) -> str:
    return os.path.dirname(os.path.dirname(cache.path))


def describes(cache: Cache, config: dict) -> bool:
    """The cache was written for ``config``, this character policy and the ``index.md`` beside it."""
    meta = cache.meta
    return (meta.get("text_policy") == TEXT_POLICY and meta.get("config") == config
            and meta.get("index") == file_stamp(os.path.join(cache_root(cache), INDEX_NAME)))


FILEMAP_MAGIC = b"team-memory file map 2\n"  # ``filemap.MAGIC`` (a test keeps them equal): the prompt hook loads no filemap


def cache_compatible(cache: Cache, config: dict, strategy) -> bool:
    """The cache was written for ``config`` and ``strategy`` (its version), with a file map."""
    meta = cache.meta
    return (meta.get("filemap") == FILEMAP_MAGIC.decode().strip() and meta.get("strategy") == strategy.name
            and meta.get("strategy_version") == getattr(strategy, "cache_version", 0)
            and describes(cache, config))


def current_as_is(memory_root: str, config: dict):
    """The store's cache when it describes ``config`` and every memory file as they are now
    (nothing to re-read, nothing stamped too recently to trust), else None. For a reader that
    needs no strategy's features (the SessionStart orientation): it imports no upkeep."""
    try:
        cache = Cache(cachemod.cache_path(memory_root))
    except CacheInvalid:
        return None
    try:
        from ..base.config import category_folders
        if describes(cache, config) and not stale_folders(cache, category_folders(config)):
            return cache
    except (KeyError, TypeError, ValueError, CacheInvalid):
        pass
    cache.close()
    return None


def stale_folders(cache: Cache, folders: dict, files: bool = True, unsure: bool = True) -> list:
    """Folders where anything changed since the cache was taken, or too recently to trust.

    The folder's own modification time (files added, replaced, removed), then every memory
    file in it, one ``lstat`` each, against the cache's file table: inode, mtime, size and
    ctime (an in-place rewrite changes no folder, but always the file's ctime). The usual
    case, nothing changed, is two byte comparisons per column, whatever the folder's size.
    ``files=False``: the folders' own times only (a writer's patch; the next hook checks the files).
    ``unsure=False``: only what differs, not what was stamped too recently to be sure of.
    """
    root = cache_root(cache)
    recorded = cache.meta["folders"]
    written = cache.meta["written_ns"]
    by_folder: dict = {}
    for category in CATEGORIES:
        if category in folders:
            by_folder.setdefault(folders[category], []).append(category)
    out = []
    for folder in sorted(by_folder):
        path = os.path.join(root, folder)
        now = folder_mtime(path)
        if folder not in recorded or recorded[folder] != now or (unsure and racy(now, written)):
            out.append(folder)
        elif files and not all(_files_unchanged(cache, category, path, written if unsure else None)
                               for category in by_folder[folder]):
            out.append(folder)
    return out


def _files_unchanged(cache: Cache, category: str, folder_path: str, written) -> bool:
    """True when no memory file the cache's table lists for this folder changed since, and
    (``written``: the cache's time) none was changed too close to it to be sure of it.

    The caller has seen the folder's own time unchanged, so the names are the table's (an
    added, removed or renamed file changes the folder): one ``lstat`` per name, relative to
    the open folder, and the ctimes compared with the table's column. Any write,
    ``touch`` or ``chmod`` moves a file's ctime, and nothing can set it back.
    """
    section = "f:" + category
    if section not in cache.loc:
        return not memory_stats(folder_path)[0]
    data = cache.raw(section)
    cut = data.find(b"\0")
    names = data[:cut].split(b"\n") if cut > 0 else []
    n = len(names)
    start = cut + 1 + (-(cut + 1) % 8)
    column = start + 8 * n * cachemod.CTIME_COLUMN
    if not n or os.path.islink(folder_path) or b'"' in data[:cut]:  # a name stored as JSON: the careful way
        return _unchanged_slowly(cache, section, folder_path)
    try:
        fd = os.open(folder_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        stat = os.stat
        ctimes = [stat(name, dir_fd=fd, follow_symlinks=False).st_ctime_ns for name in names]
    except (OSError, NotImplementedError):  # a file went away, or no relative stat here
        return _unchanged_slowly(cache, section, folder_path)
    finally:
        os.close(fd)
    if written is not None:
        newest = max(ctimes)
        if newest > written - cachemod.RACY_NS and racy(newest, written):
            return False
    return memoryview(data)[column:column + 8 * n].cast("q").tolist() == ctimes  # no struct import


def _unchanged_slowly(cache: Cache, section: str, folder_path: str) -> bool:
    table = cachemod.parse_files_section(cache.raw(section))
    names, stats = memory_stats(folder_path)
    return len(table) == len(names) and all(recorded_stamp(table.get(n)) == version_stamp(st) for n, st in zip(names, stats))


def memory_stats(folder_path: str):
    """``(names, stats)``: the memory files of one folder, in the order the folder lists them,
    and their ``lstat`` results.

    The names ``iter_memory_files`` accepts: ``*.json``, not hidden (so never a writer's
    ``.<name>.tmp`` temp file), regular files only. One ``lstat`` per file, relative to the
    open folder (cheaper than ``DirEntry`` objects, which need the same ``lstat`` anyway).
    """
    names, stats = [], []
    if os.path.islink(folder_path):  # a category folder linked out of the store is never read
        return names, stats
    relative = os.stat in os.supports_dir_fd and os.listdir in os.supports_fd
    try:
        fd = os.open(folder_path, os.O_RDONLY) if relative else None
    except OSError:
        return names, stats
    try:
        stat, prefix = os.stat, os.path.join(folder_path, "")
        for name in os.listdir(fd if relative else folder_path):
            if name[-5:] == ".json" and name[0] != ".":
                try:
                    st = (stat(name, dir_fd=fd, follow_symlinks=False) if relative
                          else stat(prefix + name, follow_symlinks=False))
                except OSError:
                    continue
                if st.st_mode & 0o170000 == 0o100000:  # a regular file
                    names.append(name)
                    stats.append(st)
    except OSError:
        pass
    finally:
        if fd is not None:
            os.close(fd)
    return names, stats


def version_stamp(st) -> tuple:
    """What tells one version of a memory file from another: inode, mtime, size, ctime.

    An in-place rewrite keeps the inode, can keep the size and have its mtime set back,
    but always moves the ctime (no tool can set it)."""
    return st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns


def recorded_stamp(old) -> tuple:
    """The ``version_stamp`` part of a file table row ``(ino, mtime_ns, size, id, ctime_ns)``."""
    return (old[0], old[1], old[2], old[4]) if old is not None else (None,)

