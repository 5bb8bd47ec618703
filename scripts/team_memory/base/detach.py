"""Start a process that outlives the hook: its own session, nothing of the hook's I/O inherited.

``start_detached(argv)``: stdin, stdout and stderr on ``/dev/null`` (the client waits on the hook's
pipes, never on the child's), every other inheritable descriptor closed, a new session (a hook's
time-out kills the hook, not the child). With ``os.posix_spawn`` (Linux, macOS) this costs no
import: ``subprocess`` alone takes 20-40 ms to import under ``python3 -S``, more than the rest of a
hand-over. Elsewhere, or when the spawn is refused, ``subprocess.Popen`` does the same.
"""
from __future__ import annotations

import os


def _inherited() -> list:
    """The descriptors above 2 a child would inherit (``/proc/self/fd``); None when they cannot be listed."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    found.append(fd)
            except OSError:  # the listing's own descriptor, closed since
                pass
    return found


def start_detached(argv: list) -> bool:
    """Start ``argv`` (``argv[0]`` an absolute path) detached; False when it could not be started."""
    spawn = getattr(os, "posix_spawn", None)
    if spawn is not None and os.path.isabs(argv[0]):
        try:
            actions = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
            actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
            spawn(argv[0], argv, dict(os.environ), file_actions=actions, setsid=True)
            return True
        except (OSError, NotImplementedError, TypeError, ValueError, AttributeError):
            pass  # no /proc, no setsid support: the portable way below
    import subprocess
    try:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except (OSError, ValueError):
        return False
    return True
