"""Atomic files (same-folder temp file, fsync, ``os.replace``) and ``store_lock``, a kernel-released advisory lock
(``flock``, else ``msvcrt.locking``: no stale lock survives a crash). Hooks use ``blocking=False``."""
from __future__ import annotations

import os

from .safefs import UnsafePath, check_store, is_real_dir, open_create

LOCK_NAME = ".lock"
TEMP_SUFFIX = ".tmp"
REPLACE_WAITS = (0.005, 0.01, 0.02, 0.03, 0.035)  # 100 ms in all, then FileBusy


class LockBusy(Exception):
    """The store lock is held by another process and the caller chose not to wait."""


class FileBusy(PermissionError):
    """Another program holds the file open, so it cannot be replaced (Windows); hooks fail open on it."""


def replace(tmp: str, path: str) -> None:
    """``os.replace`` that waits out a Windows sharing violation (``REPLACE_WAITS``), then raises ``FileBusy``."""
    for wait in REPLACE_WAITS + (None,):
        try:
            os.replace(tmp, path)
            return
        except PermissionError:
            if wait is None:
                raise FileBusy(f"{os.path.basename(path)} is held open by another program (an editor, a virus "
                               f"scanner, a sync client?) and could not be replaced; close it and try again") from None
            import time
            time.sleep(wait)


def atomic_write_text(path: str, text: str, mode: int = 0o644, durable: bool = True) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically; ``durable=False`` (derived files) skips the fsyncs."""
    atomic_write_bytes(path, text.encode("utf-8"), mode, durable)


def atomic_write_bytes(path: str, data: bytes, mode: int = 0o644, durable: bool = True) -> None:
    fd, tmp = create_temp(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.chmod(tmp, mode)  # mkstemp makes 0600; os.replace keeps the temp file's mode
        replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:  # the rename itself made durable (best effort: not every platform allows it)
        try:
            fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            pass


def create_temp(path: str):
    """``(fd, temp path)``: a new temp file beside ``path`` (0600); not ``tempfile``, slower to import than a hook."""
    import time
    folder, name = os.path.split(os.path.abspath(path))
    for attempt in range(100):
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{time.monotonic_ns()}.{attempt}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp name beside {path}")


def category_dir(memory_root: str, folder: str) -> str | None:
    """``<root>/<folder>`` if it is a real folder inside the store; None for a missing one or a link out of it."""
    path = os.path.join(memory_root, folder)
    return path if is_real_dir(path) else None


def memory_file_stats(memory_root: str, folders):
    """``(folder, name, lstat)`` of every ``*.json`` regular file in the real category ``folders`` (no link)."""
    for folder in folders:
        path = category_dir(memory_root, folder)
        if path is None:
            continue
        try:
            with os.scandir(path) as it:
                for entry in it:
                    if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                        try:
                            yield folder, entry.name, entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
        except OSError:
            continue


def is_temp_file(name: str) -> bool:
    """True for the temp files ``atomic_write_text`` makes (left behind only by a killed writer)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


class store_lock:
    """Hold the store's lock (``blocking=False``: ``LockBusy`` at once if held; ``name``: another lock file)."""

    def __init__(self, memory_root: str, blocking: bool = True, name: str = LOCK_NAME):
        self.memory_root, self.blocking, self.name, self.fd = memory_root, blocking, name, None

    def __enter__(self):
        check_store(self.memory_root)  # never a lock (or a store) created through a link
        os.makedirs(self.memory_root, exist_ok=True)
        folder = os.path.dirname(self.name)
        if folder and not is_real_dir(os.path.join(self.memory_root, folder)):
            raise UnsafePath(f"{folder} is not a real folder; no lock taken in it")
        fd = open_create(os.path.join(self.memory_root, self.name))
        try:
            _lock(fd, self.blocking)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc):
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the lock
        return False


fcntl = msvcrt = None  # the lock's module: fcntl, else msvcrt (Windows), imported on the first lock


def _lock(fd: int, blocking: bool) -> None:
    global fcntl, msvcrt
    if fcntl is None and msvcrt is None:
        try:
            import fcntl
        except ImportError:
            import msvcrt
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        else:  # Windows: one byte locked at offset 0 (the lock file is never written)
            os.lseek(fd, 0, os.SEEK_SET)
            while True:
                try:
                    msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                    break
                except OSError:
                    if not blocking:
                        raise
                    import time
                    time.sleep(0.01)
    except (BlockingIOError, PermissionError, OSError) as exc:
        if not blocking:
            raise LockBusy(str(exc)) from None
        raise
