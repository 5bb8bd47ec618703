"""Where memories live, how one is read and written (``dump_memory``: deterministic, minimal diffs), its id (a slug
of its title), and its times (``epoch_us``: without ``datetime``, 1 ms a prompt).
"""
from __future__ import annotations

import os

from ..base.config import category_folders, warn
from ..base.safefs import MAX_FILE_BYTES as MAX_MEMORY_BYTES, S_IFREG, is_real_dir, kind_of, read_regular
from ..base.safefs import find_memory_root, folders_up, project_root_of, repo_root_of  # noqa: F401 - found here too


class NotARecord(ValueError):
    """The file parsed, but is not a memory record (or did not parse)."""


def load_memory(path: str) -> dict:
    """Parse one memory file (``read_bytes``, ``parse_memory``)."""
    return parse_memory(read_bytes(path)[0])


read_bytes = read_regular  # ``(bytes, stat)`` of a memory file: regular, no link, at most ``MAX_MEMORY_BYTES``


def parse_memory(data: bytes) -> dict:
    """A memory file's bytes -> its record; ``NotARecord`` if it is not a JSON object with a text title."""
    from ..base import fastjson
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
    """The record with its keys in the canonical order (``recordspec.FIELDS``), unknown keys after, sorted."""
    from .recordspec import FIELDS
    out = {k: record[k] for k in FIELDS if k in record}
    out.update((k, record[k]) for k in sorted(record) if k not in FIELDS)
    return out


def dump_memory(record: dict) -> str:
    """A record as file text: canonical key order, 2-space indent, UTF-8 kept, trailing newline."""
    import json
    return json.dumps(ordered(record), indent=2, ensure_ascii=False) + "\n"


def record_status(record: dict) -> str:
    status = record.get("record_status", "active")
    return status if isinstance(status, str) else "active"


OUTDATED_DECISION = ("deprecated", "superseded")  # a decision that is no longer the team's


def decision_status(record: dict) -> str | None:
    """A decision's ``content.status`` when it is ``proposed``, ``deprecated`` or ``superseded``; else None."""
    content = record.get("content")
    status = content.get("status") if record.get("category") == "decision" and isinstance(content, dict) else None
    return status if status in ("proposed",) + OUTDATED_DECISION else None


def iter_memory_files(memory_root: str, config: dict, only: str | None = None):
    """Yield ``(category, path)`` for every ``*.json`` file in the category folders (or ``only``'s), sorted."""
    from ..base.fsutil import memory_file_stats  # for start-up speed: hooks that list no folder skip fsutil
    for category, folder in category_folders(config).items():
        if only is None or category == only:
            names = sorted(name for _, name, _ in memory_file_stats(memory_root, [folder]) if not name.startswith("."))
            yield from ((category, os.path.join(memory_root, folder, name)) for name in names)


def iter_records(memory_root: str, config: dict, only: str | None = None):
    """Yield ``(category, path, record)`` of every readable record (of ``only``); one stderr line per other."""
    for category, path in iter_memory_files(memory_root, config, only):
        try:
            record = load_memory(path)
        except (NotARecord, OSError) as exc:
            warn_skipped(path, memory_root, exc)
            continue
        yield category, path, record


def warn_skipped(path: str, memory_root: str, exc: Exception) -> None:
    """One stderr line for a memory file that cannot be used (its name and the reason through the exposure rule)."""
    from .exposure import shown_message, shown_name
    warn(f"skipped {shown_name(os.path.relpath(path, memory_root))}: {shown_message(exc)}")


def memory_path(memory_root: str, config: dict, category: str, memory_id: str) -> str:
    return os.path.join(memory_root, category_folders(config)[category], f"{memory_id}.json")


def find_memory(memory_root: str, config: dict, memory_id: str):
    """``(category, path)`` of an id (first folder wins), ``category/id``, ``folder/id`` or file path; or None."""
    if not isinstance(memory_id, str) or "\x00" in memory_id:
        return None
    folders = category_folders(config)
    if "/" in memory_id or "\\" in memory_id or memory_id.endswith(".json"):
        return _find_by_reference(memory_root, folders, memory_id)
    if not memory_id or memory_id.startswith("."):  # a file in a category folder: not hidden, not empty
        return None
    found = (_regular_in(memory_root, folder, f"{memory_id}.json") for folder in folders.values())
    return next(((c, path) for c, path in zip(folders, found) if path), None)


