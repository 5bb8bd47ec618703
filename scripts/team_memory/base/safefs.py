"""Links are never followed (``git pull`` commits them): the store rule and the link-safe ways to open, read and create.

A store is used only when ``.claude`` and ``.claude/memory`` are real folders. Files are opened with ``O_NOFOLLOW``
(without it, ``lstat`` before and ``fstat`` after must agree), must be regular and are read up to a bound.
"""
from __future__ import annotations

import errno
import os

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
S_IFMT, S_IFREG, S_IFDIR, S_IFLNK = 0o170000, 0o100000, 0o040000, 0o120000
MAX_FILE_BYTES = 4 * 1024 * 1024  # a memory, the config, index.md line reads: far above any real one
MEMORY_REL = (".claude", "memory")  # the memory root, relative to the project root (``model`` names it too)


class UnsafePath(OSError):
    """A link, or something other than a regular file or real folder, where team-memory needs one."""


class UnsafeStore(UnsafePath):
    """The store itself is reached through a link: it is not used at all."""


def kind_of(path: str):
    """``lstat``'s file type of ``path`` (``S_IFDIR``, ``S_IFLNK``...), None when there is nothing."""
    try:
        return os.lstat(path).st_mode & S_IFMT
    except OSError:
        return None


def is_link(path: str) -> bool:
    return kind_of(path) == S_IFLNK


def is_real_dir(path: str) -> bool:
    return kind_of(path) == S_IFDIR


def store_problem(memory_root: str) -> str | None:
    """Why the store at ``<project>/.claude/memory`` must not be used, or None when it may."""
    memory_root = os.path.abspath(memory_root)
    parent = os.path.dirname(memory_root)
    checks = [memory_root] + ([parent] if os.path.basename(parent) == ".claude" else [])
    for path in reversed(checks):
        kind = kind_of(path)
        name = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path)) \
            if path == memory_root and len(checks) == 2 else os.path.basename(path)
        if kind == S_IFLNK:
            return (f"{name} is a symbolic link, so the memory store is not used (nothing is read or written "
                    f"through it); replace it with a real folder: git rm {name}, then commit")
        if kind is not None and kind != S_IFDIR:
            return f"{name} is not a folder, so the memory store is not used"
    return None


def check_store(memory_root: str) -> str:
    """``memory_root`` itself; ``UnsafeStore`` when ``store_problem`` finds a reason not to use it."""
    problem = store_problem(memory_root)
    if problem:
        raise UnsafeStore(problem)
    return memory_root


