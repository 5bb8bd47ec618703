"""The masked platform: this machine's Python without the POSIX features the code relies on, for tests.

What cannot run here (Windows, macOS) is proved by taking away what only Linux gives and running the
hooks, the CLI and the guard through the fallbacks that take over:

- ``os.O_NOFOLLOW`` is gone (Windows): links are refused by ``lstat`` before and ``fstat`` after the open;
- ``fcntl`` cannot be imported (Windows): the store lock goes through ``msvcrt.locking``, given here by a
  stand-in that locks with the real ``flock`` underneath and counts its calls (``msvcrt.calls``);
- ``os.posix_spawn`` is gone: background work starts through ``subprocess``;
- ``/proc`` does not exist (macOS, Windows): listing, opening or stat-ing anything under it fails;
- ``os.sep`` is ``\\`` and ``os.altsep`` ``/`` (Windows): code that joins, splits or compares paths itself
  must not take ``os.sep`` for ``/``. (``os.path`` stays this system's, so the files are real; what the
  mask checks is that no path text is assumed to use ``os.sep`` alone.)

Two ways in, both test-only: ``TEAM_MEMORY_MASK_POSIX=1`` makes ``tests/conftest.py`` call ``apply()``
before anything of the package is imported, and makes ``helpers.run_hook``/``run_cli`` start the real
launchers as ``python3 -S tests/platform_mask.py <launcher> [args]``, which masks the child the same way
and then runs the launcher as ``__main__`` (hooks run with ``-S``, so no ``sitecustomize`` would load).
"""
from __future__ import annotations

import errno
import os
import sys
import types

_REAL: dict = {}  # what the mask took away, for tests that take it away themselves
MASK_ENV = "TEAM_MEMORY_MASK_POSIX"
TRACE_ENV = "TEAM_MEMORY_MASK_TRACE"  # a file: each masked process appends what its fallbacks did
PROC = "/proc"


def _is_proc(path) -> bool:
    try:
        text = os.fsdecode(path) if not isinstance(path, int) else ""
    except TypeError:
        return False
    return text == PROC or text.startswith(PROC + "/")


def _hide_proc(function):
    def masked(path=".", *args, **kwargs):
        if _is_proc(path):
            raise FileNotFoundError(errno.ENOENT, "masked: no /proc on this platform", os.fsdecode(path))
        return function(path, *args, **kwargs)
    masked.__wrapped__ = function
    return masked


def _msvcrt(real_fcntl) -> types.ModuleType:
    """``msvcrt.locking`` as Windows behaves: a non-blocking lock on a held file raises ``OSError``."""
    module = types.ModuleType("msvcrt")
    module.LK_UNLCK, module.LK_LOCK, module.LK_NBLCK, module.LK_RLCK, module.LK_NBRLCK = 0, 1, 2, 3, 4
    module.calls = []

    def locking(fd: int, mode: int, nbytes: int) -> None:
        module.calls.append((mode, nbytes, os.lseek(fd, 0, os.SEEK_CUR)))
        if mode == module.LK_UNLCK:
            real_fcntl.flock(fd, real_fcntl.LOCK_UN)
            return
        try:
            real_fcntl.flock(fd, real_fcntl.LOCK_EX | (real_fcntl.LOCK_NB if mode in (2, 4) else 0))
        except BlockingIOError:
            raise OSError(errno.EACCES, "Permission denied (masked msvcrt: the region is locked)") from None

    module.locking = locking
    return module


def apply() -> None:
    """Mask this process (idempotent). Must run before the package is imported."""
    if getattr(os, "_team_memory_masked", False):
        return
    import fcntl as real_fcntl
    import subprocess  # noqa: F401 - it takes an importable msvcrt for Windows: loaded before the stand-in is
    _REAL["fcntl"] = real_fcntl
    for name in ("O_NOFOLLOW", "posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            _REAL[name] = getattr(os, name)
            delattr(os, name)
    sys.modules["fcntl"] = None  # import fcntl -> ImportError, as on Windows
    sys.modules["msvcrt"] = _msvcrt(real_fcntl)
    for name in ("listdir", "scandir", "stat", "lstat", "open", "access"):
        setattr(os, name, _hide_proc(getattr(os, name)))
    os.sep, os.altsep = "\\", "/"
    os._team_memory_masked = True
    if os.environ.get(TRACE_ENV):
        _trace(os.environ[TRACE_ENV], sys.modules["msvcrt"], subprocess)


def real(name: str):
    """The real ``fcntl`` module or ``os`` attribute, masked or not."""
    if name in _REAL:
        return _REAL[name]
    if name == "fcntl":
        import fcntl
        return fcntl
    return getattr(os, name)


def _trace(path: str, msvcrt, subprocess) -> None:
    """At exit, append to ``path`` one JSON line of what the fallbacks did in this process (for tests)."""
    import atexit
    import json
    started = []
    popen = subprocess.Popen

    class Popen(popen):
        def __init__(self, args, *rest, **kwargs):
            started.append(sorted(k for k in ("start_new_session", "creationflags") if k in kwargs))
            super().__init__(args, *rest, **kwargs)

    subprocess.Popen = Popen

    def write() -> None:
        safefs = sys.modules.get("team_memory.base.safefs")
        fsutil = sys.modules.get("team_memory.base.fsutil")
        line = {"argv": sys.argv[:2], "locks": len(msvcrt.calls), "popen": started,
                "nofollow": getattr(safefs, "NOFOLLOW", None),
                "fcntl": getattr(fsutil, "fcntl", None) is not None}  # fcntl used
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")

    atexit.register(write)


def main(argv: list) -> int:
    """``platform_mask.py SCRIPT [ARGS]``: run SCRIPT as ``__main__`` on the masked platform."""
    import runpy
    apply()
    script = os.path.abspath(argv[0])
    sys.argv = [script] + argv[1:]
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
