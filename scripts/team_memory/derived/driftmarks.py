"""Stale marks computed from git: which memories' related files changed since, or are gone, into
``.cache/stale.json`` (``drift``). One ``git log`` (at most ``MAX_COMMITS``, limited to the paths named and the
store) and at most one ``git ls-files``: never one call per memory.

A commit counts when it touched a file an entry names after the memory was last vouched for: later
than its ``updated_at``, and not before the newest commit that touched its own JSON file (``V``): a
commit listed before V in git's topological order is no ancestor of V and counts; one listed after
counts only when later than V (a branch merged after the memory). ``.git-blame-ignore-revs`` never counts.
"""
from __future__ import annotations

import os
from collections import namedtuple
from contextlib import ExitStack, suppress

from ..base import fastjson
from ..base.config import load_config
from ..base.fsutil import LockBusy, atomic_write_text, store_lock
from ..base.githead import repository_head
from ..base.gitlog import log_commits, tracked_files
from ..base.safefs import S_IFDIR, S_IFLNK, kind_of, read_regular
from ..records.exposure import shown_related
from ..records.relpaths import is_glob, literal_prefix, matches
from ..records.store import iter_records, project_root_of, record_status, record_time
from .cache import cache_folder
from .drift import LOCK_NAME, MARKS_FORMAT, describe, entry_key, load_marks, marks_path, related_entries, stale_marks

MAX_COMMITS = 5000
MAX_SEEN = 50000
MAX_SPECS = 1000
IGNORE_REVS = ".git-blame-ignore-revs"
MAX_IGNORE_REVS_BYTES = 1024 * 1024


def count_commits(items: list, commits: list, store_prefix: str) -> None:
    """Fill each item's counting commits and changed files (``commits`` newest first)."""
    plain, globs = {}, []
    for item in items:
        for entry in item.entries:
            if is_glob(entry):
                globs.append((item, entry))
            else:
                plain.setdefault(entry.rstrip("/"), []).append(item)
    vouched = {}  # entry path -> (place in the log, time) of the first commit that touched its own file
    touched = {}  # id(item) -> [(place, commit, path)]
    for place, commit in enumerate(commits):
        for path in commit.paths:
            if path.startswith(store_prefix) and path not in vouched:
                vouched[path] = (place, commit.time)
            hit = []
            at = len(path)
            while at > 0:  # the file itself, then every folder above it
                hit.extend(plain.get(path[:at], ()))
                at = path.rfind("/", 0, at)
            hit.extend(item for item, entry in globs if matches(entry, path))
            for item in hit:
                touched.setdefault(id(item), []).append((place, commit, path))
    for item in items:
        own_place, own_time = vouched.get(item.path, (-1, 0))
        counted = [(commit, path) for place, commit, path in touched.get(id(item), ())
                   if commit.time > item.since and not (place >= own_place >= 0 and commit.time <= own_time)]
        item.commits += {commit.hash: commit for commit, _ in counted}.values()  # each once, newest first
        item.changed += dict.fromkeys(path for _, path in counted)


def find_missing(items: list, project: str) -> bool:
    """Fill each item's missing entries (a path gone, never seen behind a link; a folder or glob matching no
    tracked file); False when a folder or glob could not be checked."""
    tracked = folders = None  # git's list, asked for once, on the first folder or glob
    checked = {}
    for entry in dict.fromkeys(e for item in items for e in item.entries):
        if not is_glob(entry) and not entry.endswith("/"):
            checked[entry] = exists_unlinked(project, entry)
            continue
        if folders is None:
            tracked, folders = tracked_files(project), set()
            for path in tracked or ():  # every folder above a tracked file
                at = path.rfind("/")
                while at > 0 and path[:at] not in folders:
                    folders.add(path[:at])
                    at = path.rfind("/", 0, at)
        if tracked is None:
            checked[entry] = None
        elif not is_glob(entry):
            checked[entry] = entry.rstrip("/") in folders
        else:
            prefix = literal_prefix(entry)
            checked[entry] = any(matches(entry, p) for p in tracked if not prefix or p.startswith(prefix + "/"))
    for item in items:
        item.missing += [entry for entry in item.entries if checked[entry] is False]
    return folders is None or tracked is not None


