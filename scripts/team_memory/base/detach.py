"""Start a process that outlives the hook: its own session, nothing of the hook's I/O inherited.

``start_detached(argv)``: stdin, stdout and stderr on ``/dev/null`` (the client waits on the hook's
pipes), every other inheritable descriptor closed (listed from ``/proc/self/fd`` or ``/dev/fd``), a new
session. ``os.posix_spawn`` costs no import (``subprocess`` alone takes 20-40 ms under ``python3 -S``);
elsewhere ``subprocess.Popen`` does the same (on Windows: ``DETACHED_PROCESS``,
``CREATE_NEW_PROCESS_GROUP``, ``CREATE_NO_WINDOW``).
"""
from __future__ import annotations

import os

FD_FOLDERS = ("/proc/self/fd", "/dev/fd")
# Windows process creation flags (subprocess has them on Windows only; the values are Windows' own).
DETACHED_PROCESS, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW = 0x00000008, 0x00000200, 0x08000000


def _inherited():
    """The descriptors above 2 a child would inherit; None when they cannot be listed (no ``FD_FOLDERS``)."""
    for folder in FD_FOLDERS:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found = []
        for name in names:
            fd = int(name)
            if fd > 2:
                try:
                    if os.get_inheritable(fd):
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
    how = popen_options()
    try:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         close_fds=True, **how)
    except (OSError, ValueError):
        return False
    return True


def popen_options() -> dict:
    """How ``subprocess.Popen`` detaches here: a new session on POSIX, creation flags on Windows."""
    if os.name == "nt":
        return {"creationflags": DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW}
    return {"start_new_session": True}