def open_regular(path: str):
    """``(fd, stat)`` of a regular file opened for reading, never through a link (``UnsafePath``) nor a FIFO."""
    if NOFOLLOW:
        try:
            fd = os.open(path, os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):  # EMLINK: what BSDs say for O_NOFOLLOW on a link
                raise UnsafePath(f"{os.path.basename(path)} is a symbolic link; not followed") from None
            raise
    else:
        before = os.lstat(path)
        if before.st_mode & S_IFMT == S_IFLNK:
            raise UnsafePath(f"{os.path.basename(path)} is a symbolic link; not followed")
        if before.st_mode & S_IFMT != S_IFREG:
            raise UnsafePath(f"{os.path.basename(path)} is not a regular file; not read")
        fd = same_file(os.open(path, os.O_RDONLY | NONBLOCK | CLOEXEC | BINARY), before, path)
    try:
        st = os.fstat(fd)
        if st.st_mode & S_IFMT != S_IFREG:
            raise UnsafePath(f"{os.path.basename(path)} is not a regular file; not read")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def same_file(fd: int, before, path: str) -> int:
    """``fd`` when it is the file ``before`` (an ``lstat`` of ``path``) described; else closed, ``UnsafePath``."""
    try:
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino, after.st_mode & S_IFMT) != (before.st_dev, before.st_ino,
                                                                     before.st_mode & S_IFMT):
            raise UnsafePath(f"{os.path.basename(path)} was replaced while being opened (a link?); not followed")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str, limit: int = MAX_FILE_BYTES):
    """``(bytes, stat)`` of a regular file, never through a link; a file over ``limit`` bytes is an ``UnsafePath``."""
    fd, st = open_regular(path)
    try:
        if st.st_size > limit:
            raise UnsafePath(f"{os.path.basename(path)} is larger than {limit} bytes; not read")
        chunks, got = [], 0
        while got < limit:
            chunk = os.read(fd, min(limit - got, max(st.st_size - got, 0) + 1, 1 << 22))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_object(path: str, limit: int = MAX_FILE_BYTES) -> dict | None:
    """The JSON object in the regular file ``path`` (``read_regular``); None when missing, unreadable or no object."""
    from . import fastjson
    try:
        value = fastjson.loads(read_regular(path, limit)[0])
    except (OSError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def make_dir(path: str) -> str:
    """Create the folder ``path`` (its parent must exist) without following a link planted there."""
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        pass
    if not is_real_dir(path):
        raise UnsafePath(f"{os.path.basename(path)} is a symbolic link or a file, not a folder; not used")
    return path


def open_create(path: str, flags: int = os.O_RDWR, mode: int = 0o644) -> int:
    """Open ``path`` for writing, created if missing, never through a link (else as ``open_regular`` checks it)."""
    if not NOFOLLOW:
        try:
            return os.open(path, flags | os.O_CREAT | os.O_EXCL | NONBLOCK | CLOEXEC | BINARY, mode)
        except FileExistsError:
            pass
        before = os.lstat(path)
        if before.st_mode & S_IFMT != S_IFREG:
            raise UnsafePath(f"{os.path.basename(path)} is a symbolic link or not a file; not followed")
        return same_file(os.open(path, flags | NONBLOCK | CLOEXEC | BINARY), before, path)
    try:
        return os.open(path, flags | os.O_CREAT | NOFOLLOW | NONBLOCK | CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or is_link(path):
            raise UnsafePath(f"{os.path.basename(path)} is a symbolic link; not followed") from None
        raise


def linked_part(root: str, rel: str, seen: dict | None = None) -> str | None:
    """The first of ``rel``'s parts under ``root`` (``a``, then ``a/b``...) that is a link (``seen``: answers kept)."""
    parts = [part for part in rel.replace("\\", "/").split("/") if part]
    seen = {} if seen is None else seen
    for end in range(1, len(parts) + 1):
        part = "/".join(parts[:end])
        if part not in seen:
            seen[part] = is_link(os.path.join(root, *parts[:end]))
        if seen[part]:
            return part
    return None


def refuse_links(root: str, rels=(), trees=()) -> None:
    """``UnsafePath`` naming the first link on the way to a path of ``rels`` (under ``root``) or inside ``trees``."""
    seen: dict = {}
    found = [linked_part(root, rel, seen) for rel in rels]
    for tree in trees:
        found.append(linked_part(root, tree, seen))
        base = os.path.join(root, *tree.split("/"))
        for dirpath, dirnames, filenames in os.walk(base) if is_real_dir(base) else ():
            found += [os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                      for name in dirnames + filenames if is_link(os.path.join(dirpath, name))]
    linked = next((rel for rel in found if rel), None)
    if linked:
        raise UnsafePath(f"{linked} is a symbolic link (a teammate's commit?): nothing is read or written through it, "
                         f"and nothing was changed; replace it with a real file or folder (git rm {linked}, "
                         "then commit) and run again")


def read_text(path: str, errors: str = "strict") -> str | None:
    """The UTF-8 text of the regular file ``path`` (``read_regular``), None when it is missing."""
    try:
        data, _ = read_regular(path)
    except FileNotFoundError:
        return None
    return data.decode("utf-8", errors)


def find_memory_root(start: str | None = None) -> str | None:
    """The nearest ``.claude/memory`` at or above ``start``, not above the repository root (``UnsafeStore``: a link)."""
    start = os.path.realpath(start or os.getcwd())
    for folder in folders_up(start if os.path.isdir(start) else os.path.dirname(start)):
        candidate = os.path.join(folder, *MEMORY_REL)
        # ~/.claude is Claude Code's own settings folder: only a store when we start there.
        if os.path.lexists(candidate) and (folder == start or folder != os.path.realpath(os.path.expanduser("~"))):
            return check_store(candidate)
        if os.path.exists(os.path.join(folder, ".git")):
            return None


def folders_up(path: str):
    """``path`` (absolute), its parent, and so on up to the file system root."""
    here = os.path.abspath(path)
    while True:
        yield here
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent


def repo_root_of(start: str) -> str | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a repository or worktree root), or None."""
    for folder in folders_up(start):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
    return None


def project_root_of(memory_root: str) -> str:
    """``<project>/.claude/memory`` -> ``<project>``."""
    return os.path.dirname(os.path.dirname(os.path.abspath(memory_root)))