def exists_unlinked(project: str, entry: str):
    """Is the work tree's ``entry`` there (``lstat``, part by part)? None when a folder on the way is a link."""
    parts = entry.split("/")
    here = project
    for n, part in enumerate(parts):
        here = os.path.join(here, part)
        kind = kind_of(here)
        if kind is None:
            return False
        if n < len(parts) - 1 and kind != S_IFDIR:
            return None if kind == S_IFLNK else False
    return True


class Item:
    """One active memory with related files, and what git says about them."""

    def __init__(self, path: str, category: str, record: dict):
        self.path, self.category = path, category
        self.title = record.get("title") if isinstance(record.get("title"), str) else os.path.basename(path)
        self.updated = record.get("updated_at") or record.get("created_at") or ""
        self.since = record_time(record)
        self.entries = related_entries(record)
        self.shown = shown_related(record.get("related_files"))  # stored form -> what may be shown of it
        self.key = entry_key(path, record, self.entries)
        self.commits: list = []  # the commits that count, newest first
        self.changed: list = []  # the files they touched that an entry names, newest first
        self.missing: list = []  # entries that name nothing any more

    @property
    def stale(self) -> bool:
        return bool(self.commits or self.missing)

    def suffix(self) -> str:
        """``(app/session.py changed since; 3 commits)`` and the like (``drift.describe``), or ""."""
        shown = [[self.shown.get(p, p) for p in paths]  # each entry hidden in its raw form (``shown_related``)
                 for paths in self._parts()]
        return describe(*shown, 0, len(self.commits))

    def _parts(self) -> tuple:
        """``(gone, empty, changed)``: paths missing, folders or globs matching nothing, changed files."""
        gone = [m for m in self.missing if not is_glob(m) and not m.endswith("/")]
        return gone, [m for m in self.missing if m not in gone], [p for p in self.changed if p not in self.missing]

    def mark(self) -> dict:
        """What the marks file keeps: indices into ``entries`` and counts, never text (``drift``)."""
        gone, empty, changed = self._parts()
        found = (next((i for i, e in enumerate(self.entries) if e.rstrip("/") == path or matches(e, path)), None)
                 for path in changed)  # newest first: the entry each changed file falls under
        owners = list(dict.fromkeys(i for i in found if i is not None))
        index = {e: i for i, e in enumerate(self.entries)}
        return {"gone": [index[m] for m in gone if m in index], "empty": [index[m] for m in empty if m in index],
                "changed": owners, "files": len(changed), "commits": len(self.commits)}


def memory_items(memory_root: str, config: dict, records=None) -> list:
    """An ``Item`` per active memory with a usable related entry (of ``records``, else of the store)."""
    project = project_root_of(memory_root)
    found = (Item(os.path.relpath(path, project).replace(os.sep, "/"), category, record)
             for category, path, record in (iter_records(memory_root, config) if records is None else records)
             if record_status(record) == "active" and record.get("related_files"))
    return [item for item in found if item.entries]  # (every entry refused: nothing to check)


class Assessment(namedtuple("Assessment", "head git complete items")):
    """Every memory's verdict; ``complete`` is False when git's output was cut short by a bound."""

    @property
    def stale(self) -> list:
        """The stale items, oldest change first (the oldest counting commit, else, a file gone, ``updated_at``)."""
        return sorted((i for i in self.items if i.stale), key=lambda i: (i.commits[-1].time if i.commits else i.since,
                                                                          i.path))


