"""Triage text: what the scorer reads, and how it is cut up.

``clean_text`` removes what must never be scored or re-saved (fenced and inline
code, ``<private>`` sections, recalled ``<memory-context>`` blocks, harness
blocks). ``conversation_lines`` turns the user and assistant turns into
``Line`` objects: one per text line, each knowing its message (consecutive
turns of one speaker form one message), its speaker and its paragraph.
"""
from __future__ import annotations

import re

MAX_LINE_CHARS = 1000  # a pattern never runs over a pasted megabyte
MAX_LINES = 4000
_FENCE = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")
_PRIVATE = re.compile(r"(?is)<private\b[^>]*>.*?(?:</private\s*>|\Z)")
_RECALLED = re.compile(r"(?is)<memory-context\b[^>]*>.*?(?:</memory-context\s*>|\Z)")
_HARNESS = re.compile(r"(?is)<(system-reminder|local-command-stdout|local-command-stderr|command-message|"
                      r"command-name|command-args|user-prompt-submit-hook)\b[^>]*>.*?(?:</\1\s*>|\Z)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])(?=\S)")  # also 。！？
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+")


def clean_text(text: str) -> str:
    """``text`` without fenced code, private sections, recalled memories and harness blocks."""
    if not isinstance(text, str):
        return ""
    text = _PRIVATE.sub(" ", text)
    text = _RECALLED.sub(" ", text)
    text = _HARNESS.sub(" ", text)
    text = _FENCE.sub("\n", text)
    return _INLINE_CODE.sub(" ", text)


class Line(str):
    """A scoring line that knows its message (``msg``: consecutive turns of one speaker are one message),
    the speaker (``role``) and its paragraph (``para``)."""

    def __new__(cls, text: str, msg: int, role: str, para: tuple):
        line = super().__new__(cls, text)
        line.msg, line.role, line.para = msg, role, para
        return line


def split_lines(text: str) -> list:
    """Cleaned text as scoring lines: list markers dropped, empties left out, each cut to ``MAX_LINE_CHARS``."""
    lines = []
    for raw in text.splitlines():
        raw = _LIST_MARK.sub("", raw).strip()
        if raw:
            lines.append(raw[:MAX_LINE_CHARS])
    return lines


def message_lines(text: str, msg: int, role: str, turn: int = 0) -> list:
    """``split_lines`` of one turn's text as ``Line`` objects; paragraphs (blank-line separated) are
    numbered ``(turn, n)``."""
    return [Line(line, msg, role, (turn, para))
            for para, block in enumerate(_PARAGRAPH.split(text)) for line in split_lines(block)]


def sentences(line: str) -> list:
    return [s for s in _SENTENCE_END.split(line) if s.strip()]


def conversation_lines(turns: list) -> list:
    """The scoring lines of the user and assistant text in ``turns`` (tool output is not conversation)."""
    lines, msg, speaker = [], -1, None
    for turn, t in enumerate(turns):
        if t.role in ("user", "assistant") and t.text:
            cleaned = clean_text(t.text)
            if not split_lines(cleaned):
                continue
            if t.role != speaker:  # a new message starts when the speaker changes
                msg, speaker = msg + 1, t.role
            lines.extend(message_lines(cleaned, msg, t.role, turn))
            if len(lines) >= MAX_LINES:
                return lines[-MAX_LINES:]
    return lines
