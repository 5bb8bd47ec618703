"""Strict validation of memory records and files: every ``Problem`` (field, what is wrong, how to fix it)."""
from __future__ import annotations

import json
import os
import re
from collections import namedtuple
from datetime import datetime

from ..base.config import category_folders, load_config
from ..base.model import CATEGORIES, SCHEMA_VERSION, STATUSES
from .privacy import UNCLOSED, field_name, leaks
from .recordspec import (CONTENT, FIELDS, ISO_EXAMPLE, MAX_CHANGES, MAX_ID_CHARS, MAX_ITEMS, MAX_TAGS, MAX_TAG_CHARS,
                         MAX_TEXT, TOP_REQUIRED)
from .redact import secret_kinds
from ..base.sanitize import TITLE_MAX, clean_line, clean_tag
from .store import NotARecord, find_memory_root, iso_datetime, load_memory, project_root_of, read_bytes

Problem = namedtuple("Problem", "field message hint")
# The one id (and so file-name) rule: an ASCII slug, lowercase letters and digits joined by "-" or "_".
_ID_RULE = re.compile(r"[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?")  # fullmatch


class ValidationError(ValueError):
    """A record failed validation; ``problems`` lists every reason."""

    def __init__(self, problems, where: str = "record"):
        self.problems = list(problems)
        self.where = where
        super().__init__(f"{where} is invalid: " + "; ".join(f"{p.field}: {p.message}" for p in self.problems))


def parse_iso(value) -> datetime | None:
    """A timezone-aware ISO 8601 date-time (``Z`` allowed); None if it is not one."""
    dt = iso_datetime(value, separators="Tt")
    return dt if dt is not None and dt.tzinfo is not None else None


def is_date(value) -> bool:
    """``parse_iso``'s date-time, or a bare ``YYYY-MM-DD`` date (read as its midnight, as every Python reads it)."""
    return parse_iso(value) is not None or (isinstance(value, str) and len(value) == 10
                                            and iso_datetime(value + "T00:00", "T") is not None)


def type_name(value) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _check(spec, value, field: str, out: list) -> None:
    """Append the problems of ``value`` against ``spec`` to ``out``."""
    kind = spec if isinstance(spec, str) else spec[0]
    if kind in ("text", "text?"):
        if not isinstance(value, str):
            out.append(Problem(field, f"must be text, not {type_name(value)}", 'write it as a JSON string: "..."'))
        elif kind == "text" and not value.strip():
            out.append(Problem(field, "must not be empty", "write a short sentence"))
        elif len(value) > MAX_TEXT:
            out.append(Problem(field, f"is {len(value)} characters long (at most {MAX_TEXT})", "shorten it"))
    elif kind == "bool":
        if not isinstance(value, bool):
            out.append(Problem(field, f"must be true or false, not {type_name(value)}", "use true or false (no quotes)"))
    elif kind == "date":
        if not is_date(value):
            out.append(Problem(field, f"is not an ISO 8601 date: {shown(value)}", f"use 2026-12-31 or {ISO_EXAMPLE}"))
    elif kind == "enum":
        if value not in spec[1]:
            out.append(Problem(field, f"must be one of {', '.join(spec[1])}, not {shown(value)}",
                               f"pick one of: {', '.join(spec[1])}"))
    elif kind == "list":
        _, item_spec, min_items = spec
        if not isinstance(value, list):
            out.append(Problem(field, f"must be a list, not {type_name(value)}", 'write a JSON list: ["..."]'))
            return
        if len(value) < min_items:
            out.append(Problem(field, f"needs at least {min_items} item(s)", "add at least one entry"))
        if len(value) > MAX_ITEMS:
            out.append(Problem(field, f"has {len(value)} items (at most {MAX_ITEMS})", "keep the important ones"))
        for i, item in enumerate(value[:MAX_ITEMS]):
            _check(item_spec, item, f"{field}[{i}]", out)
    elif kind == "object":
        _check_object(spec[1], value, field, out)