def _regular_in(memory_root: str, folder: str, name: str):
    """``folder/name`` when the folder is real and the file regular, else None (a link never shadows)."""
    path = os.path.join(memory_root, folder, name)
    return path if is_real_dir(os.path.dirname(path)) and kind_of(path) == S_IFREG else None


def _find_by_reference(memory_root: str, folders: dict, ref: str):
    """``category/id``, ``folder/id`` or a path to a memory file directly inside this store's folders."""
    parts = ref.replace("\\", "/").split("/")
    name = parts[-1][:-5] if parts[-1].endswith(".json") else parts[-1]
    if len(parts) < 2 or not name or name.startswith("."):
        return None
    folder = folders.get(parts[0]) or (parts[0] if parts[0] in folders.values() else None) if len(parts) == 2 else None
    for base in (os.getcwd(), project_root_of(memory_root)) if folder is None else ():
        # a path: its folder must be one of this store's category folders (an absolute path stays one)
        there = os.path.dirname(os.path.join(base, "/".join(parts)))
        try:
            inside = os.path.samefile(os.path.dirname(there), memory_root)
        except OSError:
            continue
        if inside and os.path.basename(there) in folders.values():
            folder = os.path.basename(there)
            break
    path = _regular_in(memory_root, folder, f"{name}.json") if folder else None
    return (next(c for c, f in folders.items() if f == folder), path) if path else None


DAY_US = 86_400_000_000
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def iso_datetime(value, separators: str = "Tt "):
    """``YYYY-MM-DD<sep>HH:MM[:SS[.f]]`` with an optional ``Z`` or ``±HH[:MM]`` zone (naive without), else None."""
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
    """``(year, month, day, hour, minute, second, microsecond, zone "Z" | minutes east | None)`` or None."""
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
    numbers += [] if len(pieces) == 3 else ["0"]  # no seconds: 0
    return (*map(int, numbers), int((fraction + "000000")[:6]) if dot else 0, zone)


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
    from datetime import datetime, timedelta, timezone
    return (now - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(microseconds=1)


def parse_time(value):
    """An ISO 8601 time (``Z`` allowed, naive taken as UTC) as an aware ``datetime``; None if it is not one."""
    dt = iso_datetime(value)
    if dt is None or dt.tzinfo:
        return dt
    from datetime import timezone
    return dt.replace(tzinfo=timezone.utc)


def record_time(record: dict) -> float:
    """When ``record`` was last written (``updated_at``, else ``created_at``) as POSIX seconds, else 0.0."""
    when = epoch_us(record.get("updated_at"))
    when = epoch_us(record.get("created_at")) if when is None else when
    return when / 1_000_000 if when is not None else 0.0  # correctly rounded, as ``datetime.timestamp``


SLUG_MAX_CHARS = 60  # ASCII: well within a file name's 255 bytes, with room for suffixes and temp names


def slugify(title: str) -> str:
    """A lowercase, hyphenated id from ``title`` (``Café`` -> ``cafe``); never empty."""
    import unicodedata  # (a C module: only a new memory needs it)
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", title or "")).lower()
    # accents (marks) go, every character but an ASCII letter or digit separates words
    chars = [ch if ch.isascii() and ch.isalnum() else "-" for ch in text if unicodedata.category(ch)[0] != "M"]
    slug = "-".join(part for part in "".join(chars).split("-") if part)  # one "-" between words
    if len(slug) > SLUG_MAX_CHARS:
        slug = slug[:SLUG_MAX_CHARS]
        if "-" in slug[SLUG_MAX_CHARS // 2:]:  # cut at a word boundary when one is near the end
            slug = slug[: slug.rindex("-")]
    if slug.strip("-"):
        return slug.strip("-")
    from ..base.state import sha256_hex
    return "memory-" + sha256_hex((title or "").encode("utf-8", "replace"))[:8]


def id_taken(memory_root: str, config: dict, memory_id: str) -> bool:
    """True if any category folder already holds ``<memory_id>.json``."""
    return any(os.path.lexists(os.path.join(memory_root, folder, f"{memory_id}.json"))
               for folder in category_folders(config).values())


def unique_id(memory_root: str, config: dict, base: str, planned=()) -> str:
    """``base``, ``base-2``, ``base-3``...: the first free in the store and not in ``planned`` (under the lock)."""
    memory_id, n = base, 1
    while memory_id in planned or id_taken(memory_root, config, memory_id):
        n += 1
        memory_id = f"{base}-{n}"
    return memory_id
