"""Memory files read for the derived files: bounded, never through a link, into index entries.

``read_memory_file`` reads one file (a link, a FIFO or a file over ``MAX_MEMORY_BYTES`` is
refused); ``Reader`` turns it into an index entry and the strategy's features, within a deadline.
"""
from __future__ import annotations

import os
import time

from ..base.config import category_enabled, warn
from ..base.model import display_name
from ..base.safefs import open_read
from ..records.store import NotARecord, parse_memory, project_root_of, record_status
from ..records.times import record_time


def _rel_folder(memory_root: str, folder: str) -> str:
    rel = os.path.relpath(os.path.join(memory_root, folder), project_root_of(memory_root))
    return rel.replace(os.sep, "/") + "/"


MAX_MEMORY_BYTES = 1 << 20  # a memory file larger than this is skipped (and reported), never read


class OutOfTime(Exception):
    """The caller's deadline passed before every file was read (the hook's time budget)."""


class TooLarge(OSError):
    pass


def read_memory_file(path: str):
    """``(bytes, stat)`` of one memory file, read with a bound and never through a link.

    Raises ``OSError`` for a link, anything but a regular file (a FIFO is never waited on)
    and ``TooLarge`` for a file over ``MAX_MEMORY_BYTES``.
    """
    fd = open_read(path)  # O_NOFOLLOW, or lstat/fstat where there is none
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000:
            raise OSError("not a regular file")
        if st.st_size > MAX_MEMORY_BYTES:
            raise TooLarge(f"larger than {MAX_MEMORY_BYTES >> 20} MiB ({st.st_size} bytes); not read")
        chunks, total = [], 0
        while total <= MAX_MEMORY_BYTES:
            chunk = os.read(fd, MAX_MEMORY_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_MEMORY_BYTES:  # it grew while we read it
            raise TooLarge(f"larger than {MAX_MEMORY_BYTES >> 20} MiB; not read")
        return b"".join(chunks), st
    finally:
        os.close(fd)


def _skipped(path: str, memory_root: str, exc: Exception) -> None:
    """One stderr line for a memory file recall cannot use; its name and the reason through the exposure rule."""
    from ..records.exposure import shown_message, shown_name
    warn(f"skipped {shown_name(os.path.relpath(path, memory_root))}: {shown_message(exc)}")


class Reader:
    """Turns memory files into index entries, with the tag clean-up memoised.

    ``deadline`` (a ``time.monotonic()`` value): ``read`` raises ``OutOfTime`` once it has passed.
    """

    def __init__(self, memory_root: str, config: dict, strategy, deadline=None):
        from ..records.exposure import name_is_shown, recall_title, shown_tag
        from ..base.sanitize import TITLE_MAX
        self.memory_root, self.config, self.strategy, self.deadline = memory_root, config, strategy, deadline
        self.recall_title, self.title_max = recall_title, TITLE_MAX
        self.shown_tag, self.safe_name = shown_tag, name_is_shown
        self.tags: dict = {}
        self.prefix: dict = {}
        self.related: dict = {}  # memory path -> its related_files entries, for each indexed memory read (filemap)

    def read(self, category: str, folder: str, name: str):
        """``(stamp, (entry, features, time) | None)`` of one file; stamp None when it cannot be read at all.

        The features come from the strategy with the whole record at hand (``smart`` keeps
        the body's tokens); the record itself is not kept, only when it was last written
        (``times.record_time``).
        """
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime()
        path = os.path.join(self.memory_root, folder, name)
        try:
            data, st = read_memory_file(path)
        except TooLarge as exc:  # recorded in the file table (not in the index) until it changes
            _skipped(path, self.memory_root, exc)
            st = _lstat(path)
            return (None if st is None else [st.st_ino, st.st_mtime_ns, st.st_size, -1, st.st_ctime_ns]), None
        except OSError as exc:
            _skipped(path, self.memory_root, exc)
            return None, None
        stamp = [st.st_ino, st.st_mtime_ns, st.st_size, -1, st.st_ctime_ns]
        try:
            record = parse_memory(data)
        except NotARecord as exc:
            _skipped(path, self.memory_root, exc)
            return stamp, None
        if record_status(record) != "active" or not category_enabled(self.config, category):
            return stamp, None
        entry = self.entry(category, folder, name, record)
        if entry is None:
            return stamp, None
        if record.get("related_files"):
            from ..records.relpaths import usable
            entries = usable(record["related_files"])
            if entries:
                self.related[entry["path"]] = entries
        return stamp, (entry, self.strategy.prepare_entry(entry, record), record_time(record))

    def entry(self, category: str, folder: str, name: str, record: dict):
        tags = []
        raw_tags = record.get("tags")
        for tag in raw_tags if isinstance(raw_tags, list) else []:
            if isinstance(tag, str):
                clean = self.tags.get(tag)
                if clean is None:
                    clean = self.tags[tag] = self.shown_tag(tag)  # hidden before it is cleaned
                if clean and clean not in tags:
                    tags.append(clean)
        prefix = self.path_of(folder, "")
        title = self.recall_title(record["title"], self.title_max)
        if not title or not self.safe_name(name):  # a hostile file name is never printed (validate reports it)
            return None
        return {"category": display_name(category), "title": title, "path": prefix + name, "tags": tags}

    def path_of(self, folder: str, name: str) -> str:
        """The index path of the file ``name`` of ``folder`` (``.claude/memory/<folder>/<name>``)."""
        prefix = self.prefix.get(folder)
        if prefix is None:
            prefix = self.prefix[folder] = _rel_folder(self.memory_root, folder)
        return prefix + name


def _lstat(path: str):
    try:
        return os.lstat(path)
    except OSError:
        return None
