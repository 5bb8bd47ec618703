"""Memory files read for the derived files (bounded, never through a link) into index items."""
from __future__ import annotations

import os

from ..base.config import category_enabled, warn
from ..base.model import display_name
from ..base.safefs import S_IFMT, S_IFREG, read_regular
from ..records.exposure import name_is_shown, shown_message, shown_name
from ..records.store import NotARecord, parse_memory, project_root_of, record_status, record_time
from .index import entry_from_record

MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is skipped (and reported), never read


def _skipped(path: str, memory_root: str, exc: Exception) -> None:
    """One stderr line for a memory file recall cannot use (its name and the reason through the exposure rule)."""
    warn(f"skipped {shown_name(os.path.relpath(path, memory_root))}: {shown_message(exc)}")


class Reader:
    """Turns memory files into index items ``[entry, time, tokens, related]``."""

    def __init__(self, memory_root: str, config: dict, features):
        self.memory_root, self.config, self.features = memory_root, config, features
        self.prefix: dict = {}

    def read(self, category: str, folder: str, name: str):
        """``(stamp, item | None)`` of one file; the stamp None when it cannot be read at all."""
        path = os.path.join(self.memory_root, folder, name)
        try:  # never through a link, never a FIFO, bounded
            data, st = read_regular(path, MAX_MEMORY_BYTES)
        except OSError as exc:
            _skipped(path, self.memory_root, exc)
            try:  # one too large is recorded in the file table (not in the index) until it changes
                st = os.lstat(path)
            except OSError:
                return None, None
            too_large = st.st_mode & S_IFMT == S_IFREG and st.st_size > MAX_MEMORY_BYTES
            return (_stamp(st) if too_large else None), None
        try:
            record = parse_memory(data)
        except NotARecord as exc:
            _skipped(path, self.memory_root, exc)
            return _stamp(st), None
        if record_status(record) != "active" or not category_enabled(self.config, category):
            return _stamp(st), None
        entry = entry_from_record(self.memory_root, category, path, record)
        if not entry["title"] or not name_is_shown(name):  # a hostile file name is never printed (validate reports it)
            return _stamp(st), None
        related = []
        if record.get("related_files"):
            from ..records.relpaths import usable
            related = usable(record["related_files"])
        return _stamp(st), [entry, record_time(record), self.features.prepare_entry(entry, record), related]

    def reused(self, category: str, folder: str, name: str, item: list) -> list:
        """The item of an unchanged file from ``Index.item``, its path and category from where the file is."""
        entry = {"category": display_name(category), "title": item[1], "path": self.path_of(folder, name),
                 "tags": item[3]}
        return [entry, item[4], [item[5], item[6], item[7]], [e for e in item[8] if isinstance(e, str)]]

    def path_of(self, folder: str, name: str) -> str:
        """The index path of the file ``name`` of ``folder`` (``.claude/memory/<folder>/<name>``)."""
        prefix = self.prefix.get(folder)
        if prefix is None:
            rel = os.path.relpath(os.path.join(self.memory_root, folder), project_root_of(self.memory_root))
            prefix = self.prefix[folder] = rel.replace(os.sep, "/") + "/"
        return prefix + name


def _stamp(st) -> tuple:
    """What tells versions apart: an in-place rewrite can keep inode, size and mtime, never the ctime."""
    return st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns
