"""At most one background process started for one piece of work: a short-lived marker file.

A hook that hands work to a detached process (``derived.freshcache.hand_over``) checks that
nobody did so moments ago. The process itself takes a lock once it runs, but starting Python
takes a while, and forty prompts arriving together after ``git pull`` would each start one
before the first holds its lock. ``first_to_start(folder, name)`` is True for exactly one
caller among those asking within ``LIFETIME_S`` seconds: the first creates the marker
(``O_EXCL``); once it is older than that, the first to hold it (``flock``) and find it still
old renews its time and wins. Nobody waits: a busy or unreadable marker means someone else
is starting it. The marker is never removed (the lifetime alone frees it), so no hook can
renew a file another has just deleted. Where there is no ``flock`` (Windows) two callers
renewing an expired marker at the same instant may both win; the process's own lock still
keeps the work single.
"""
from __future__ import annotations

import os
import time

LIFETIME_S = 10.0  # the time a started process may take to hold its own lock


def first_to_start(folder: str, name: str, lifetime: float = LIFETIME_S) -> bool:
    """True when the caller should start the process for ``name`` (a marker in ``folder``, a real folder)."""
    from .safefs import NOFOLLOW, NONBLOCK, UnsafePath, open_create
    path = os.path.join(folder, name)
    try:
        os.close(open_create(path, os.O_WRONLY | os.O_EXCL))
        return True
    except FileExistsError:
        pass
    except (OSError, UnsafePath):
        return False
    try:
        fd = os.open(path, os.O_WRONLY | NOFOLLOW | NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        try:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - Windows: see the docstring
            pass
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or abs(time.time() - st.st_mtime) < lifetime:
            return False  # someone started it moments ago (a time far ahead, a clock set back, counts as old)
        os.utime(fd if os.utime in os.supports_fd else path)
        return True
    except OSError:  # held by another caller at this very moment
        return False
    finally:
        os.close(fd)
