"""``gc``: delete memories retired longer ago than ``delete.grace_period_days`` (default 30).

A retired memory is kept for the grace period so ``restore`` can bring it back; after
that ``purge_retired`` deletes its file under the store lock and rewrites the index.
Memories whose ``retired_at`` is missing or unreadable are never deleted. Git history
keeps every deleted file.
"""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

from ..base.config import int_setting
from ..records.exposure import hide
from ..base.fsutil import store_lock
from ..derived.refresh import apply_changes
from ..records.store import iter_records, project_root_of, record_status
from ..records.validate import parse_iso

GRACE_DEFAULT = 30
GRACE_MAX = 36_500


def grace_days(config: dict) -> int:
    return int_setting(config, "delete", "grace_period_days", GRACE_DEFAULT, 0, GRACE_MAX)


def due(memory_root: str, config: dict, now: datetime | None = None) -> list:
    """``[{id, category, path, retired_at, days}]`` of retired memories past the grace period."""
    now = now or datetime.now(timezone.utc)
    cutoff = now - timedelta(days=grace_days(config))
    out = []
    for category, path, record in iter_records(memory_root, config):
        retired_at = parse_iso(record.get("retired_at"))
        if record_status(record) == "retired" and retired_at is not None and retired_at <= cutoff:
            out.append({"id": os.path.basename(path)[:-5], "category": category, "title": hide(record["title"]),
                        "path": os.path.relpath(path, project_root_of(memory_root)).replace(os.sep, "/"),
                        "retired_at": record["retired_at"], "days": (now - retired_at).days})
    return out


def purge_retired(memory_root: str, config: dict, *, dry_run: bool = False, now: datetime | None = None) -> list:
    """Delete (or, with ``dry_run``, only list) the memories ``due`` returns; rewrite the index."""
    if dry_run:
        return due(memory_root, config, now)
    with store_lock(memory_root):
        gone = due(memory_root, config, now)  # read again under the lock: a restore may have won
        removed = []
        for item in gone:
            path = os.path.join(project_root_of(memory_root), item["path"])
            removed.append(path)
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        if gone:
            apply_changes(memory_root, config)
    return gone
