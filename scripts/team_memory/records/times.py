"""A record's times: ISO 8601 strings read leniently, and when a memory was last written.

``parse_time`` is the one reading of a time field (recency in ranking, the evaluation's clock);
``record_time`` is what the machine cache keeps per memory so the SessionStart orientation
finds the newest memories without opening any file.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone


def iso_datetime(value, separators: str = "Tt ") -> datetime | None:
    """``YYYY-MM-DD<sep>HH:MM[:SS[.fraction]]`` with an optional ``Z`` or ``+HH[:MM]``/``-HH[:MM]``
    zone (``,`` may stand for the ``.``; any number of fraction digits); None if it is not that.

    Written out rather than ``datetime.fromisoformat``, whose grammar grew in Python 3.11: a
    memory's time must read the same on every teammate's Python (3.9's refuses ``.5`` and
    ``+0000``, 3.11's accepts both). Naive when no zone is given.
    """
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) < 16 or text[10] not in separators or not text.isascii():
        return None
    day, rest, zone = text[:10], text[11:], None
    if rest[-1:] in ("Z", "z"):
        rest, zone = rest[:-1], timezone.utc
    else:
        cut = max(rest.rfind("+"), rest.rfind("-"))
        if cut >= 0:
            rest, zone = rest[:cut], _zone(rest[cut:])
            if zone is None:
                return None
    clock, dot, fraction = rest.replace(",", ".").partition(".")
    pieces = clock.split(":")
    numbers = day.split("-") + pieces
    if (len(pieces) not in (2, 3) or [len(p) for p in day.split("-")] != [4, 2, 2]
            or any(len(p) != 2 for p in pieces) or not all(p.isdigit() for p in numbers)
            or (dot and not fraction.isdigit())):
        return None
    year, month, date_, hour, minute = (int(p) for p in numbers[:5])
    second = int(numbers[5]) if len(pieces) == 3 else 0
    try:
        return datetime(year, month, date_, hour, minute, second, int((fraction + "000000")[:6]) if dot else 0,
                        tzinfo=zone)
    except ValueError:
        return None


def _zone(text: str):
    """``+HH``, ``+HHMM`` or ``+HH:MM`` (or ``-``) as a timezone; None otherwise."""
    digits = text[1:].replace(":", "", 1) if text[3:4] == ":" else text[1:]
    if len(digits) not in (2, 4) or not digits.isdigit():
        return None
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        return None
    offset = timedelta(hours=hours, minutes=minutes)
    return timezone(-offset if text[0] == "-" else offset)


def parse_time(value) -> datetime | None:
    """An ISO 8601 time (``Z`` allowed, naive taken as UTC); None if it is not one."""
    dt = iso_datetime(value)
    if dt is None:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def record_time(record: dict) -> float:
    """When ``record`` was last written (``updated_at``, else ``created_at``) as POSIX seconds; 0.0 when neither is a time."""
    when = parse_time(record.get("updated_at")) or parse_time(record.get("created_at"))
    try:
        return when.timestamp() if when else 0.0
    except (OverflowError, ValueError, OSError):
        return 0.0
