"""Triage text: what the scorer reads (``clean_text``: no code, private, recalled or harness blocks), cut into
``Line``s.
"""
from __future__ import annotations

import re

MAX_LINE_CHARS = 1000  # a pattern never runs over a pasted megabyte
MAX_LINES = 4000
_BLOCK_TAGS = ("<private", "<memory-context", "<system-reminder", "<local-command-stdout", "<local-command-stderr",
               "<command-message", "<command-name", "<command-args", "<user-prompt-submit-hook")
# Linear: the fence's line is known to end before its backticks are counted, and a tag's opening cannot fail
# once found (``(?:>|\Z)``: an unclosed one hides the rest). The blocks go in this order: private, recalled, harness.
_FENCE = re.compile(r"(?ms)^(?=[^\n]*\n)[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")
_BLOCKS = (re.compile(r"(?is)<private\b[^>]*(?:>|\Z).*?(?:</private\s*>|\Z)"),
           re.compile(r"(?is)<memory-context\b[^>]*(?:>|\Z).*?(?:</memory-context\s*>|\Z)"),
           re.compile(r"(?is)<(system-reminder|local-command-stdout|local-command-stderr|"
                      r"command-message|command-name|command-args|user-prompt-submit-hook)\b[^>]*(?:>|\Z)"
                      r".*?(?:</\1\s*>|\Z)"))
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])(?=\S)")  # also 。！？
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def clean_text(text: str) -> str:
    """``text`` without fenced code, private sections, recalled memories and harness blocks."""
    if not isinstance(text, str):
        return ""
    lowered = text.lower() if "<" in text else ""
    if any(tag in lowered for tag in _BLOCK_TAGS):
        for block in _BLOCKS:
            text = block.sub(" ", text)
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("\n", text)
    return _INLINE_CODE.sub(" ", text)


class Line(str):
    """A scoring line with its message (``msg``: a speaker's consecutive turns), ``role`` and paragraph (``para``)."""

    def __new__(cls, text: str, msg: int, role: str, para: tuple):
        line = super().__new__(cls, text)
        line.msg, line.role, line.para = msg, role, para
        return line


def paragraphs(text: str) -> list:
    return _BLANK_LINE.split(text)


def split_lines(text: str) -> list:
    """Cleaned text as scoring lines: list markers dropped, empties left out, each cut to ``MAX_LINE_CHARS``."""
    stripped = (_LIST_MARK.sub("", raw).strip() for raw in text.splitlines())
    return [line[:MAX_LINE_CHARS] for line in stripped if line]


def sentences(line: str) -> list:
    return [s for s in _SENTENCE_END.split(line) if s.strip()]


def conversation_lines(turns: list) -> list:
    """The scoring lines of the user and assistant text in ``turns`` (tool output is not conversation); a
    message is a speaker's consecutive turns, a paragraph ``(turn, n)``."""
    lines, msg, speaker = [], -1, None
    for turn, t in enumerate(turns):
        if t.role in ("user", "assistant") and t.text:
            cleaned = clean_text(t.text)
            if not split_lines(cleaned):
                continue
            if t.role != speaker:
                msg, speaker = msg + 1, t.role
            lines.extend(Line(line, msg, t.role, (turn, para))
                         for para, block in enumerate(paragraphs(cleaned)) for line in split_lines(block))
            if len(lines) >= MAX_LINES:
                return lines[-MAX_LINES:]
    return lines
