"""At most one background process started for one piece of work: a short-lived marker file.

Forty prompts arriving together after ``git pull`` would each start a process (``derived.drift.hand_over``)
before the first holds its own lock. ``first_to_start(folder, name)`` answers yes to one caller while a
start is under way: the first creates the marker (``O_EXCL``); a marker older than ``LIFETIME_S`` or
released is taken by the first to ``flock`` it and find it still free, who renews its time. The started
process ``release``s it when done, to free itself ``GRACE_S`` later (hooks that read the work as undone
just before the run ended do not start it again). Nobody waits; the marker is never removed (no hook can
renew a file another has just deleted); anything but our regular file there is cleared. Without ``flock``
(Windows) two callers may both win; the process's own lock still keeps the work single.
"""
from __future__ import annotations

import os
import time

LIFETIME_S = 10.0  # the longest a started process may take to hold its own lock, or to end
GRACE_S = 1.0  # how long a released marker still holds: hooks that decided just before the run ended


def first_to_start(folder: str, name: str, lifetime: float = LIFETIME_S) -> int:
    """The claim (a nonzero token for ``release``) when the caller should start the process for
    ``name``, a marker in ``folder`` (a real folder); 0 when another caller is starting it."""
    from .safefs import NOFOLLOW, NONBLOCK
    path = os.path.join(folder, name)
    claim = _create(path)
    if claim is None and _clear_foreign(folder, name):
        claim = _create(path)
    if claim is not None:
        return claim
    try:
        fd = os.open(path, os.O_WRONLY | NOFOLLOW | NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return 0
    try:
        _lock(fd, blocking=False)
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or abs(time.time() - st.st_mtime) < lifetime:
            return 0  # someone started it moments ago (a time far ahead, a clock set back, counts as old)
        os.utime(fd if os.utime in os.supports_fd else path)
        return os.fstat(fd).st_mtime_ns or 1
    except OSError:  # held by another caller at this very moment
        return 0
    finally:
        os.close(fd)


def _create(path: str) -> int | None:
    """A claim on a marker made now (``O_EXCL``, no link followed); None when the name is taken; 0 on another error."""
    from .safefs import UnsafePath, open_create
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
    """True once a marker that is not the regular file we write (a folder, a link, a FIFO: committed, not ours)
    is out of the way: a folder moved aside (``.<name>.stale.<time>``, left for ``doctor``), anything else removed."""
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
    from .safefs import NOFOLLOW, NONBLOCK
    try:
        fd = os.open(os.path.join(folder, name), os.O_WRONLY | NOFOLLOW | NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        _lock(fd, blocking=True)  # a caller holds it for microseconds at most
        if os.fstat(fd).st_mtime_ns == claim:  # free in GRACE_S: a hook that saw the work undone just before
            free = max(1, int((time.time() - LIFETIME_S + GRACE_S) * 1e9))  # the end does not start it again
            os.utime(fd if os.utime in os.supports_fd else os.path.join(folder, name), ns=(free, free))
    except OSError:
        pass
    finally:
        os.close(fd)


def run_then_release(module: str, function: str, memory_root: str, folder: str, name: str, claim: str) -> None:
    """The started process's body: ``module.function(memory_root)``, then ``release`` its marker, however it ended."""
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
