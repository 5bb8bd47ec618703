"""The record schema as data: the limits, and each category's content fields with their kinds.

``validate`` checks a record against it; ``schemas`` writes the JSON Schemas from it; the CLI's
questions (``prompts``) and ``add`` read its limits.
"""
from __future__ import annotations

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

TOP_REQUIRED = ("schema_version", "category", "id", "title", "created_at", "updated_at", "tags", "content")
TOP_OPTIONAL = ("$schema", "record_status", "related_files", "confidence", "changes", "times_updated",
                "retired_at", "retired_reason", "archived_at", "archived_reason")
