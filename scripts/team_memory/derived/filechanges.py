"""What git says about each memory's related files: the commits that count, the entries that are gone.

A commit counts when it touched a file an entry names after the memory was last vouched for: later
than its ``updated_at``, and not before the newest commit that touched its own JSON file (``V``): a
commit listed before V in git's topological order is no ancestor of V and counts; one listed after
counts only when later than V (a branch merged after the memory). ``.git-blame-ignore-revs`` never counts.
"""
from __future__ import annotations

import os

from ..base.safefs import S_IFDIR, S_IFLNK, S_IFMT, read_regular
from ..records.relpaths import is_glob, literal_prefix, matches

MAX_SPECS = 1000
IGNORE_REVS = ".git-blame-ignore-revs"
MAX_IGNORE_REVS_BYTES = 1024 * 1024


def ignored_revisions(top: str) -> set:
    """The full hashes ``.git-blame-ignore-revs`` lists: a mass reformatting changes no memory's meaning."""
    try:
        data = read_regular(os.path.join(top, IGNORE_REVS), MAX_IGNORE_REVS_BYTES)[0]
    except OSError:
        return set()
    revs = set()
    for line in data.decode("ascii", "replace").splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if len(word) in (40, 64) and all(c in "0123456789abcdef" for c in word):
            revs.add(word)
    return revs


def pathspecs(items: list, store: str) -> list:
    """Literal paths that cover every entry (a glob by its literal folders), and the store."""
    specs = {literal_prefix(e) for i in items for e in i.entries}
    if "" in specs:
        return []  # a glob from the top: the whole history, filtered here
    if len(specs) > MAX_SPECS:  # keep git's pathspec matching cheap: top folders instead
        specs = {s.split("/", 1)[0] for s in specs}
    return sorted(specs | {store})


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
        seen = set()
        for place, commit, path in touched.get(id(item), ()):
            if commit.time <= item.since or (place >= own_place >= 0 and commit.time <= own_time):
                continue
            if commit.hash not in seen:
                seen.add(commit.hash)
                item.commits.append(commit)
            if path not in item.changed:
                item.changed.append(path)


def find_missing(items: list, project: str) -> bool:
    """Fill each item's missing entries: an exact path missing from the work tree (never behind a link), a
    folder or glob matching no tracked file. False when a folder or glob could not be checked."""
    tracked = folders = None
    checked = {}
    complete = True
    for item in items:
        for entry in item.entries:
            if entry not in checked:
                if not is_glob(entry) and not entry.endswith("/"):
                    checked[entry] = exists_unlinked(project, entry)
                else:
                    if tracked is None:
                        tracked, folders = _tracked(project)
                    if tracked is None:
                        complete = False
                        checked[entry] = None
                    elif not is_glob(entry):
                        checked[entry] = entry.rstrip("/") in folders
                    else:
                        prefix = literal_prefix(entry)
                        checked[entry] = any(matches(entry, p) for p in tracked
                                             if not prefix or p.startswith(prefix + "/"))
            if checked[entry] is False:
                item.missing.append(entry)
    return complete


def _tracked(project: str):
    """``(tracked files, every folder above one)`` under ``project``, or ``(None, None)``."""
    from ..base.gitlog import tracked_files
    files = tracked_files(project)
    if files is None:
        return None, None
    folders = set()
    for path in files:
        at = path.rfind("/")
        while at > 0 and path[:at] not in folders:
            folders.add(path[:at])
            at = path.rfind("/", 0, at)
    return files, folders


def exists_unlinked(project: str, entry: str):
    """Is the work tree's ``entry`` there (``lstat``, part by part)? None when a folder on the way is a link."""
    parts = entry.split("/")
    here = project
    for n, part in enumerate(parts):
        here = os.path.join(here, part)
        try:
            kind = os.lstat(here).st_mode & S_IFMT
        except OSError:
            return False
        if n < len(parts) - 1 and kind != S_IFDIR:
            return None if kind == S_IFLNK else False
    return True
