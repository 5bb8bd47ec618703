"""The ``<memory-context>`` block: ranked memories as sanitized lines within a character budget.

Recalled text is data: a note says so first (``DATA_NOTE``), every line is cleaned, secrets hidden,
nothing can end or forge the block. A clear winner's key content follows its line (``excerpt_line``),
neutralised only against ending the block, so commands and code arrive as written.
"""
from __future__ import annotations

from ..base.config import category_descriptions, int_setting
from ..base.model import category_from_display, display_name
from ..records.hookio import DATA_NOTE
from ..records.store import decision_status

DEFAULT_BUDGET = 4000
DEFAULT_EXCERPT = 240
CLEAR_RATIO = 1.5  # a clear winner scores at least this many times the runner-up
RUNBOOK_STEPS = 3
# category -> (label, content field) of a one-field key content
KEY_FIELDS = {"decision": ("decision", "decision"), "constraint": ("rule", "rule"), "preference": ("value", "value"),
              "tech_debt": ("debt", "description")}
DESCRIPTION_CHARS = 50  # each category description shown, for the categories that appear
RELATED_HEAD = "Possibly related (titles only):"
# What each kind holds when the configured description is longer than ``DESCRIPTION_CHARS`` (a cut one says less)
SHORT_DESCRIPTIONS = {
    "decision": "technical choices and their reasons",
    "constraint": "hard limits that cannot be changed",
    "preference": "the team's conventions and tool choices",
    "runbook": "steps that fix a known error or issue",
    "tech_debt": "shortcuts taken and work deferred",
    "session_summary": "what a session did and what comes next",
}


def described_categories(config: dict, lines: list) -> str:
    """One line describing the categories that appear in ``lines`` ("" when none has a description)."""
    from ..records.exposure import hide
    from ..base.sanitize import block_text
    descs = dict(category_descriptions(config))  # each described once
    described = []
    for line in lines:
        cat = category_from_display(line[3:line.find("]")]) if line.startswith("- [") else None
        if cat in descs:
            text = block_text(hide(descs.pop(cat)), 500)
            text = text if len(text) <= DESCRIPTION_CHARS else SHORT_DESCRIPTIONS.get(cat, "")
            if text:
                described.append(f"{display_name(cat)} = {text}")
    return "Kinds: " + "; ".join(described) if described else ""


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
    if category in KEY_FIELDS:
        label, field = KEY_FIELDS[category]
        return label, _text(content.get(field))
    if category == "runbook":
        steps = [_text(s) for s in content.get("steps", []) if isinstance(s, str) and s.strip()] \
            if isinstance(content.get("steps"), list) else []
        return "first steps", " ".join(f"{i}. {s.strip()}" for i, s in enumerate(steps[:RUNBOOK_STEPS], 1))
    if category == "session_summary":
        outcome, nxt = _text(content.get("outcome")), _text(content.get("next_actions"))
        return "session", "; ".join(([f"outcome {outcome}"] if outcome else []) + ([f"next: {nxt}"] if nxt else []))
    return "", ""


def excerpt_line(category: str, record: dict, limit: int) -> str:
    """The winner's indented excerpt line, or "" when there is nothing worth showing."""
    from ..base.sanitize import clean_line, cut, neutralize_block
    label, text = key_content(category, record)
    text = clean_line(text)
    if not text or limit <= 0:
        return ""
    from ..records.exposure import hide
    text = cut(clean_line(hide(text)), limit)
    return f"  {label}: {neutralize_block(text)}"


def clear_winner(hits: list) -> bool:
    """True when there is one result, or the first scores ``CLEAR_RATIO`` times the second."""
    return bool(hits) and (len(hits) == 1 or hits[0].score >= CLEAR_RATIO * hits[1].score)


def format_block(hits: list, config: dict, budget: int = DEFAULT_BUDGET, excerpt_chars: int = 0,
                 marks: dict | None = None, note: str = DATA_NOTE) -> str:
    """The block in at most ``budget`` characters: the ``note``, the memory lines that fit (a clear winner's excerpt;
    ``marks``: entry path -> stale suffix), the related after ``RELATED_HEAD``, a line describing their categories."""
    from ..base.sanitize import block_line, block_text
    head = '<memory-context source=".claude/memory/">'
    tail = "</memory-context>"
    lines = []
    used = len(head) + len(tail) + 2 + len(note) + 1
    clear = [hit for hit in hits if hit.parts.get("related") is not True]
    winner = clear[0] if excerpt_chars > 0 and clear and clear[0].record is not None and clear_winner(clear) else None
    for hit in hits:
        line = block_line(hit.entry)  # its text through the exposure rule when the index was built (``reader``)
        status = None if hit.record is None else decision_status(hit.record)
        if status:  # a decision the team has not settled on, or no longer holds: say so
            line = f"{line} (decision {status})"
        if marks and hit.entry.get("path") in marks:  # one clean line, cut: nothing that could end the block
            from ..derived.drift import MAX_SUFFIX
            line = f"{line} {block_text(marks[hit.entry['path']], MAX_SUFFIX)}"
        new = ([RELATED_HEAD] if hit.parts.get("related") is True and RELATED_HEAD not in lines else []) + [line]
        if used + sum(len(x) + 1 for x in new) > budget:
            continue
        used += sum(len(x) + 1 for x in new)
        lines += new
        if hit is winner:
            extra = excerpt_line(category_from_display(hit.entry["category"]) or "", hit.record, excerpt_chars)
            if extra and used + len(extra) + 1 <= budget:
                used += len(extra) + 1
                lines.append(extra)
    if not lines:
        return ""
    described = described_categories(config, lines)
    if described and used + len(described) + 1 <= budget:
        lines.append(described)
    return "\n".join([head, note, *lines, tail]) + "\n"


def sizes(config: dict) -> tuple:
    """``(budget, excerpt_chars)``: how long the block and the winner's excerpt may be."""
    return (int_setting(config, "retrieval", "max_output_chars", DEFAULT_BUDGET, 500, 9000),
            int_setting(config, "retrieval", "excerpt_chars", DEFAULT_EXCERPT, 0, 1000))
