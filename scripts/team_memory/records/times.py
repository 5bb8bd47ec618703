"""A record's times: ISO 8601 strings read leniently, and when a memory was last written.

``parse_time`` is the one reading of a time field; ``epoch_us`` its instant as an integer, so the prompt hook's
recency test imports no ``datetime`` (about 1 ms of its start); ``record_time`` is what the cache keeps.
"""
from __future__ import annotations

DAY_US = 86_400_000_000
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def iso_datetime(value, separators: str = "Tt "):
    """``YYYY-MM-DD<sep>HH:MM[:SS[.fraction]]`` with an optional ``Z`` or ``±HH[:MM]`` zone (``,`` for ``.``),
    naive without one; None otherwise. Not ``fromisoformat``, whose grammar grew in 3.11."""
    fields = _fields(value, separators)
    if fields is None:
        return None
    from datetime import datetime, timedelta, timezone
    *numbers, offset = fields
    zone = None if offset is None else timezone.utc if offset == "Z" else timezone(timedelta(minutes=offset))
    try:
        return datetime(*numbers, tzinfo=zone)
    except ValueError:
        return None


def _fields(value, separators: str):
    """``(year, month, day, hour, minute, second, microsecond, zone)`` as written (zone ``"Z"``, minutes east
    of UTC or None); None when the text is not that form."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) < 16 or text[10] not in separators or not text.isascii():
        return None
    day, rest, zone = text[:10], text[11:], None
    if rest[-1:] in ("Z", "z"):
        rest, zone = rest[:-1], "Z"
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
    return year, month, date_, hour, minute, second, int((fraction + "000000")[:6]) if dot else 0, zone


def _zone(text: str):
    """``+HH``, ``+HHMM`` or ``+HH:MM`` (or ``-``) as minutes east of UTC; None otherwise."""
    digits = text[1:].replace(":", "", 1) if text[3:4] == ":" else text[1:]
    if len(digits) not in (2, 4) or not digits.isdigit():
        return None
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        return None
    offset = hours * 60 + minutes
    return -offset if text[0] == "-" else offset


def epoch_us(value):
    """``parse_time(value)`` as microseconds since 1970-01-01 UTC (None exactly when it is), without ``datetime``."""
    fields = _fields(value, "Tt ")
    if fields is None:
        return None
    year, month, day, hour, minute, second, micro, zone = fields
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if (not 1 <= year <= 9999 or not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59
            or not 1 <= day <= _MONTH_DAYS[month - 1] + (month == 2 and leap)):
        return None  # what the ``datetime`` constructor refuses
    y = year - (month <= 2)  # days from 1970-01-01 in the proleptic Gregorian calendar
    era, yoe = divmod(y, 400)
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    offset = 0 if zone is None or zone == "Z" else zone
    return ((days * 24 + hour) * 60 + minute - offset) * 60_000_000 + second * 1_000_000 + micro


def now_us(now=None) -> int:
    """The clock in ``epoch_us`` units: ``now`` (an aware ``datetime``, the evaluation's clock) or the time."""
    if now is None:
        import time
        return time.time_ns() // 1000
    from datetime import datetime, timezone
    delta = now - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def parse_time(value):
    """An ISO 8601 time (``Z`` allowed, naive taken as UTC) as an aware ``datetime``; None if it is not one."""
    dt = iso_datetime(value)
    if dt is None:
        return None
    from datetime import timezone
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def record_time(record: dict) -> float:
    """When ``record`` was last written (``updated_at``, else ``created_at``) as POSIX seconds, else 0.0."""
    when = epoch_us(record.get("updated_at"))
    if when is None:
        when = epoch_us(record.get("created_at"))
    return when / 1_000_000 if when is not None else 0.0  # correctly rounded, as ``datetime.timestamp``
