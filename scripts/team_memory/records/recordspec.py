"""The record schema as data: every field with its meaning, the limits, and each category's content fields.

``validate`` checks a record against it; ``schemas`` writes the JSON Schemas from it; ``store`` writes a file's
keys in its order; the CLI's questions (``prompts``) and ``add`` read its limits.
"""
from __future__ import annotations

from ..base.model import SCHEMA_VERSION
from ..base.sanitize import TITLE_MAX
from .relpaths import MAX_ENTRIES

MAX_TAGS = 12
MAX_TAG_CHARS = 40
MAX_CHANGES = 50
MAX_TEXT = 10_000  # characters in any one text field
MAX_ITEMS = 200  # entries in any one list
MAX_ID_CHARS = 100
ISO_EXAMPLE = "2026-01-31T12:00:00Z"


# A spec is one of: "text", "text?" (may be empty), "bool", "date", ("enum", values),
# ("list", item_spec, min_items), ("object", {field: (spec, required)}).

def _enum(*values):
    return ("enum", values)


def _texts(min_items: int = 0):
    return ("list", "text", min_items)


def _obj(**fields):
    return ("object", fields)


REQ, OPT = True, False

CONTENT = {
    "decision": {
        "status": (_enum("proposed", "accepted", "deprecated", "superseded"), REQ),
        "context": ("text", REQ),
        "decision": ("text", REQ),
        "rationale": (_texts(), REQ),
        "alternatives": (("list", _obj(option=("text", REQ), rejected_reason=("text", REQ)), 0), OPT),
        "consequences": (_texts(), OPT),
    },
    "session_summary": {
        "goal": ("text", REQ),
        "outcome": (_enum("success", "partial", "blocked", "abandoned"), REQ),
        "completed": (_texts(), REQ),
        "next_actions": (_texts(), REQ),
        "in_progress": (_texts(), OPT),
        "blockers": (_texts(), OPT),
        "key_changes": (_texts(), OPT),
    },
    "runbook": {
        "trigger": ("text", REQ),
        "steps": (_texts(1), REQ),
        "verification": ("text", REQ),
        "symptoms": (_texts(), OPT),
        "root_cause": ("text", OPT),
        "environment": ("text", OPT),
    },
    "constraint": {
        "kind": (_enum("limitation", "gap", "policy", "technical"), REQ),
        "rule": ("text", REQ),
        "impact": (_texts(), REQ),
        "severity": (_enum("high", "medium", "low"), REQ),
        "active": ("bool", REQ),
        "workarounds": (_texts(), OPT),
        "expires": ("date", OPT),
    },
    "tech_debt": {
        "status": (_enum("open", "in_progress", "resolved", "wont_fix"), REQ),
        "priority": (_enum("critical", "high", "medium", "low"), REQ),
        "description": ("text", REQ),
        "reason_deferred": ("text", REQ),
        "impact": (_texts(), OPT),
        "suggested_fix": (_texts(), OPT),
        "acceptance_criteria": (_texts(), OPT),
    },
    "preference": {
        "topic": ("text", REQ),
        "value": ("text", REQ),
        "reason": ("text", REQ),
        "strength": (_enum("strong", "default", "soft"), REQ),
        "examples": (_obj(prefer=(_texts(), OPT), avoid=(_texts(), OPT)), OPT),
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
