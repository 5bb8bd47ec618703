"""Where Claude Code keeps a project's auto memory, as the 2.1.330 client names it.

``auto_memory_folder(project)`` is ``<config dir>/projects/<key>/memory/``: the config dir is
``$CLAUDE_CONFIG_DIR`` or ``~/.claude``; the key is the project's path (the repository root) with every
character but ASCII letters and digits as ``-``, and a key over 200 characters is cut there and given the
client's short hash of the path. Seen in the client's own system prompt ("You have a persistent
file-based memory at ``.../projects/-tmp-app/memory/``").
"""
from __future__ import annotations

import os

MAX_AUTO_FILES = 200


def config_dir() -> str:
    """Claude Code's own folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    return os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def _java_hash36(text: str) -> str:
    """The client's short hash of a long path: a 32-bit string hash over UTF-16 units, base 36."""
    h = 0
    for unit in _utf16_units(text):
        h = (h * 31 + unit) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    n, digits = abs(h), "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def _utf16_units(text: str):
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        yield data[i] | (data[i + 1] << 8)


def project_key(project: str) -> str:
    """The folder name Claude Code gives a project under ``projects/``."""
    key = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in project)
    return key if len(key) <= 200 else f"{key[:200]}-{_java_hash36(project)}"


def auto_memory_folder(project: str) -> str:
    return os.path.join(config_dir(), "projects", project_key(project), "memory")


def auto_memory_files(folder: str) -> list:
    """``MEMORY.md`` first, then the other ``.md`` files, by name; regular files only."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    files = [n for n in names if n.lower().endswith(".md") and not n.startswith(".")]
    files.sort(key=lambda n: (n != "MEMORY.md", n))
    return [os.path.join(folder, n) for n in files[:MAX_AUTO_FILES]]
