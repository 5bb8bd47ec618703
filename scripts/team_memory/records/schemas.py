"""JSON Schemas (draft 2020-12) for hand-edited memories, made from ``recordspec.CONTENT``.

``category_schema`` mirrors ``validate.validate_record`` as far as a schema can; the rest (time
order, id against file name, secrets, Unicode rules) stays with ``memory.py validate``.
``templates/schemas/`` is written by ``write_schemas`` (``scripts/make_schemas.py``); a test keeps it in step.
"""
from __future__ import annotations

import json
import os

from ..base.config import TEMPLATES_DIR
from ..base.model import CATEGORIES, DEFAULT_FOLDERS, SCHEMA_VERSION, STATUSES
from ..base.sanitize import TITLE_MAX
from .relpaths import MAX_ENTRIES, MAX_ENTRY
from .recordspec import (CONTENT, FIELDS, MAX_CHANGES, MAX_ID_CHARS, MAX_ITEMS, MAX_TAG_CHARS, MAX_TAGS, MAX_TEXT,
                         TOP_REQUIRED)

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://raw.githubusercontent.com/team-memory/team-memory/main/templates/schemas/"
SCHEMAS_DIR = os.path.join(TEMPLATES_DIR, "schemas")

_CTRL = "\\x00-\\x1f\\x7f"
ISO_TIME = r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$"
ISO_DATE = r"^\d{4}-\d{2}-\d{2}([Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2}))?$"
ID_PATTERN = "^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$"  # validate's one id rule: an ASCII slug
TITLE_PATTERN = f"^(?!.*\\s\\s)[^\\s{_CTRL}]([^{_CTRL}]*[^\\s{_CTRL}])?$"
_TAG_BAD = "\\sA-Z,!\"#$%&'()*/:;<=>?@\\[\\\\\\]^`{|}~" + _CTRL
TAG_PATTERN = f"^(?![.-])(?!.*[.-]$)[^{_TAG_BAD}]+$"
# relpaths.normalise as far as a pattern says it: not absolute (/, \\, ~, C:), no '..' or '.git' segment, no
# control character, not blank.
_SEGMENT_START = "(.*[/\\\\]|\\s*)"
_SEGMENT_END = "([/\\\\]|\\s*$)"
RELPATH_PATTERN = (f"^(?!\\s*[/\\\\~])(?!\\s*[A-Za-z]:)(?!{_SEGMENT_START}\\.\\.{_SEGMENT_END})"
                   f"(?!{_SEGMENT_START}\\.[gG][iI][tT]{_SEGMENT_END})[^{_CTRL}]*[^\\s{_CTRL}][^{_CTRL}]*$")


def _text(description: str = "") -> dict:
    out = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": "\\S"}
    return dict(out, description=description) if description else out


def _iso(description: str) -> dict:
    return {"type": "string", "format": "date-time", "pattern": ISO_TIME, "description": description}


def spec_schema(spec, description: str = "") -> dict:
    """The schema of one ``validate`` field spec."""
    kind = spec if isinstance(spec, str) else spec[0]
    if kind == "text":
        out = _text()
    elif kind == "text?":
        out = {"type": "string", "maxLength": MAX_TEXT}
    elif kind == "bool":
        out = {"type": "boolean"}
    elif kind == "date":
        out = {"type": "string", "pattern": ISO_DATE}
    elif kind == "enum":
        out = {"type": "string", "enum": list(spec[1])}
    elif kind == "list":
        out = {"type": "array", "items": spec_schema(spec[1]), "maxItems": MAX_ITEMS}
        if spec[2]:
            out["minItems"] = spec[2]
    elif kind == "object":
        out = object_schema(spec[1])
    else:  # pragma: no cover - a new spec kind must be added here
        raise ValueError(f"unknown spec kind {kind!r}")
    if description:
        out = dict(out, description=description)
    return out


def object_schema(fields: dict) -> dict:
    return {"type": "object",
            "properties": {name: spec_schema(spec) for name, (spec, _) in fields.items()},
            "required": [name for name, (_, required) in fields.items() if required],
            "additionalProperties": False}


def category_schema(category: str) -> dict:
    """The whole-record schema of one category."""
    content = object_schema(CONTENT[category])
    content["description"] = f"The fields of a {category} memory."
    props = {
        "$schema": {"type": "string"},
        "schema_version": {"const": SCHEMA_VERSION},
        "category": {"const": category},
        "id": {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS, "pattern": ID_PATTERN},
        "title": {"type": "string", "minLength": 1, "maxLength": TITLE_MAX, "pattern": TITLE_PATTERN},
        "created_at": _iso(""),
        "updated_at": _iso(""),
        "tags": {"type": "array", "minItems": 1, "maxItems": MAX_TAGS, "uniqueItems": True,
                 "items": {"type": "string", "minLength": 1, "maxLength": MAX_TAG_CHARS, "pattern": TAG_PATTERN}},
        "related_files": {"type": "array", "maxItems": MAX_ENTRIES,
                          "items": {"type": "string", "minLength": 1, "maxLength": MAX_ENTRY, "pattern": RELPATH_PATTERN}},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "record_status": {"type": "string", "enum": list(STATUSES), "default": "active"},
        "content": content,
        "changes": {"type": "array", "maxItems": MAX_CHANGES,
                    "items": {"type": "object", "required": ["date", "summary"],
                              "properties": {"date": _iso("When (ISO 8601 UTC)."),
                                             "summary": _text("What changed and why.")}}},
        "times_updated": {"type": "integer", "minimum": 0},
        "retired_at": _iso(""),
        "retired_reason": _text(),
        "archived_at": _iso(""),
        "archived_reason": _text(),
    }
    for name, doc in FIELDS.items():
        props[name]["description"] = doc
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}{category}.schema.json",
        "title": f"team-memory {category} memory",
        "description": (f"One {category} memory, stored as .claude/memory/{DEFAULT_FOLDERS[category]}/<id>.json. "
                        "Check a file fully with the team-memory CLI: memory.py validate PATH"),
        "type": "object",
        "properties": props,
        "required": list(TOP_REQUIRED),
        "additionalProperties": False,
    }


def schema_text(category: str) -> str:
    return json.dumps(category_schema(category), indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: str = SCHEMAS_DIR) -> list:
    """Write every category's schema into ``folder``; return the paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for category in CATEGORIES:
        path = os.path.join(folder, f"{category}.schema.json")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(schema_text(category))
        paths.append(path)
    return paths
