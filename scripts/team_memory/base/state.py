"""Per-session runtime state outside the repository (``state_home``; never committed): a folder per store, a JSON file
per ``(kind, session)``, reads loose, writes atomic, old files pruned; and the package's SHA-256.
"""
from __future__ import annotations

import os
import time

from . import fastjson
from .fsutil import atomic_write_text

# CPython's own C SHA-256, not ``hashlib`` (OpenSSL): kept for the prompt hook's budget, hashlib costs it +0.4x.
try:
    from _sha2 import sha256
except ImportError:
    try:
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - other Pythons
        from hashlib import sha256

MAX_AGE_DAYS = 14
MAX_STATE_BYTES = 64 * 1024 * 1024  # a snapshot of 100,000 memories is about 6 MB
# Kinds a later hook takes back (PreToolUse's snapshot): a refused call leaves one, swept after the longest wait.
TAKEN_BACK = {"tool-snapshot": 3600}
SWEEP_LIMIT = 20


def state_home() -> str:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.environ.get("TEAM_MEMORY_STATE_DIR") or os.path.join(base, "team-memory")


def sha256_hex(data: bytes) -> str:
    return sha256(data).hexdigest()


def _key(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "replace"))[:16]


_dirs: dict = {}


def state_dir(memory_root: str) -> str:
    """The state folder of one store (created by ``save_state``); kept per process (a ``realpath`` and a SHA-256)."""
    key = (state_home(), memory_root)
    if key not in _dirs:
        _dirs[key] = os.path.join(key[0], _key(os.path.realpath(memory_root)))
    return _dirs[key]


def state_path(memory_root: str, kind: str, session_id: str) -> str:
    return os.path.join(state_dir(memory_root), f"{kind}-{_key(str(session_id))}.json")


def load_state(memory_root: str, kind: str, session_id: str) -> dict:
    """The saved state, or ``{}`` when there is none or it cannot be read."""
    from .safefs import read_object
    return read_object(state_path(memory_root, kind, session_id), MAX_STATE_BYTES) or {}


def save_state(memory_root: str, kind: str, session_id: str, data: dict) -> None:
    """Replace the state atomically; prune stale state files now and then."""
    folder = state_dir(memory_root)
    os.makedirs(folder, exist_ok=True)
    atomic_write_text(state_path(memory_root, kind, session_id), fastjson.dumps(data), durable=False)
    if kind in TAKEN_BACK:
        prune(folder, TAKEN_BACK[kind] / 86400, prefix=kind + "-", limit=SWEEP_LIMIT)
    if int(time.time()) % 50 == 0:
        prune(folder)


def claim(memory_root: str, kind: str, session_id: str, item: str) -> bool:
    """Mark ``item`` done for ``(kind, session_id)``: True when this call made the (``O_EXCL``) mark."""
    from .safefs import open_create
    os.makedirs(state_dir(memory_root), exist_ok=True)
    try:
        fd = open_create(_claim_path(memory_root, kind, session_id, item), os.O_WRONLY | os.O_EXCL)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def claimed(memory_root: str, kind: str, session_id: str, item: str) -> bool:
    """Whether ``claim`` was made for ``item`` (a link or anything else there counts as made)."""
    return os.path.lexists(_claim_path(memory_root, kind, session_id, item))


def _claim_path(memory_root: str, kind: str, session_id: str, item: str) -> str:
    return os.path.join(state_dir(memory_root), f"{kind}-{_key(str(session_id))}-{_key(item)}")


def prune(folder: str, max_age_days: float = MAX_AGE_DAYS, prefix: str = "", limit: int = 1 << 30, keep=()) -> int:
    """Remove up to ``limit`` files ``prefix...`` of ``folder`` (not in ``keep``) older than ``max_age_days``."""
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if removed >= limit:
                    break
                if not entry.name.startswith(prefix) or entry.name in keep:
                    continue
                try:
                    if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
                        removed += 1
                except OSError:
                    continue
    except OSError:
        pass
    return removed
