"""Where memories live and how one is read and written as text.

A store is ``<project>/.claude/memory/``: one JSON file per memory in its
category folder, ``memory-config.json``, and the derived ``index.md``.
``load_memory``/``dump_memory`` are the ``json``-like pair for one record;
``dump_memory`` is deterministic (fixed key order, 2-space indent, trailing
newline) so pull-request diffs stay minimal. ``iter_records`` is the tolerant
reader: a file that is not valid JSON or not a record is skipped with one
stderr line and never stops the caller.
"""
from __future__ import annotations

import os

from .config import category_folders, warn
from .fsutil import category_dir, is_temp_file
from .model import MEMORY_REL
from .safefs import MAX_FILE_BYTES as MAX_MEMORY_BYTES, S_IFMT, S_IFREG, check_store, read_regular

# The order keys are written in; unknown keys follow, sorted.
KEY_ORDER = (
    "$schema", "schema_version", "category", "id", "title", "created_at", "updated_at",
    "tags", "related_files", "confidence", "record_status", "content", "changes",
    "times_updated", "retired_at", "retired_reason", "archived_at", "archived_reason",
)


class NotARecord(ValueError):
    """The file parsed, but is not a memory record (or did not parse)."""


def find_memory_root(start: str | None = None) -> str | None:
    """The nearest ``.claude/memory`` folder at or above ``start``, not above the repository root.

    The walk starts from ``start``'s real path, so a linked folder in the working tree cannot
    lead it elsewhere; a store reached through a link (``.claude`` or ``.claude/memory``) raises
    ``safefs.UnsafeStore`` rather than being used (see ``safefs``).
    """
    start = os.path.realpath(start or os.getcwd())
    here = start
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    home = os.path.realpath(os.path.expanduser("~"))
    while True:
        candidate = os.path.join(here, *MEMORY_REL)
        # ~/.claude is Claude Code's own settings folder: only a store when we start there.
        if os.path.lexists(candidate) and (here != home or here == start):
            return check_store(candidate)
        if os.path.exists(os.path.join(here, ".git")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def project_root_of(memory_root: str) -> str:
    """``<project>/.claude/memory`` -> ``<project>``."""
    return os.path.dirname(os.path.dirname(os.path.abspath(memory_root)))


def load_memory(path: str) -> dict:
    """Parse one memory file; ``NotARecord`` if it is not a JSON object with a text title.

    Never through a link, never a FIFO or device, never more than ``MAX_MEMORY_BYTES``
    (``safefs.UnsafePath``, an ``OSError``).
    """
    return parse_memory(read_bytes(path)[0])


def read_bytes(path: str):
    """``(bytes, stat)`` of a memory file: a regular file, not a link, at most ``MAX_MEMORY_BYTES``."""
    return read_regular(path, MAX_MEMORY_BYTES)


def parse_memory(data: bytes) -> dict:
    """A memory file's bytes -> its record; ``NotARecord`` if it is not a JSON object with a text title."""
    from . import fastjson
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotARecord(f"not UTF-8 text ({exc.reason})") from None
    try:
        data = fastjson.loads(text)
    except ValueError:
        import json
        try:  # the same parser: json.loads fails too, and its message names the spot
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise NotARecord(f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise NotARecord("not a JSON object")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise NotARecord("no title")
    return data


def ordered(record: dict) -> dict:
    """The record with its keys in the canonical order."""
    out = {k: record[k] for k in KEY_ORDER if k in record}
    for k in sorted(record):
        if k not in out:
            out[k] = record[k]
    return out


def dump_memory(record: dict) -> str:
    """A record as file text: canonical key order, 2-space indent, UTF-8 kept, trailing newline."""
    import json
    return json.dumps(ordered(record), indent=2, ensure_ascii=False) + "\n"


def record_status(record: dict) -> str:
    status = record.get("record_status", "active")
    return status if isinstance(status, str) else "active"


def iter_memory_files(memory_root: str, config: dict, only: str | None = None):
    """Yield ``(category, path)`` for every ``*.json`` file in the category folders (or ``only``'s), sorted."""
    from .fsutil import is_temp_file
    for category, folder in category_folders(config).items():
        if only is not None and category != only:
            continue
        folder_path = category_dir(memory_root, folder)  # a folder linked out of the store is never read
        if folder_path is None:
            continue
        try:
            names = sorted(os.listdir(folder_path))
        except OSError:
            continue
        for name in names:
            if name.endswith(".json") and not name.startswith(".") and not is_temp_file(name):
                path = os.path.join(folder_path, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    yield category, path


def iter_records(memory_root: str, config: dict, only: str | None = None):
    """Yield ``(category, path, record)`` for every readable record (of category ``only``, when given);
    skip the rest with one stderr line."""
    for category, path in iter_memory_files(memory_root, config, only):
        try:
            record = load_memory(path)
        except (NotARecord, OSError) as exc:
            warn(f"skipped {os.path.relpath(path, memory_root)}: {exc}")
            continue
        yield category, path, record


def memory_path(memory_root: str, config: dict, category: str, memory_id: str) -> str:
    return os.path.join(memory_root, category_folders(config)[category], f"{memory_id}.json")


def find_memory(memory_root: str, config: dict, memory_id: str):
    """``(category, path)`` of the memory with this id, or None."""
    if not valid_id_shape(memory_id):
        return None
    for category, folder in category_folders(config).items():
        folder_path = category_dir(memory_root, folder)  # a linked folder or file never shadows a real one
        if folder_path is None:
            continue
        path = os.path.join(folder_path, f"{memory_id}.json")
        try:
            regular = os.lstat(path).st_mode & S_IFMT == S_IFREG
        except OSError:
            continue
        if regular:
            return category, path
    return None


def valid_id_shape(memory_id: str) -> bool:
    """An id names a file in a category folder: no path separators, not hidden, not empty."""
    return bool(memory_id) and "/" not in memory_id and "\\" not in memory_id and not memory_id.startswith(".") and "\x00" not in memory_id