def _check_object(fields: dict, value, field: str, out: list) -> None:
    if not isinstance(value, dict):
        out.append(Problem(field, f"must be an object, not {type_name(value)}", "write a JSON object: {...}"))
        return
    prefix = f"{field}." if field else ""
    for name, (spec, required) in fields.items():
        if name in value:
            _check(spec, value[name], prefix + name, out)
        elif required:
            out.append(Problem(prefix + name, "is required", f"add {name!r} ({_describe(spec)})"))
    out += [Problem(prefix + field_name(name), "is not a known field", f"remove it; allowed here: {', '.join(fields)}")
            for name in value if name not in fields]


def _describe(spec) -> str:
    kind = spec if isinstance(spec, str) else spec[0]
    if kind == "enum":
        return "one of " + "|".join(spec[1])
    if kind == "list":
        return "a list of " + ("text" if spec[1] == "text" else "objects")
    return {"text": "text", "bool": "true/false", "date": "an ISO 8601 date", "object": "an object"}.get(kind, kind)


def id_problem(memory_id) -> str | None:
    """Why ``memory_id`` cannot name a memory file, or None if it can."""
    if not isinstance(memory_id, str) or not memory_id:
        return "must be non-empty text"
    if len(memory_id) > MAX_ID_CHARS:
        return f"is longer than {MAX_ID_CHARS} characters"
    if not memory_id.isascii() or not _ID_RULE.fullmatch(memory_id):
        return "must be an ASCII slug: lowercase letters and digits joined by '-' or '_'"
    kinds = secret_kinds(memory_id)
    return f"looks like a secret ({', '.join(kinds)})" if kinds else None


def shown(value, limit: int = 60) -> str:
    """A value as quoted in a message: one safe line, secrets and private text hidden, cut short."""
    from .exposure import shown_text
    return repr(shown_text(value, limit))


def _check_tags(tags, out: list) -> None:
    from .exposure import shown_tag
    if not isinstance(tags, list):
        out.append(Problem("tags", f"must be a list, not {type_name(tags)}", 'write ["tag1", "tag2"]'))
        return
    if not 1 <= len(tags) <= MAX_TAGS:
        out.append(Problem("tags", f"has {len(tags)} tags (1 to {MAX_TAGS} allowed)",
                           "add a tag" if not tags else "keep the most specific ones"))
    seen = set()
    for i, tag in enumerate(tags):
        field = f"tags[{i}]"
        if not isinstance(tag, str):
            out.append(Problem(field, f"must be text, not {type_name(tag)}", "write the tag as a string"))
            continue
        clean = clean_tag(tag)
        if clean and not shown_tag(tag):  # a secret or private text: never suggested back in a cleaned form
            out.append(Problem(field, "holds a secret or private text", "remove the tag"))
        elif not clean:
            out.append(Problem(field, f"{shown(tag)} has no letters or digits", "use one lowercase word"))
        elif clean != tag:
            out.append(Problem(field, f"{shown(tag)} is not a clean lowercase tag", f"use {shown(clean)}"))
        elif len(tag) > MAX_TAG_CHARS:
            out.append(Problem(field, f"is longer than {MAX_TAG_CHARS} characters", "use a shorter word"))
        if clean in seen:
            out.append(Problem(field, f"{shown(tag)} appears twice", "remove the duplicate"))
        seen.add(clean)


def _check_changes(changes, out: list) -> None:
    if not isinstance(changes, list):
        out.append(Problem("changes", f"must be a list, not {type_name(changes)}", "write a list of {date, summary}"))
        return
    if len(changes) > MAX_CHANGES:
        out.append(Problem("changes", f"has {len(changes)} entries (at most {MAX_CHANGES})",
                           f"keep the {MAX_CHANGES} newest"))
    for i, change in enumerate(changes):
        field = f"changes[{i}]"
        if not isinstance(change, dict):
            out.append(Problem(field, f"must be an object, not {type_name(change)}", 'write {"date": ..., "summary": ...}'))
            continue
        if parse_iso(change.get("date")) is None:
            out.append(Problem(f"{field}.date", "must be an ISO 8601 UTC time", f"use {ISO_EXAMPLE}"))
        _check("text", change.get("summary"), f"{field}.summary", out)


