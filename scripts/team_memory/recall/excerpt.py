"""The key content of a memory, as one short safe line for the ``<memory-context>`` block.

When one memory clearly wins a prompt, the block carries its key content under
its line, so Claude need not open the file: a decision's ``decision``, a
runbook's first steps, a constraint's ``rule``, a preference's ``value``, a
tech-debt item's ``description``, a session's outcome and next actions.
The text is cleaned (``sanitize.clean_line``), secrets and private sections are
hidden (``exposure.hide``: the file may have been written by hand), it is cut, and
only what could end or forge the block is neutralised, so commands and code arrive
as written (XML-escaped instead for the seed's block).
"""
from __future__ import annotations

from ..base.sanitize import clean_line, cut, neutralize_block

CLEAR_RATIO = 1.5  # the winner scores at least this many times the runner-up
RUNBOOK_STEPS = 3


def _text(value) -> str:
    if isinstance(value, str):  # each string hidden on its own: an unclosed tag in one never eats the next
        from ..records.exposure import hide
        return hide(value)
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value if _text(v))
    return ""


def key_content(category: str, record: dict) -> tuple:
    """``(label, text)`` of a record's key content; ``("", "")`` when it has none."""
    content = record.get("content")
    if not isinstance(content, dict):
        return "", ""
    if category == "decision":
        return "decision", _text(content.get("decision"))
    if category == "runbook":
        steps = [_text(s) for s in content.get("steps", []) if isinstance(s, str) and s.strip()] \
            if isinstance(content.get("steps"), list) else []
        return "first steps", " ".join(f"{i}. {s.strip()}" for i, s in enumerate(steps[:RUNBOOK_STEPS], 1))
    if category == "constraint":
        return "rule", _text(content.get("rule"))
    if category == "preference":
        return "value", _text(content.get("value"))
    if category == "tech_debt":
        return "debt", _text(content.get("description"))
    if category == "session_summary":
        outcome = _text(content.get("outcome"))
        nxt = _text(content.get("next_actions"))
        text = f"outcome {outcome}" if outcome else ""
        if nxt:
            text = f"{text}; next: {nxt}" if text else f"next: {nxt}"
        return "session", text
    return "", ""


def excerpt_line(category: str, record: dict, limit: int) -> str:
    """The indented excerpt line, or "" when there is nothing worth showing."""
    label, text = key_content(category, record)
    text = clean_line(text)
    if not text or limit <= 0:
        return ""
    from ..records.exposure import hide
    text = cut(clean_line(hide(text)), limit)
    return f"  {label}: {neutralize_block(text)}"


def clear_winner(hits: list) -> bool:
    """True when there is one result, or the first scores ``CLEAR_RATIO`` times the second."""
    if not hits:
        return False
    return len(hits) == 1 or hits[0].score >= CLEAR_RATIO * hits[1].score
