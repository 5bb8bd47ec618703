"""Triage text: what the scorer reads (``clean_text``: no code, private, recalled or harness blocks), cut into
``Line``s.
"""
from __future__ import annotations

import re

MAX_LINE_CHARS = 1000  # a pattern never runs over a pasted megabyte
MAX_LINES = 4000
_BLOCK_TAGS = ("<private", "<memory-context", "<system-reminder", "<local-command-stdout", "<local-command-stderr",
               "<command-message", "<command-name", "<command-args", "<user-prompt-submit-hook")
_patterns = None
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _regexes():
    """The cleaning and sentence patterns, compiled on first use."""
    global _patterns
    if _patterns is None:
        _patterns = {
            # Linear: the fence's line is known to end before its backticks are counted, and a tag's opening
            # cannot fail once found (``(?:>|\Z)``: an unclosed one hides the rest).
            "fence": re.compile(r"(?ms)^(?=[^\n]*\n)[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)"),
            "private": re.compile(r"(?is)<private\b[^>]*(?:>|\Z).*?(?:</private\s*>|\Z)"),
            "recalled": re.compile(r"(?is)<memory-context\b[^>]*(?:>|\Z).*?(?:</memory-context\s*>|\Z)"),
            "harness": re.compile(r"(?is)<(system-reminder|local-command-stdout|local-command-stderr|"
                                    r"command-message|command-name|command-args|user-prompt-submit-hook)\b[^>]*(?:>|\Z)"
                                    r".*?(?:</\1\s*>|\Z)"),
            "sentence_end": re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])(?=\S)"),  # also 。！？
        }
    return _patterns


def clean_text(text: str) -> str:
    """``text`` without fenced code, private sections, recalled memories and harness blocks."""
    if not isinstance(text, str):
        return ""
    lowered = text.lower() if "<" in text else ""
    if any(tag in lowered for tag in _BLOCK_TAGS):
        for name in ("private", "recalled", "harness"):
            text = _regexes()[name].sub(" ", text)
    if "```" in text or "~~~" in text:
        text = _regexes()["fence"].sub("\n", text)
    return _INLINE_CODE.sub(" ", text)


class Line(str):
    """A scoring line with its message (``msg``: a speaker's consecutive turns), ``role`` and paragraph (``para``)."""

    def __new__(cls, text: str, msg: int, role: str, para: tuple):
        line = super().__new__(cls, text)
        line.msg, line.role, line.para = msg, role, para
        return line


def paragraphs(text: str) -> list:
    """``text`` cut at blank lines."""
    return _BLANK_LINE.split(text)


def split_lines(text: str) -> list:
    """Cleaned text as scoring lines: list markers dropped, empties left out, each cut to ``MAX_LINE_CHARS``."""
    lines = []
    for raw in text.splitlines():
        raw = _LIST_MARK.sub("", raw).strip()
        if raw:
            lines.append(raw[:MAX_LINE_CHARS])
    return lines


def message_lines(text: str, msg: int, role: str, turn: int = 0) -> list:
    """``split_lines`` of one turn's text as ``Line`` objects, paragraphs numbered ``(turn, n)``."""
    return [Line(line, msg, role, (turn, para))
            for para, block in enumerate(paragraphs(text)) for line in split_lines(block)]


def sentences(line: str) -> list:
    return [s for s in _regexes()["sentence_end"].split(line) if s.strip()]


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