# What to do about a refused entry, by the words of ``relpaths.normalise``'s reason (first match wins).
_RELATED_HINTS = (
    ("must be text", 'write it as a JSON string: "app/session.py"'),
    ("empty", "remove the empty entry"),
    ("characters long", "name its folder (app/) or a glob (app/**/*.py) instead"),
    ("control character", "remove the control character (write the path as one plain line)"),
    ("relative", "write it relative to the repository root: app/session.py"),
    ("'..'", "name a path inside the repository, from its root: app/session.py"),
    (".git", "remove it: git's own folder is never a memory's subject"),
    ("root itself", "name a file (app/session.py), a folder (app/) or a glob (app/**/*.py)"),
)


def _check_related(entries, out: list, project: str | None) -> None:
    """``related_files``: a list of at most ``relpaths.MAX_ENTRIES`` repository-relative paths, folders or globs."""
    from . import relpaths
    if not isinstance(entries, list):
        out.append(Problem("related_files", f"must be a list, not {type_name(entries)}", 'write ["app/session.py"]'))
        return
    if len(entries) > relpaths.MAX_ENTRIES:
        out.append(Problem("related_files", f"has {len(entries)} entries (at most {relpaths.MAX_ENTRIES})",
                           "name a folder (app/) or a glob (app/**/*.py) instead of many files"))
    for i, entry in enumerate(entries[:relpaths.MAX_ENTRIES]):
        reason = relpaths.problem(entry)
        if reason:
            # an absolute entry inside the project: the hint gives its relative form
            absolute = project and isinstance(entry, str) and entry.startswith(("/", "~"))
            inside = relpaths.repo_relative(entry, project, project) if absolute else None
            hint = f"write it relative to the repository root: {inside}" if inside else next(
                (h for words, h in _RELATED_HINTS if words in reason), "write a path relative to the repository root: "
                "app/session.py")
            message = f"{shown(entry)} {reason}" if isinstance(entry, str) else f"must be text, not {type_name(entry)}"
            out.append(Problem(f"related_files[{i}]", message, hint))


