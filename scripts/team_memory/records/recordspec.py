"""The record schema: the limits, every top-level field, each category's content fields, and the JSON Schemas
(what a schema can say of ``validate_record``'s rules; time order, file names and secrets stay with ``validate``).
"""
from __future__ import annotations

import json
import os

from ..base.config import TEMPLATES_DIR
from ..base.model import CATEGORIES, DEFAULT_FOLDERS, SCHEMA_VERSION, STATUSES
from ..base.sanitize import TITLE_MAX
from .relpaths import MAX_ENTRIES, MAX_ENTRY

MAX_TAGS = 12
MAX_TAG_CHARS = 40
MAX_CHANGES = 50
MAX_TEXT = 10_000  # characters in any one text field
MAX_ITEMS = 200  # entries in any one list
MAX_ID_CHARS = 100
ISO_EXAMPLE = "2026-01-31T12:00:00Z"


# A spec is one of: "text", "text?" (may be empty), "bool", "date", ("enum", values),
# ("list", item_spec, min_items), ("object", {field: (spec, required)}).
REQ, OPT = True, False
TEXTS = ("list", "text", 0)

CONTENT = {
    "decision": {
        "status": (("enum", ("proposed", "accepted", "deprecated", "superseded")), REQ),
        "context": ("text", REQ),
        "decision": ("text", REQ),
        "rationale": (TEXTS, REQ),
        "alternatives": (("list", ("object", {"option": ("text", REQ), "rejected_reason": ("text", REQ)}), 0), OPT),
        "consequences": (TEXTS, OPT),
    },
    "session_summary": {
        "goal": ("text", REQ),
        "outcome": (("enum", ("success", "partial", "blocked", "abandoned")), REQ),
        "completed": (TEXTS, REQ),
        "next_actions": (TEXTS, REQ),
        "in_progress": (TEXTS, OPT),
        "blockers": (TEXTS, OPT),
        "key_changes": (TEXTS, OPT),
    },
    "runbook": {
        "trigger": ("text", REQ),
        "steps": (("list", "text", 1), REQ),
        "verification": ("text", REQ),
        "symptoms": (TEXTS, OPT),
        "root_cause": ("text", OPT),
        "environment": ("text", OPT),
    },
    "constraint": {
        "kind": (("enum", ("limitation", "gap", "policy", "technical")), REQ),
        "rule": ("text", REQ),
        "impact": (TEXTS, REQ),
        "severity": (("enum", ("high", "medium", "low")), REQ),
        "active": ("bool", REQ),
        "workarounds": (TEXTS, OPT),
        "expires": ("date", OPT),
    },
    "tech_debt": {
        "status": (("enum", ("open", "in_progress", "resolved", "wont_fix")), REQ),
        "priority": (("enum", ("critical", "high", "medium", "low")), REQ),
        "description": ("text", REQ),
        "reason_deferred": ("text", REQ),
        "impact": (TEXTS, OPT),
        "suggested_fix": (TEXTS, OPT),
        "acceptance_criteria": (TEXTS, OPT),
    },
    "preference": {
        "topic": ("text", REQ),
        "value": ("text", REQ),
        "reason": ("text", REQ),
        "strength": (("enum", ("strong", "default", "soft")), REQ),
        "examples": (("object", {"prefer": (TEXTS, OPT), "avoid": (TEXTS, OPT)}), OPT),
    },
}

# Every top-level field, in the order a file is written in, with its description in the JSON Schemas.
FIELDS = {
    "$schema": "Optional: the schema this file follows (for editors).",
    "schema_version": f"The record format version; always \"{SCHEMA_VERSION}\".",
    "category": "The memory's category; must match its folder.",
    "id": "The memory id: the file name without .json (an ASCII slug: a-z, 0-9, '-', '_').",
    "title": f"A short, one-line title (1-{TITLE_MAX} characters, no double spaces).",
    "created_at": "When the memory was created (ISO 8601 UTC, e.g. 2026-01-31T12:00:00Z).",
    "updated_at": "When the memory last changed (ISO 8601 UTC); not before created_at.",
    "tags": f"1 to {MAX_TAGS} lowercase one-word tags, no repeats.",
    "related_files": ("What this memory is about, at most {n} entries, each relative to the repository root: a file "
                      "(app/session.py), a folder (billing/: every file under it) or a glob (billing/**/*.sql: * and ? "
                      "match within one name, [abc] one character, ** any number of folders). No leading / or ~, no "
                      "drive letter, no '..', nothing under .git, no control characters; stored normalised "
                      "(./app//x.py is app/x.py).").format(n=MAX_ENTRIES),
    "confidence": "How sure this is, from 0 to 1.",
    "record_status": "active (recalled), retired (no longer true) or archived (true, no longer useful).",
    "content": "The category's own fields.",
    "changes": f"What changed and when, oldest first (at most {MAX_CHANGES}).",
    "times_updated": "How many times the memory was updated.",
    "retired_at": "When it was retired (ISO 8601 UTC).",
    "retired_reason": "Why it was retired.",
    "archived_at": "When it was archived (ISO 8601 UTC).",
    "archived_reason": "Why it was archived.",
}
TOP_REQUIRED = ("schema_version", "category", "id", "title", "created_at", "updated_at", "tags", "content")

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://raw.githubusercontent.com/team-memory/team-memory/main/templates/schemas/"
SCHEMAS_DIR = os.path.join(TEMPLATES_DIR, "schemas")

