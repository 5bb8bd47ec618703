"""Recall by file: the memories whose ``related_files`` name a file a tool call just touched.

The PostToolUse hook looks the paths up in the file map (``derived.filemap.lookup``); ``recall_found``
reads each memory named to be sure it is active and still names that file, and shows at most
``MAX_LINES`` of them in ``MAX_CHARS``, each once per session (``dedupe``).
"""
from __future__ import annotations

import os

MAX_LINES = 3
MAX_CHARS = 1000
MAX_CHECKED = 12  # memory files read to confirm what the map says


class _Hit:
    """What ``block.format_block`` reads of a hit: its entry, record and parts."""

    def __init__(self, entry: dict):
        self.entry, self.record, self.parts = entry, None, {}


def recall_found(session: str, memory_root: str, found: list):
    """The PostToolUse output for ``found`` (``derived.filemap.lookup``: ``[(file, memory path)]``), or None."""
    from ..base.state import claim, claimed
    from .dedupe import FILE_KIND, SEEN_KIND, note_shown
    done = {rel for rel, _ in found if claimed(memory_root, FILE_KIND, session, rel)}  # its memories shown
    found = [(rel, memory) for rel, memory in found
             if rel not in done and not claimed(memory_root, SEEN_KIND, session, memory)]
    if not found:
        return None  # all shown already: nothing more is read
    from ..base.config import load_config, retrieval_enabled
    config = load_config(memory_root)
    if not retrieval_enabled(config):
        return None
    hits, files = [], []
    for rel, memory in found[:MAX_CHECKED]:
        if len(hits) == MAX_LINES:
            break
        got = _confirmed(memory_root, config, memory, rel)
        try:
            if got is None or not claim(memory_root, SEEN_KIND, session, memory):  # another hook showed it
                continue
        except OSError:  # no state can be kept: showing it anyway would repeat it at every call
            continue
        hits.append(got)
        if rel not in files:
            files.append(rel)
    if not hits:
        return None
    try:
        for rel in files:
            claim(memory_root, FILE_KIND, session, rel)
        note_shown(memory_root, session, [entry["path"] for entry, _ in hits])
    except OSError:
        pass  # the prompt hook's window is a nicety; the mark above already keeps this hook from repeating
    from ..derived.drift import marks_for  # a stale memory says so, as in the prompt hook's block
    marks = marks_for(memory_root, [(entry["path"], record) for entry, record in hits])
    block = file_block([entry for entry, _ in hits], config, files, marks)
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": block}} if block else None


def _confirmed(memory_root: str, config: dict, memory: str, rel: str):
    """``(index entry, record)`` of the memory at ``memory`` if it is active and still names ``rel`` (the map may
    be forged: only a file of a category folder of this store, never a link)."""
    from ..base.config import category_enabled, category_folders
    from ..base.safefs import is_real_dir, read_regular
    from ..derived.index import entry_from_record
    from ..records.exposure import name_is_shown
    from ..records.relpaths import matches, usable
    from ..records.store import MAX_MEMORY_BYTES, NotARecord, parse_memory, project_root_of, record_status
    prefix = os.path.relpath(memory_root, project_root_of(memory_root)).replace(os.sep, "/") + "/"
    if not memory.startswith(prefix):
        return None
    folder, _, name = memory[len(prefix):].partition("/")
    category = {f: c for c, f in category_folders(config).items()}.get(folder)
    if category is None or not category_enabled(config, category) or "/" in name or not name.endswith(".json") \
            or not name_is_shown(name) or name.startswith("."):
        return None
    folder_path = os.path.join(memory_root, folder)
    if not is_real_dir(folder_path):
        return None
    path = os.path.join(folder_path, name)
    try:
        record = parse_memory(read_regular(path, MAX_MEMORY_BYTES)[0])
    except (OSError, NotARecord):
        return None
    if record_status(record) != "active" or not any(matches(e, rel) for e in usable(record.get("related_files"))):
        return None
    entry = entry_from_record(memory_root, category, path, record)
    return (entry, record) if entry["title"] else None


def file_block(entries: list, config: dict, files: list, marks: dict | None = None) -> str:
    """The block for ``entries`` (index entries): a note naming ``files``, a line each as the prompt hook prints it."""
    from ..base.sanitize import block_text
    from ..records.hookio import DATA_NOTE
    from .block import format_block
    hits = [_Hit(entry) for entry in entries[:MAX_LINES]]
    named = ", ".join(block_text(f, 120) for f in files[:2]) + (", ..." if len(files) > 2 else "")
    note = f"{DATA_NOTE} These memories name {named} (related files), which the last tool call touched."
    return format_block(hits, config, MAX_CHARS, 0, marks, note)