def validate_record(record, *, folder_category: str | None = None, file_id: str | None = None,
                    project: str | None = None) -> list:
    """Every problem of ``record``; ``folder_category``/``file_id``/``project``: where it is (or will be) stored."""
    if not isinstance(record, dict):
        return [Problem("(record)", f"must be a JSON object, not {type_name(record)}", "write {...}")]
    out = [Problem(name, "is required", f"add {name!r}") for name in TOP_REQUIRED if name not in record]
    out += [Problem(field_name(name), "is not a known field", f"remove it; allowed: {', '.join(FIELDS)}")
            for name in record if name not in FIELDS]
    if "schema_version" in record and record["schema_version"] != SCHEMA_VERSION:
        out.append(Problem("schema_version", f"must be {SCHEMA_VERSION!r}, not {shown(record['schema_version'])}",
                           f'use "{SCHEMA_VERSION}"'))
    category = record.get("category")
    if "category" in record and category not in CATEGORIES:
        out.append(Problem("category", f"must be one of {', '.join(CATEGORIES)}, not {shown(category)}",
                           f"pick one of: {', '.join(CATEGORIES)}"))
    elif "category" in record and folder_category and category != folder_category:
        out.append(Problem("category", f"is {shown(category)} but the file is in the {folder_category!r} folder",
                           f"set it to {folder_category!r} or move the file"))
    if "id" in record:
        _check_id(record["id"], file_id, out)
    if "title" in record:
        _check_title(record["title"], out)
    times = {name: parse_iso(record[name]) for name in ("created_at", "updated_at", "retired_at", "archived_at")
             if name in record}
    out += [Problem(name, f"is not an ISO 8601 UTC time: {shown(record[name])}", f"use {ISO_EXAMPLE}")
            for name, when in times.items() if when is None]
    if times.get("created_at") and times.get("updated_at") and times["updated_at"] < times["created_at"]:
        out.append(Problem("updated_at", "is earlier than created_at", "set it to created_at or later"))
    if "tags" in record:
        _check_tags(record["tags"], out)
    if "record_status" in record and record["record_status"] not in STATUSES:
        out.append(Problem("record_status", f"must be one of {', '.join(STATUSES)}, not {shown(record['record_status'])}",
                           "use active, retired or archived"))
    if "$schema" in record:
        _check("text", record["$schema"], "$schema", out)
    if "related_files" in record:
        _check_related(record["related_files"], out, project)
    value = record.get("confidence", 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        out.append(Problem("confidence", f"must be a number from 0 to 1, not {shown(value)}", "use e.g. 0.8"))
    value = record.get("times_updated", 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        out.append(Problem("times_updated", f"must be a whole number >= 0, not {shown(value)}", "use 0"))
    for name in ("retired_reason", "archived_reason"):
        if name in record:
            _check("text", record[name], name, out)
    if "changes" in record:
        _check_changes(record["changes"], out)
    if "content" in record and category in CONTENT:
        _check_object(CONTENT[category], record["content"], "content", out)
    return out


def _check_id(ident, file_id, out: list) -> None:
    reason = id_problem(ident)
    kinds = [] if reason else secret_kinds(ident.upper())  # (``id_problem`` looked at it as written)
    if reason:
        out.append(Problem("id", reason, "use a slug like use-redis-for-sessions"))
    elif kinds:  # an id is the file's name, shown everywhere; ids are lower case, keys often upper
        out.append(Problem("id", f"spells a secret ({', '.join(kinds)}) in the file's name",
                           "give it an id from its title (export it, delete it, import it again), then "
                           "rotate the secret: it is in git history"))
    elif file_id is not None and ident != file_id:
        out.append(Problem("id", f"is {shown(ident)} but the file is {shown(file_id + '.json')}",
                           "set it to the file's name or rename the file"))


def _check_title(title, out: list) -> None:
    if not isinstance(title, str):
        out.append(Problem("title", f"must be text, not {type_name(title)}", "write a short title"))
        return
    clean = clean_line(title)
    if not clean:
        out.append(Problem("title", "is empty", "write a short title (1-120 characters)"))
    elif len(clean) > TITLE_MAX:
        out.append(Problem("title", f"is {len(clean)} characters long (at most {TITLE_MAX})", "shorten it"))
    elif clean != title:
        out.append(Problem("title", "holds control, invisible or index-marker characters",
                           f"use {shown(clean, TITLE_MAX)}"))


def format_problems(problems, where: str = "") -> str:
    """One line per problem: ``where: field: message (fix: hint)``."""
    from .exposure import shown_message, shown_name
    prefix = f"{shown_name(clean_line(where))}: " if where else ""
    return "\n".join(shown_message(f"{prefix}{p.field}: {p.message} (fix: {p.hint})") for p in problems)


def check_file(path: str, config: dict | None = None, memory_root: str | None = None) -> list:
    """Every problem of one memory file: JSON syntax, schema, its place, leftover private text or secrets."""
    path = os.path.abspath(path)
    if memory_root is None:
        memory_root = find_memory_root(os.path.dirname(path))
    if config is None:
        config = load_config(memory_root)
    here = os.path.dirname(path)
    homes = [c for c, f in category_folders(config).items()
             if here == os.path.join(os.path.abspath(memory_root), f)] if memory_root else []
    folder_category = homes[-1] if homes else None
    try:
        record = load_memory(path)
    except NotARecord as exc:
        try:  # a parsed object with no title: let the schema say everything that is wrong
            record = json.loads(read_bytes(path)[0])
        except (OSError, ValueError, RecursionError):
            return [Problem("(file)", str(exc), "fix the JSON syntax (or restore the file from git)")]
    except OSError as exc:
        return [Problem("(file)", f"cannot be read: {exc}", "check the path and permissions")]
    name = os.path.basename(path)
    problems = validate_record(record, folder_category=folder_category, file_id=name[:-5] if name.endswith(".json")
                               else name, project=project_root_of(memory_root) if memory_root else None)
    if isinstance(record, dict):
        problems += [Problem(f, m, "close it with </private> (or [/private]), or remove the opening tag"
                             if m == UNCLOSED else "remove it, or rewrite the memory with the update command (it "
                                                   "strips and redacts)") for f, m in leaks(record, config)]
    return problems
