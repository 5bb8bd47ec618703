"""The commit HEAD names, read from git's own files without running git (a hook never runs git).

The nearest ``.git`` (a folder, or ``gitdir: <path>``), its ``HEAD``, and the ref it names: a loose ref file, else
``packed-refs``. Reads are bounded, no link followed, ref names checked; anything unusual gives ``head`` None.
"""
from __future__ import annotations

import os

MAX_SMALL = 4096
MAX_PACKED = 16 * 1024 * 1024
MAX_SYMREF_DEPTH = 5
HEX = frozenset("0123456789abcdef")


def _small(path: str, limit: int = MAX_SMALL) -> bytes | None:
    from .safefs import read_regular
    try:
        return read_regular(path, limit)[0]
    except (OSError, ValueError):
        return None


def _pointer(path: str) -> str:
    """The one line of a small git pointer file (``gitdir: ...``, ``commondir``), or ""."""
    data = _small(path)
    text = data.decode("utf-8", "replace").strip() if data else ""
    return "" if "\n" in text or "\x00" in text else text


def find_git(start: str):
    """``(top, git folder)`` of the repository holding ``start`` (a worktree's own git folder), or None."""
    from .safefs import S_IFDIR, S_IFREG, folders_up, is_real_dir, kind_of
    for here in folders_up(start):
        dot = os.path.join(here, ".git")
        kind = kind_of(dot)
        if kind == S_IFDIR:
            return here, dot
        if kind == S_IFREG:
            text = _pointer(dot)
            if not text.startswith("gitdir:"):
                return None
            gitdir = os.path.normpath(os.path.join(here, text[len("gitdir:"):].strip()))
            return (here, gitdir) if is_real_dir(gitdir) else None
        if kind is not None:
            return None  # a link or something stranger named .git: not followed
    return None


def valid_ref(name: str) -> bool:
    """A ref name safe to turn into a path under a git folder (``refs/...``, no ``..``, nothing odd)."""
    if not name.startswith("refs/") or len(name) > 1024 or name.endswith("/") or name.endswith(".lock"):
        return False
    parts = name.split("/")
    return all(p and p not in (".", "..") and not p.startswith(".") for p in parts) and \
        all(32 < ord(c) < 127 and c not in "\\:?*[~^" for c in name)


def _object_id(text: str) -> str | None:
    return text if len(text) in (40, 64) and set(text) <= HEX else None


def _packed(common: str, name: str) -> str | None:
    data = (_small(os.path.join(common, "packed-refs"), MAX_PACKED) or b"") + b"\n"  # the last line: maybe no newline
    at = data.find(b" " + name.encode("ascii") + b"\n")
    return _object_id(data[data.rfind(b"\n", 0, at) + 1:at].decode("ascii", "replace")) if at >= 0 else None


def resolve_head(gitdir: str) -> str | None:
    """The object id HEAD names in ``gitdir`` (detached, or through its branch), or None."""
    from .safefs import is_real_dir
    text = _pointer(os.path.join(gitdir, "commondir"))  # the folder every worktree shares, else gitdir itself
    common = os.path.normpath(os.path.join(gitdir, text)) if text else gitdir
    common = common if is_real_dir(common) else gitdir
    data = _small(os.path.join(gitdir, "HEAD"))
    for _ in range(MAX_SYMREF_DEPTH):
        text = data.decode("ascii", "replace").strip() if data else ""
        if not text.startswith("ref:"):
            return _object_id(text)
        name = text[4:].strip()
        if not valid_ref(name):
            return None
        per_worktree = name.startswith(("refs/bisect/", "refs/worktree/", "refs/rewritten/"))
        data = _small(os.path.join(gitdir if per_worktree else common, *name.split("/")))
        if data is None:
            return None if per_worktree else _packed(common, name)
    return None


def repository_head(project_root: str) -> dict | None:
    """``{"top": the repository's top folder, "head": object id or None}``, or None outside a repository."""
    try:
        found = find_git(project_root)
        return None if found is None else {"top": found[0], "head": resolve_head(found[1])}
    except (OSError, ValueError, UnicodeError):
        return None