_CTRL = "\\x00-\\x1f\\x7f"
ISO_TIME = r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$"
ISO_DATE = r"^\d{4}-\d{2}-\d{2}([Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2}))?$"
TEXT_SCHEMA = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": "\\S"}
ISO_SCHEMA = {"type": "string", "format": "date-time", "pattern": ISO_TIME}
ID_PATTERN = "^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$"  # validate's one id rule: an ASCII slug
TITLE_PATTERN = f"^(?!.*\\s\\s)[^\\s{_CTRL}]([^{_CTRL}]*[^\\s{_CTRL}])?$"
_TAG_BAD = "\\sA-Z,!\"#$%&'()*/:;<=>?@\\[\\\\\\]^`{|}~" + _CTRL
TAG_PATTERN = f"^(?![.-])(?!.*[.-]$)[^{_TAG_BAD}]+$"
# relpaths.normalise as a pattern: not absolute (/, \\, ~, C:), no '..' or '.git' segment, no control, not blank.
_SEGMENT_START = "(.*[/\\\\]|\\s*)"
_SEGMENT_END = "([/\\\\]|\\s*$)"
RELPATH_PATTERN = (f"^(?!\\s*[/\\\\~])(?!\\s*[A-Za-z]:)(?!{_SEGMENT_START}\\.\\.{_SEGMENT_END})"
                   f"(?!{_SEGMENT_START}\\.[gG][iI][tT]{_SEGMENT_END})[^{_CTRL}]*[^\\s{_CTRL}][^{_CTRL}]*$")


def spec_schema(spec) -> dict:
    if isinstance(spec, str):
        return {"text": dict(TEXT_SCHEMA), "text?": {"type": "string", "maxLength": MAX_TEXT},
                "bool": {"type": "boolean"}, "date": {"type": "string", "pattern": ISO_DATE}}[spec]
    if spec[0] == "enum":
        return {"type": "string", "enum": list(spec[1])}
    if spec[0] == "object":
        return object_schema(spec[1])
    out = {"type": "array", "items": spec_schema(spec[1]), "maxItems": MAX_ITEMS}  # ("list", item, min_items)
    if spec[2]:
        out["minItems"] = spec[2]
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
        "tags": {"type": "array", "minItems": 1, "maxItems": MAX_TAGS, "uniqueItems": True,
                 "items": {"type": "string", "minLength": 1, "maxLength": MAX_TAG_CHARS, "pattern": TAG_PATTERN}},
        "related_files": {"type": "array", "maxItems": MAX_ENTRIES,
                          "items": {"type": "string", "minLength": 1, "maxLength": MAX_ENTRY,
                                    "pattern": RELPATH_PATTERN}},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "record_status": {"type": "string", "enum": list(STATUSES), "default": "active"},
        "content": content,
        "changes": {"type": "array", "maxItems": MAX_CHANGES,
                    "items": {"type": "object", "required": ["date", "summary"],
                              "properties": {"date": dict(ISO_SCHEMA, description="When (ISO 8601 UTC)."),
                                             "summary": dict(TEXT_SCHEMA, description="What changed and why.")}}},
        "times_updated": {"type": "integer", "minimum": 0},
        **{name: ISO_SCHEMA for name in ("created_at", "updated_at", "retired_at", "archived_at")},
        **{name: TEXT_SCHEMA for name in ("retired_reason", "archived_reason")},
    }
    props = {name: dict(props[name], description=doc) for name, doc in FIELDS.items()}  # in the file's order
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
    """Write every category's schema into ``folder`` (atomically); return the paths."""
    from ..base.fsutil import atomic_write_text
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, f"{category}.schema.json") for category in CATEGORIES]
    for category, path in zip(CATEGORIES, paths):
        atomic_write_text(path, schema_text(category))
    return paths
