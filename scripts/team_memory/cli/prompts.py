"""Asking for a memory field by field on a terminal (``add`` without its flags), as ``recordspec.CONTENT`` describes
each category. Prompts go to stderr (``--json`` output stays clean); the end of input is a ``CliError`` (exit 1)."""
from __future__ import annotations

import re
import sys

from ..base.model import CATEGORIES
from ..base.sanitize import clean_tag
from ..records.validate import is_date
from ..records.recordspec import CONTENT
from .main import CliError


def _ask(prompt: str) -> str:
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        sys.stderr.write("\n")
        raise CliError("input ended before the memory was complete; nothing was saved")
    return line.strip()


def _choose(label: str, choices, required: bool, optional: str = " (optional)"):
    picks = dict({str(i): c for i, c in enumerate(choices, 1)}, **{c: c for c in choices})
    return _text(f"{label} [{'  '.join(f'{i}) {c}' for i, c in enumerate(choices, 1))}]", required, picks.get,
                 optional=optional, invalid=f"  pick one of: {', '.join(choices)} (or its number)")


def _text(label: str, required: bool, parse=None, hint: str = "", optional: str = " (optional)", invalid=None):
    """An answer (``parse``: its value, None when not valid); None for an optional field left empty."""
    while True:
        answer = _ask(f"{label}{' (' + hint + ')' if hint else ''}{'' if required else optional}: ")
        if not answer and not required:
            return None
        value = (parse(answer) if parse else answer) if answer else None
        if value is not None:
            return value
        print(invalid or (f"  not valid{': ' + hint if hint else ''}" if answer else "  this field is required"),
              file=sys.stderr)


def _list(label: str, item_spec, min_items: int, required: bool):
    print(f"{label}: one per line, an empty line to finish"
          + (f" (at least {min_items})" if min_items else "" if required else " (optional)"), file=sys.stderr)
    items = []
    while True:
        if isinstance(item_spec, tuple):  # a list of objects: an empty first field ends it
            item = _object(f"  {label}[{len(items)}]", item_spec[1], first_ends=True)
        else:
            item = _ask("  - ") or None
        if item is not None:
            items.append(item)
        elif len(items) >= min_items:
            return items if items or required else None
        else:
            print(f"  add at least {min_items}", file=sys.stderr)


def _object(label: str, fields: dict, first_ends: bool = False):
    out = {}
    for n, (name, (spec, required)) in enumerate(fields.items()):
        ends = first_ends and n == 0
        value = ask_field(f"{label}.{name}" if label else name, spec, required and not ends,
                          " (an empty line to finish)" if ends else " (optional)")
        if value is None and ends:
            return None
        if value is not None:
            out[name] = value
    return out or None


def ask_field(label: str, spec, required: bool, optional: str = " (optional)"):
    kind = spec if isinstance(spec, str) else spec[0]
    if kind == "enum":
        return _choose(label, list(spec[1]), required, optional)
    if kind == "bool":
        return _text(label, required, lambda a: {"y": True, "yes": True, "true": True, "n": False, "no": False,
                                                 "false": False}.get(a.lower()), "y/n")
    if kind == "date":
        return _text(label, required, lambda a: a if is_date(a) else None, "YYYY-MM-DD")
    if kind == "list":
        return _list(label, spec[1], spec[2], required)
    if kind == "object":
        return _object(label, spec[1])
    return _text(label, required, optional=optional)  # "text", "text?"


def ask_record(given: dict) -> dict:
    """A record from ``given`` (category, title, tags, content may be set) plus the answers."""
    record = dict(given)
    if not record.get("category"):
        record["category"] = _choose("category", list(CATEGORIES), True)
    if not record.get("title"):
        record["title"] = _text("title", True, lambda t: t if len(t) <= 120 else None,
                                "a short line, at most 120 characters")
    if not record.get("tags"):
        record["tags"] = _text("tags", True, lambda a: [t for t in map(clean_tag, re.split(r"[,\s]+", a)) if t] or None,
                               "lowercase words, separated by commas or spaces")
    if not record.get("content"):
        print(f"{record['category']} fields:", file=sys.stderr)
        record["content"] = _object("", CONTENT[record["category"]]) or {}
    return record
