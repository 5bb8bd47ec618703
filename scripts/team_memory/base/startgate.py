"""Background work: a process that outlives the hook, at most one for one piece of work.

``start_detached``: a new session, stdio on ``/dev/null``, no inherited descriptors, by ``os.posix_spawn``
(``subprocess`` costs 20-40 ms under ``python3 -S``). A marker gates the start (forty prompts after ``git pull``
would each start one): ``first_to_start`` says yes to whoever creates it (``O_EXCL``) or ``flock``s one expired or
released; nobody waits. Without ``flock`` (Windows) two may win: the work's own lock keeps it single.
"""
from __future__ import annotations

import os
import time

from .safefs import CLOEXEC, NOFOLLOW, NONBLOCK, UnsafePath, open_create

LIFETIME_S = 10.0  # the longest a started process may take to hold its own lock, or to end
GRACE_S = 1.0  # how long a released marker still holds: hooks that decided just before the run ended
FD_FOLDERS = ("/proc/self/fd", "/dev/fd")
# Windows process creation flags (subprocess has them on Windows only; the values are Windows' own).
DETACHED_PROCESS, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW = 0x00000008, 0x00000200, 0x08000000


def first_to_start(folder: str, name: str) -> int:
    """A claim (nonzero, for ``release``) when the caller should start the work ``name`` (a marker in ``folder``)."""
    path = os.path.join(folder, name)
    claim = _create(path)
    if claim is None and _clear_foreign(folder, name):
        claim = _create(path)
    if claim is not None:
        return claim
    try:
        fd = os.open(path, os.O_WRONLY | NOFOLLOW | NONBLOCK | CLOEXEC)
    except OSError:
        return 0
    try:
        _lock(fd, blocking=False)
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or abs(time.time() - st.st_mtime) < LIFETIME_S:
            return 0  # someone started it moments ago (a time far ahead, a clock set back, counts as old)
        os.utime(fd if os.utime in os.supports_fd else path)
        return os.fstat(fd).st_mtime_ns or 1
    except OSError:  # held by another caller at this very moment
        return 0
    finally:
        os.close(fd)


def _create(path: str) -> int | None:
    """A claim on a marker made now (``O_EXCL``, no link followed); None when the name is taken; 0 on another error."""
    try:
        fd = open_create(path, os.O_WRONLY | os.O_EXCL)
        try:
            return os.fstat(fd).st_mtime_ns or 1
        finally:
            os.close(fd)
    except (FileExistsError, UnsafePath):  # (UnsafePath: a link there)
        return None
    except OSError:
        return 0


def _clear_foreign(folder: str, name: str) -> bool:
    """True once a marker not our regular file is out of the way: a folder moved aside (for ``doctor``) or removed."""
    path = os.path.join(folder, name)
    try:
        mode = os.lstat(path).st_mode & 0o170000
        if mode == 0o100000:
            return False
        if mode == 0o040000:
            os.rename(path, os.path.join(folder, f".{name}.stale.{time.time_ns()}"))
        else:
            os.unlink(path)
        return True
    except OSError:
        return False


def release(folder: str, name: str, claim: int) -> None:
    """Free the marker ``name`` for the next start, if it still holds ``claim`` (the started process, at its end)."""
    path = os.path.join(folder, name)
    try:
        fd = os.open(path, os.O_WRONLY | NOFOLLOW | NONBLOCK | CLOEXEC)
    except OSError:
        return
    try:
        _lock(fd, blocking=True)  # a caller holds it for microseconds at most
        if os.fstat(fd).st_mtime_ns == claim:  # free in GRACE_S: a hook that saw the work undone just before
            free = max(1, int((time.time() - LIFETIME_S + GRACE_S) * 1e9))  # the end does not start it again
            os.utime(fd if os.utime in os.supports_fd else path, ns=(free, free))
    except OSError:
        pass
    finally:
        os.close(fd)


def run_then_release(module: str, function: str, memory_root: str, folder: str, name: str, claim: str) -> None:
    """The started process's body: ``module.function(memory_root)``, then ``release`` its marker."""
    try:
        getattr(__import__(module, fromlist=[function]), function)(memory_root)
    finally:
        release(folder, name, int(claim))


def _lock(fd: int, blocking: bool) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: see the module's docstring
        return
    fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))


def _inherited():
    """The descriptors above 2 a child would inherit; None when they cannot be listed (no ``FD_FOLDERS``)."""
    for folder in FD_FOLDERS:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found = []
        for fd in map(int, names):
            try:
                if fd > 2 and os.get_inheritable(fd):
                    found.append(fd)
            except OSError:  # the listing's own descriptor, closed since
                pass
        return found
    return None


def start_detached(argv: list) -> bool:
    """Start ``argv`` (``argv[0]`` an absolute path) detached; False when it could not be started."""
    spawn = getattr(os, "posix_spawn", None)
    inherited = _inherited() if spawn is not None and os.path.isabs(argv[0]) else None
    if inherited is not None:
        try:
            actions = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
            actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in inherited]
            spawn(argv[0], argv, dict(os.environ), file_actions=actions, setsid=True)
            return True
        except (OSError, NotImplementedError, TypeError, ValueError, AttributeError):
            pass  # no setsid support: the portable way below
    import subprocess
    try:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         close_fds=True, **popen_options())
    except (OSError, ValueError):
        return False
    return True


def popen_options() -> dict:
    """How ``subprocess.Popen`` detaches here: a new session on POSIX, creation flags on Windows."""
    windows = {"creationflags": DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW}
    return windows if os.name == "nt" else {"start_new_session": True}
