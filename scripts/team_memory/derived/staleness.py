"""Stale marks as the hooks read them: ``.claude/memory/.cache/stale.json``, never git.

A memory is *stale* when files it names in ``related_files`` changed in git after its
``updated_at`` (or are gone). Working that out needs git and happens elsewhere
(``stalemarks``: the CLI, or a detached background process); this module only reads what
was stored, so a hook's cost is one small bounded file read, through no link.

The file (JSON, written atomically by ``stalemarks.write_marks``)::

    {"format": 1,
     "head": "<the commit HEAD named when the marks were computed, or null>",
     "seen": ["<entry key>", ...],           # every active memory with related files
     "seen_all": true,                       # false when there were too many to list
     "marks": {"<entry path>": ["<entry key>", "<suffix>"], ...}}

An entry path is the memory file's repository-relative path as ``index.md`` writes it
(``.claude/memory/decisions/use-redis.json``); an entry key (``entry_key``) is a short
digest of that path, the memory's ``updated_at`` and its normalised related entries: a mark
is shown only while the memory is still the one it was computed for, so ``update`` clears it
at once. ``marks_for`` is what the prompt hook calls: the marks of the memories it shows,
and a background recomputation handed over when HEAD moved or a memory shown was never
assessed.
"""
from __future__ import annotations

import os

MARKS_NAME = "stale.json"
MARKS_FORMAT = 1
MAX_MARKS_BYTES = 2 * 1024 * 1024
MAX_SUFFIX = 160
KEY_CHARS = 16
LOCK_NAME = "stale.lock"


def marks_path(memory_root: str) -> str:
    from .cache import CACHE_DIR
    return os.path.join(memory_root, CACHE_DIR, MARKS_NAME)


def load_marks(memory_root: str) -> dict | None:
    """The stored marks document, or None when it is missing, unreadable, a link or not ours."""
    from ..base import fastjson
    from ..base.safefs import is_real_dir, read_regular
    path = marks_path(memory_root)
    try:
        if not is_real_dir(os.path.dirname(path)):  # a .cache folder that is a link is never read through
            return None
        doc = fastjson.loads(read_regular(path, MAX_MARKS_BYTES)[0])
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != MARKS_FORMAT or not isinstance(doc.get("marks"), dict):
        return None
    return doc


def stale_marks(memory_root: str) -> dict:
    """Entry path -> suffix text such as ``(app/session.py changed since; 3 commits)``.

    ``{}`` when there are no marks or anything is unreadable. Reads only the stored marks file
    (bounded, no link followed), never runs git, never raises.
    """
    try:
        doc = load_marks(memory_root)
        if doc is None:
            return {}
        return {path: value[1][:MAX_SUFFIX] for path, value in doc["marks"].items()
                if isinstance(path, str) and isinstance(value, list) and len(value) == 2
                and isinstance(value[1], str) and value[1]}
    except Exception:  # a hook's nicety: never the reason a block is lost
        return {}


def related_entries(record: dict) -> list:
    """The record's ``related_files`` in their normalised form; refused entries are left out (``relpaths.usable``)."""
    from ..records.relpaths import usable
    return usable(record.get("related_files"))


def entry_key(path: str, record: dict, entries: list | None = None) -> str:
    """A short digest of what a mark depends on: the entry path, ``updated_at``, the related entries
    (``entries``: ``related_entries(record)`` when the caller has them)."""
    from ..base.digest import sha256_hex
    updated = record.get("updated_at") or record.get("created_at")
    entries = related_entries(record) if entries is None else entries
    text = "\x00".join([path, updated if isinstance(updated, str) else "", *entries])
    return sha256_hex(text.encode("utf-8", "surrogatepass"))[:KEY_CHARS]


def marks_for(memory_root: str, shown: list) -> dict:
    """Entry path -> suffix for the memories ``shown`` (``[(entry path, record)]``), for the block.

    A mark is kept only when the memory is still the one it was computed for. When a memory
    shown has related files and HEAD moved since, or it was never assessed, the recomputation
    is handed to a detached background process and the stored marks are used meanwhile. A
    block without such a memory costs one small file read. Never runs git, never raises.
    """
    try:
        doc = load_marks(memory_root)
        marks = doc["marks"] if doc else {}
        seen = doc.get("seen") if doc else None
        seen = set(seen) if isinstance(seen, list) else set()
        seen_all = bool(doc.get("seen_all", True)) if doc else True
        out, relevant, stale = {}, False, False
        for path, record in shown:
            if not isinstance(record, dict):
                continue
            stored = marks.get(path)
            entries = related_entries(record) if record.get("related_files") else []  # none: relpaths stays unloaded
            if stored is None and not entries:
                continue
            relevant = True
            key = entry_key(path, record, entries)
            if isinstance(stored, list) and len(stored) == 2 and stored[0] == key and isinstance(stored[1], str):
                out[path] = stored[1][:MAX_SUFFIX]
            elif stored is not None or (key not in seen and seen_all):
                stale = True
        if relevant and not stale:
            from ..base.githead import repository_head
            from ..records.store import project_root_of
            stale = (repository_head(project_root_of(memory_root)) or {}).get("head") != doc.get("head")
        if stale:
            recompute_in_background(memory_root)
        return out
    except Exception:
        return {}


def recompute_in_background(memory_root: str) -> bool:
    """Hand the marks' recomputation (``stalemarks.finish_marks_in_background``) to a detached
    process, unless one is at it already (its lock is held). False when nothing was started."""
    from ..base.fsutil import LockBusy, store_lock
    from .cache import CACHE_DIR
    from .freshcache import hand_over
    folder = os.path.join(memory_root, CACHE_DIR)
    if not os.access(folder if os.path.lexists(folder) else memory_root, os.W_OK):
        return False  # a read-only checkout: the marks could not be stored, so nothing is started for them
    if os.path.lexists(folder):  # (missing: the background process makes it)
        try:
            with store_lock(memory_root, blocking=False, name=os.path.join(CACHE_DIR, LOCK_NAME)):
                pass
        except (LockBusy, OSError):  # at work already, or a .cache that is a link: leave it
            return False
    return hand_over(memory_root, "team_memory.derived.stalemarks", "finish_marks_in_background")