def assess(memory_root: str, items: list) -> Assessment:
    """Work out the marks of ``items`` with git (one ``log``, at most one ``ls-files``)."""
    project = project_root_of(memory_root)
    repo = repository_head(project)
    head = repo.get("head") if repo else None
    if repo is None or not items:
        return Assessment(head, repo is not None, True, items)
    store = os.path.relpath(memory_root, project).replace(os.sep, "/")
    specs = {literal_prefix(e) for i in items for e in i.entries}  # literal paths covering every entry, and the store
    if len(specs) > MAX_SPECS:  # keep git's pathspec matching cheap: top folders instead
        specs = {s.split("/", 1)[0] for s in specs}
    specs = [] if "" in specs else sorted(specs | {store})  # "": a glob from the top, the whole history filtered here
    got = log_commits(project, min(i.since for i in items), specs, MAX_COMMITS)
    if got is None:  # no git, no commit yet, or git refused the repository
        return Assessment(head, False, True, items)
    commits, complete = got
    try:  # the commits ``.git-blame-ignore-revs`` lists: a mass reformatting changes no memory's meaning
        data = read_regular(os.path.join(repo["top"], IGNORE_REVS), MAX_IGNORE_REVS_BYTES)[0]
    except OSError:
        data = b""
    words = (line.split("#", 1)[0].strip().lower() for line in data.decode("ascii", "replace").splitlines())
    ignored = {w for w in words if len(w) in (40, 64) and all(c in "0123456789abcdef" for c in w)}
    count_commits(items, [c for c in commits if c.hash not in ignored], store + "/")
    complete = find_missing(items, project) and complete and len(commits) < MAX_COMMITS
    return Assessment(head, True, complete, items)


def is_current(memory_root: str, items: list) -> bool:
    """Do the stored marks answer for HEAD as it is now and for exactly these memories?"""
    doc = load_marks(memory_root)
    if doc is None or not doc.get("seen_all", True):
        return False
    head = (repository_head(project_root_of(memory_root)) or {}).get("head")
    seen = doc.get("seen")
    return doc.get("head") == head and isinstance(seen, list) and set(seen) == {i.key for i in items}


def refresh_marks(memory_root: str, config: dict, force: bool = False, blocking: bool = True, records=None,
                  items=None):
    """The ``Assessment`` when it had to be worked out (``force``: anyway), else None; may raise ``LockBusy``."""
    items = memory_items(memory_root, config, records) if items is None else items
    if not force and is_current(memory_root, items):
        return None
    if not items and load_marks(memory_root) is None:  # nothing to mark, nothing stored: no file, no git
        return Assessment(None, False, True, [])
    with ExitStack() as held:
        try:  # a read-only store: worked out, not stored
            cache_folder(memory_root)
            held.enter_context(store_lock(memory_root, blocking=blocking, name=os.path.join(".cache", LOCK_NAME)))
            locked = True
        except OSError:
            locked = False
        if not force and locked and is_current(memory_root, items):
            return None
        found = assess(memory_root, items)
        if locked:  # stored atomically, in a ``.cache`` that is never a link
            keys = [i.key for i in found.items]
            doc = {"format": MARKS_FORMAT, "head": found.head, "git": found.git, "complete": found.complete,
                   "seen": keys[:MAX_SEEN], "seen_all": len(keys) <= MAX_SEEN,
                   "marks": {i.path: [i.key, i.mark()] for i in found.items if i.stale}}
            with suppress(OSError):
                cache_folder(memory_root)
                atomic_write_text(marks_path(memory_root), fastjson.dumps(doc), durable=False)
        return found


def current_marks(memory_root: str, config: dict, records=None) -> dict:
    """Entry path -> suffix, recomputed first when the stored marks are out of date (the CLI); none when they cannot
    be made (a read-only checkout, a .cache that is a link)."""
    try:
        items = memory_items(memory_root, config, records)
        found = refresh_marks(memory_root, config, items=items)  # (blocking: waits for a background run to finish)
        if found is None:
            return stale_marks(memory_root, items)
        return {i.path: i.suffix() for i in found.items if i.stale}
    except OSError:
        return {}


def finish_marks_in_background(memory_root: str) -> int:
    """What the prompt hook hands over: recompute the marks if still out of date, unless another process is at it."""
    try:
        refresh_marks(memory_root, load_config(memory_root), blocking=False)
    except (LockBusy, OSError):
        return 1
    return 0

