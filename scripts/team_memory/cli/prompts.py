"""Asking for a memory field by field on a terminal (``add`` with no ``--category``/``--title``), as
``recordspec.CONTENT`` describes each category. Prompts go to stderr so ``--json`` output stays clean; the end
of input raises ``PromptAborted`` and nothing is saved."""
from __future__ import annotations

import re
import sys

from ..base.model import CATEGORIES
from ..base.sanitize import clean_tag
from ..records.validate import is_date
from ..records.recordspec import CONTENT


class PromptAborted(Exception):
    """The input ended (or the person quit) before the memory was complete."""


class Reader:
    """One answer per line from ``inp``; prompts on ``out``."""

    def __init__(self, inp=None, out=None):
        self.inp = inp or sys.stdin
        self.out = out or sys.stderr

    def ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            raise PromptAborted("input ended before the memory was complete; nothing was saved")
        return line.rstrip("\r\n").strip()

    def say(self, text: str) -> None:
        self.out.write(text + "\n")


def _choose(reader: Reader, label: str, choices, required: bool, optional: str = " (optional)"):
    listed = "  ".join(f"{i}) {c}" for i, c in enumerate(choices, 1))
    while True:
        answer = reader.ask(f"{label} [{listed}]{'' if required else optional}: ")
        if not answer and not required:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        if answer in choices:
            return answer
        reader.say(f"  pick one of: {', '.join(choices)} (or its number)")


def _text(reader: Reader, label: str, required: bool, check=None, hint: str = "", optional: str = " (optional)"):
    while True:
        answer = reader.ask(f"{label}{' (' + hint + ')' if hint else ''}{'' if required else optional}: ")
        if not answer:
            if not required:
                return None
            reader.say("  this field is required")
            continue
        if check and not check(answer):
            reader.say(f"  not valid{': ' + hint if hint else ''}")
            continue
        return answer


def _list(reader: Reader, label: str, item_spec, min_items: int, required: bool):
    reader.say(f"{label}: one per line, an empty line to finish"
               + (f" (at least {min_items})" if min_items else "" if required else " (optional)"))
    items = []
    while True:
        if isinstance(item_spec, tuple) and item_spec[0] == "object":
            item = _object(reader, f"  {label}[{len(items)}]", item_spec[1], first_ends=True)
        else:
            item = reader.ask("  - ") or None
        if item is not None:
            items.append(item)
        elif len(items) >= min_items:
            return items if items or required else None
        else:
            reader.say(f"  add at least {min_items}")


def _object(reader: Reader, label: str, fields: dict, first_ends: bool = False):
    out = {}
    for n, (name, (spec, required)) in enumerate(fields.items()):
        ends = first_ends and n == 0
        value = ask_field(reader, f"{label}.{name}" if label else name, spec, required and not ends,
                          " (an empty line to finish)" if ends else " (optional)")
        if value is None and first_ends and n == 0:
            return None
        if value is not None:
            out[name] = value
    return out or None


def ask_field(reader: Reader, label: str, spec, required: bool, optional: str = " (optional)"):
    kind = spec if isinstance(spec, str) else spec[0]
    if kind in ("text", "text?"):
        return _text(reader, label, required, optional=optional)
    if kind == "enum":
        return _choose(reader, label, list(spec[1]), required, optional)
    if kind == "bool":
        answer = _text(reader, label, required, lambda a: a.lower() in ("y", "yes", "n", "no", "true", "false"), "y/n")
        return None if answer is None else answer.lower() in ("y", "yes", "true")
    if kind == "date":
        return _text(reader, label, required, is_date, "YYYY-MM-DD")
    if kind == "list":
        return _list(reader, label, spec[1], spec[2], required)
    if kind == "object":
        return _object(reader, label, spec[1])
    return _text(reader, label, required)


def ask_record(given: dict, reader: Reader | None = None) -> dict:
    """A record from ``given`` (category, title, tags, content may be set) plus the answers."""
    reader = reader or Reader()
    record = dict(given)
    if not record.get("category"):
        record["category"] = _choose(reader, "category", list(CATEGORIES), True)
    if not record.get("title"):
        record["title"] = _text(reader, "title", True, lambda t: len(t) <= 120, "a short line, at most 120 characters")
    if not record.get("tags"):
        answer = _text(reader, "tags", True, lambda a: any(clean_tag(t) for t in re.split(r"[,\s]+", a)),
                       "lowercase words, separated by commas or spaces")
        record["tags"] = [t for t in (clean_tag(t) for t in re.split(r"[,\s]+", answer)) if t]
    if not record.get("content"):
        reader.say(f"{record['category']} fields:")
        record["content"] = _object(reader, "", CONTENT[record["category"]]) or {}
    return record
