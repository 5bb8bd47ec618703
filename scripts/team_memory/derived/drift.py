"""Stale marks as the hooks read them: ``.claude/memory/.cache/stale.json``, never git (``driftmarks`` runs it).

A memory is *stale* when its ``related_files`` changed in git since (or are gone). The stored file::

    {"format": 2, "head": "<HEAD when computed, or null>", "seen": ["<entry key>", ...], "seen_all": bool,
     "marks": {"<entry path>": ["<entry key>", {"gone": [i, ...], "empty": [i, ...], "changed": [i, ...],
                                               "files": n, "commits": n}], ...}}

A mark holds numbers only (indices into the memory's own related entries, two counts); the words shown are
written from the memory itself (``render_mark``), so a forged file can make a suffix wrong, never make it say
anything. A mark is shown only while its ``entry_key`` (path, ``updated_at``, related entries) still matches.
"""
from __future__ import annotations

import os

from .cache import CACHE_DIR, cache_folder, is_count

MARKS_NAME = "stale.json"
MARKS_FORMAT = 2  # 1 held the suffix as text: ignored, recomputed once
MAX_MARKS_BYTES = 2 * 1024 * 1024
MAX_SUFFIX = 160
MAX_COUNT = 10_000_000
SHOWN_PATH = 60
KEY_CHARS = 16
LOCK_NAME = "stale.lock"


def marks_path(memory_root: str) -> str:
    return os.path.join(memory_root, CACHE_DIR, MARKS_NAME)


def load_marks(memory_root: str) -> dict | None:
    """The stored marks document, or None when it is missing, unreadable, a link or not ours."""
    from ..base.safefs import is_real_dir, read_object
    path = marks_path(memory_root)
    if not is_real_dir(os.path.dirname(path)):  # a .cache folder that is a link is never read through
        return None
    doc = read_object(path, MAX_MARKS_BYTES)
    ours = doc is not None and doc.get("format") == MARKS_FORMAT and isinstance(doc.get("marks"), dict)
    return doc if ours else None


def describe(gone: list, empty: list, changed: list, files: int, commits: int) -> str:
    """``(app/session.py changed since; 3 commits)``, ``(app/old.py no longer exists; x/*.sql matches no file)``:
    each list as its first path (cleaned, secrets and private text hidden, cut) and how many more."""
    def some(paths: list) -> str:
        from ..records.exposure import shown_text
        first = shown_text(paths[0], SHOWN_PATH)
        return first if len(paths) == 1 else f"{first} and {len(paths) - 1} more"

    parts = [some(paths) + (one if len(paths) == 1 else many) for paths, one, many in
             ((gone, " no longer exists", " no longer exist"), (empty, " matches no file", " match no file")) if paths]
    if changed:
        parts.append(some(changed) + (f" ({files} files)" if files > len(changed) else "") + " changed since")
    if commits:
        parts.append(f"{commits} commit" + ("" if commits == 1 else "s"))
    return ("(" + "; ".join(parts) + ")")[:MAX_SUFFIX] if parts else ""


def _is_for(stored, key: str) -> bool:
    return isinstance(stored, list) and len(stored) == 2 and stored[0] == key


def render_mark(entries: list, data) -> str:
    """The suffix of a memory with related ``entries`` from its mark's numbers; "" when they do not fit it."""
    if not isinstance(data, dict):
        return ""
    size = len(entries)
    picked = [data.get(key, []) for key in ("gone", "empty", "changed")]
    files, commits = data.get("files", 0), data.get("commits", 0)
    fits = all(isinstance(p, list) and len(p) <= size and all(is_count(i, size) for i in p)  # distinct indices
               and len(set(p)) == len(p) for p in picked)
    if not fits or not all(is_count(v, MAX_COUNT + 1) for v in (files, commits)):
        return ""
    gone, empty, changed = ([entries[i] for i in p] for p in picked)
    return describe(gone, empty, changed, max(files, len(changed)), commits)


def stale_marks(memory_root: str, items: list) -> dict:
    """Entry path -> suffix for ``items`` (with ``path``, ``key``, ``entries``) from the stored marks."""
    try:
        marks = (load_marks(memory_root) or {"marks": {}})["marks"]
        found = {i.path: render_mark(i.entries, marks[i.path][1]) for i in items if _is_for(marks.get(i.path), i.key)}
        return {path: suffix for path, suffix in found.items() if suffix}
    except Exception:  # a hook's nicety: never the reason a block is lost
        return {}


