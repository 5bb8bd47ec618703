"""Making ``index.md`` and the machine cache current: the one call for each kind of caller.

- ``current_entries``: a reader that must not wait (the hooks, ``search``): rebuilds a stale
  index if the store lock is free, else works from what is on disk.
- ``apply_changes``: a writer, under the store lock it holds, after it changed some files.
- ``rebuild_index`` / ``write_index_locked``: everything again (``rebuild``, ``doctor``).
- ``index_is_stale``: whether any of that is due.

The work itself is ``upkeep``, ``patch`` and ``freshcache``; they are imported when first needed, for speed: a PostToolUse
check that finds nothing changed imports this module and never needs it.
"""
from __future__ import annotations

import os

from ..base.fsutil import LockBusy, store_lock
from .index import build_entries, index_path, read_index


def rebuild_index(memory_root: str, config: dict, blocking: bool = True, full: bool = True) -> int:
    """Rewrite ``index.md`` from the JSON files under the store lock; return the entry count.

    ``full=False`` checks every file but re-reads only those whose inode, size or modification
    time differ from what the machine cache recorded (a full rebuild when there is no usable
    cache). With ``blocking=False`` raises ``LockBusy`` instead of waiting for another writer.
    """
    with store_lock(memory_root, blocking=blocking):
        if full:
            return write_index_locked(memory_root, config)
        from .patch import apply_changes_locked  # for speed: see the module's note
        return apply_changes_locked(memory_root, config, check_all=True)


def write_index_locked(memory_root: str, config: dict) -> int:
    """Rewrite ``index.md`` (and the machine cache) from every JSON file; the caller holds the store lock."""
    from .upkeep import rebuild_locked  # for speed: see the module's note
    return rebuild_locked(memory_root, config)


def apply_changes(memory_root: str, config: dict, changed_paths, before=None) -> int:
    """Bring ``index.md`` and the machine cache up to date after a writer changed ``changed_paths``.

    For writers: call it under the store lock they already hold, after the JSON files were
    written, replaced or removed. It re-lists only the folders of those paths and reads
    only new or changed files (a full rebuild if the cache cannot be patched). Returns the
    number of index lines. ``before``: ``patch.folder_stamps(paths)`` taken right before the
    writer wrote them, under the same lock (then only those files are looked at).
    """
    from .patch import apply_changes_locked  # for speed: see the module's note
    return apply_changes_locked(memory_root, config, changed_paths, before=before)


def index_is_stale(memory_root: str, config: dict) -> bool:
    """True when ``index.md`` or the machine cache is missing, was built for another
    configuration, or any memory file was added, removed or changed since (per file: inode,
    size, mtime and ctime, so an in-place rewrite that keeps the size and the times counts too).

    The hooks bring such an index up to date on the next prompt (``freshcache.fresh_cache``).
    """
    if not os.path.isfile(index_path(memory_root)):
        return True
    from .freshcache import cache_is_current  # for speed: see the module's note
    return not cache_is_current(memory_root, config)


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
