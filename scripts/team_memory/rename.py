"""Giving a memory file a new id: how ``doctor --fix`` separates two files that share one id.

``rename_copy(memory_root, config, path)`` (under the store lock) writes the record under the first
free ``<id>-2``, ``<id>-3``... in the same folder, with its ``id`` field to match and a line in its
``changes``, and only then removes the old file; nothing happens when the record does not parse or
would not validate under its new name.
"""
from __future__ import annotations

import os

from .ids import unique_id
from .store import NotARecord, load_memory
from .validate import validate_record


def rename_copy(memory_root: str, config: dict, path: str, category: str) -> str | None:
    """The new path of the memory at ``path`` after giving it a free id; None when it cannot be done safely."""
    from .write import _add_change, _write_record, now_iso
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    try:
        record = load_memory(path)
    except (NotARecord, OSError):
        return None
    old_id = os.path.basename(path)[:-5]
    new_id = unique_id(memory_root, config, old_id)
    new_path = os.path.join(os.path.dirname(path), f"{new_id}.json")
    renamed = dict(record, id=new_id)
    _add_change(renamed, f"doctor: renamed from {old_id} (the id was used in two folders)", now_iso())
    if new_id == old_id or os.path.lexists(new_path) or validate_record(renamed, folder_category=category, file_id=new_id):
        return None
    _write_record(new_path, renamed)
    os.unlink(path)
    return new_path