def related_entries(record: dict) -> list:
    """The record's ``related_files`` normalised, refused entries left out (``relpaths.usable``)."""
    from ..records.relpaths import usable
    return usable(record.get("related_files"))


def entry_key(path: str, record: dict, entries: list | None = None) -> str:
    """A short digest of what a mark depends on: the entry path, ``updated_at``, the related entries."""
    from ..base.state import sha256_hex
    updated = record.get("updated_at") or record.get("created_at")
    entries = related_entries(record) if entries is None else entries
    text = "\x00".join([path, updated if isinstance(updated, str) else "", *entries])
    return sha256_hex(text.encode("utf-8", "surrogatepass"))[:KEY_CHARS]


def marks_for(memory_root: str, shown: list) -> dict:
    """Entry path -> suffix for ``shown`` (``[(entry path, record)]``), the hooks' call: never runs git, never
    raises; when HEAD moved or a memory was never assessed, a detached process recomputes the marks."""
    try:
        if doc_is_broken(memory_root):  # no recomputation can fix it
            return {}
        doc = load_marks(memory_root) or {}
        marks, seen, seen_all = doc.get("marks", {}), doc.get("seen"), bool(doc.get("seen_all", True))
        seen = set(seen) if isinstance(seen, list) else set()
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
            if _is_for(stored, key):
                out[path] = render_mark(entries, stored[1])
            elif stored is not None or (key not in seen and seen_all):
                stale = True
        if relevant and not stale:
            from ..base.githead import repository_head
            from ..records.store import project_root_of
            stale = (repository_head(project_root_of(memory_root)) or {}).get("head") != doc.get("head")
        if stale:
            recompute_in_background(memory_root)
        return {path: suffix for path, suffix in out.items() if suffix}
    except Exception:
        return {}


def doc_is_broken(memory_root: str) -> bool:
    """Something other than a regular file stands where the marks go: no recomputation could fix it."""
    from ..base.safefs import S_IFREG, kind_of
    return kind_of(marks_path(memory_root)) not in (None, S_IFREG)  # missing: the background process writes it


def recompute_in_background(memory_root: str) -> bool:
    """Hand ``driftmarks.finish_marks_in_background`` to a detached process unless one holds its lock."""
    from ..base.fsutil import LockBusy, store_lock
    folder = os.path.join(memory_root, CACHE_DIR)
    if not os.access(folder if os.path.lexists(folder) else memory_root, os.W_OK):
        return False  # a read-only checkout: the marks could not be stored, so nothing is started for them
    if os.path.lexists(folder):  # (missing: the background process makes it)
        try:
            with store_lock(memory_root, blocking=False, name=os.path.join(CACHE_DIR, LOCK_NAME)):
                pass
        except (LockBusy, OSError):  # at work already, or a .cache that is a link: leave it
            return False
    return hand_over(memory_root, "team_memory.derived.driftmarks", "finish_marks_in_background")


def hand_over(memory_root: str, module: str, function: str) -> bool:
    """Start ``module.function(memory_root)`` detached, one per ``function`` at a time; False when it cannot be."""
    import sys
    from ..base.startgate import first_to_start, release, start_detached
    folder = os.path.join(memory_root, CACHE_DIR)
    try:
        if not os.path.isdir(folder) or os.path.islink(folder):
            folder = cache_folder(memory_root)  # (made with its .gitignore; never a link)
    except OSError:
        return False
    marker = f"{function}.starting"
    claim = first_to_start(folder, marker)
    if not claim:
        return False  # another hook started it moments ago
    scripts = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = (f"import sys; sys.path.insert(0, sys.argv[1]); from team_memory.base.startgate import run_then_release; "
            f"run_then_release('{module}', '{function}', *sys.argv[2:])")
    if start_detached([sys.executable or "python3", "-S", "-c", code, scripts, memory_root, folder, marker, str(claim)]):
        return True
    release(folder, marker, claim)  # nothing started: the next hook may try
    return False
