"""A record's times: ISO 8601 strings read leniently, and when a memory was last written.

``parse_time`` is the one reading of a time field (recency in ranking, the evaluation's clock);
``record_time`` is what the machine cache keeps per memory so the SessionStart orientation
finds the newest memories without opening any file.
"""
from __future__ import annotations

from datetime import datetime, timezone


def parse_time(value) -> datetime | None:
    """An ISO 8601 time (``Z`` allowed, naive taken as UTC); None if it is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def record_time(record: dict) -> float:
    """When ``record`` was last written (``updated_at``, else ``created_at``) as POSIX seconds; 0.0 when neither is a time."""
    when = parse_time(record.get("updated_at")) or parse_time(record.get("created_at"))
    try:
        return when.timestamp() if when else 0.0
    except (OverflowError, ValueError, OSError):
        return 0.0
