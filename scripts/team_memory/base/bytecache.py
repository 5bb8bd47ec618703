"""Compiled code for this package kept in the user's cache folder, when Python keeps none.

Under ``PYTHONDONTWRITEBYTECODE=1`` or a read-only plugin folder, ``install()`` loads the package through
``CachingLoader`` from ``$XDG_CACHE_HOME/team-memory/pycache`` (else ``~/.cache``), code used only when its header names
this interpreter and the source's path, size and time. Compiled code runs as it is: every folder from the cache root
down must be real, this user's and writable by nobody else, no link followed; else one stderr line and no cache.
"""
from __future__ import annotations

# Kept for the budgets without bytecode caching (bench.py --floor): PreToolUse 2.7x -> 1.8x, prompt hook 7.8x -> 3.0x.
import marshal
import os
import sys

try:  # the objects behind importlib.machinery, already loaded: no import to pay for
    from _frozen_importlib_external import SOURCE_SUFFIXES, FileFinder, SourceFileLoader
except ImportError:  # pragma: no cover - another implementation
    from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # team_memory/, above this layer


def cache_home() -> str:
    """Where compiled code goes: under ``$XDG_CACHE_HOME`` (absolute), else ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "team-memory", "pycache", sys.implementation.cache_tag or "python")


def _fails(st, uid: int) -> str | None:
    """Why a folder or file with status ``st`` cannot be trusted, or None."""
    return "owned by another user" if st.st_uid != uid else "writable by other users" if st.st_mode & 0o022 else None


_said: list = []


def private_folder(parts=()) -> str | None:
    """``cache_home()`` joined with ``parts``, made and checked; None when it cannot be trusted."""
    home = cache_home()
    root = os.path.dirname(os.path.dirname(os.path.dirname(home)))  # $XDG_CACHE_HOME or ~/.cache
    names = [n for n in home[len(root):].split(os.sep) if n] + [n for p in parts for n in p.split(os.sep) if n]
    uid = getattr(os, "getuid", lambda: None)()
    if uid is None and os.environ.get("XDG_CACHE_HOME"):
        return None  # Windows: only the profile folder's own ACLs keep others out
    try:
        os.makedirs(root, 0o700, exist_ok=True)
        st = os.stat(root)  # the root may be a link (``~/.cache`` elsewhere): it is the user's choice
        loose = st.st_mode & 0o002 or (st.st_mode & 0o020 and st.st_gid != os.getgid()) if uid is not None else 0
        if loose and not st.st_mode & 0o1000:  # others could swap our folders for theirs
            return _refused(root, "writable by other users")
        folder = root
        for name in names:
            folder = os.path.join(folder, name)
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
            st = os.lstat(folder)
            if st.st_mode & 0o170000 != 0o040000 or getattr(st, "st_reparse_tag", 0):  # a link, junction, file
                return _refused(folder, "not a real folder")
            why = None if uid is None else _fails(st, uid)
            if why == "writable by other users":  # ours, made loose by an older version's umask: tighten it
                os.chmod(folder, st.st_mode & 0o755)
                why = _fails(os.lstat(folder), uid)
            if why:
                return _refused(folder, why)
    except OSError:
        return None
    return folder


def _refused(folder: str, why: str) -> None:
    if not _said:  # one line a process
        _said.append(why)
        name = "".join(c if c.isprintable() else "?" for c in os.path.basename(folder))[:60]
        sys.stderr.write(f"[team-memory] compiled code not cached: the cache folder {name!r} is {why}\n")
    return None


def write_private(path: str, data: bytes) -> None:
    """``data`` into ``path`` atomically, as a file only this user may write; any problem is no error."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_BINARY", 0), 0o600)
        with open(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except (OSError, ValueError):
        try:
            os.unlink(tmp)
        except OSError:
            pass


def read_private(path: str) -> bytes | None:
    """The bytes of ``path``: a regular file (no link followed) only this user may write; else None."""
    uid = getattr(os, "getuid", lambda: None)()
    try:
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                          | getattr(os, "O_BINARY", 0)), "rb") as f:
            st = os.fstat(f.fileno())
            return None if st.st_mode & 0o170000 != 0o100000 or (uid is not None and _fails(st, uid)) else f.read()
    except OSError:
        return None


def python_caches_here(folder: str = PACKAGE_DIR) -> bool:
    """True when Python's own ``__pycache__`` beside the sources can be written."""
    if sys.dont_write_bytecode:
        return False
    pycache = os.path.join(folder, "__pycache__")
    return os.access(pycache if os.path.isdir(pycache) else folder, os.W_OK)


class CachingLoader(SourceFileLoader):
    """A source loader that keeps compiled code in ``cache_home()`` instead of ``__pycache__``."""

    def get_code(self, fullname):
        source_path = self.get_filename(fullname)
        st = os.stat(source_path)
        header = f"{sys.version}\n{source_path}\n{st.st_mtime_ns} {st.st_size}\n".encode("utf-8", "replace")
        cached = os.path.join(_folder, fullname + ".bin")
        data = read_private(cached)
        try:
            if data is not None and data.startswith(header):
                return marshal.loads(memoryview(data)[len(header):])
        except (ValueError, EOFError, TypeError):
            pass
        code = self.source_to_code(self.get_data(source_path), source_path)
        write_private(cached, header + marshal.dumps(code))
        return code


_folder = ""


def _path_hook(path: str):
    if path != PACKAGE_DIR:  # the package folder or one of its layer folders, nothing else
        path = os.path.abspath(path)
        if path != PACKAGE_DIR and os.path.dirname(path) != PACKAGE_DIR:
            raise ImportError("not team-memory's package folder")
    return FileFinder(path, (CachingLoader, SOURCE_SUFFIXES))


def _in_checkout(folder: str) -> bool:
    """True when ``folder`` lies in the plugin folder or in the repository Claude Code works in."""
    real = os.path.realpath(folder).replace(os.sep, "/") + "/"  # compared as / text (base.pathtext's rule)
    tops = [os.path.dirname(os.path.dirname(PACKAGE_DIR))]  # the plugin (or drop-in runtime) folder
    try:
        here = os.getcwd()  # hooks run in the project: its repository is the nearest .git above
    except OSError:
        here = None
    while here:
        if os.path.exists(os.path.join(here, ".git")):
            tops.append(here)
            break
        here = os.path.dirname(here) if os.path.dirname(here) != here else None
    return any(real.startswith(os.path.realpath(top).replace(os.sep, "/").rstrip("/") + "/") for top in tops)


def install() -> bool:
    """Load the rest of this package through ``CachingLoader`` when Python would not cache it."""
    global _folder
    if python_caches_here() or _path_hook in sys.path_hooks:
        return False
    # mirrored like ``sys.pycache_prefix``: one folder per checkout, so two versions never meet
    mirror = PACKAGE_DIR.replace(":", "").lstrip("\\/")
    if _in_checkout(os.path.join(cache_home(), mirror)):
        return False  # a cache folder inside the plugin or the repository: leave Python's default
    folder = private_folder((mirror,))
    if folder is None:
        return False
    _folder = folder
    sys.path_hooks.insert(0, _path_hook)
    for package in (__package__.rpartition(".")[0], __package__):  # team_memory and this layer, loaded already
        for entry in getattr(sys.modules.get(package), "__path__", [PACKAGE_DIR]):
            sys.path_importer_cache.pop(entry, None)  # the finders that found them: ask the hooks again
    return True
