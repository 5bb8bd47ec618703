"""Triage text: what the scorer reads (``clean_text``: no code, private, recalled or harness blocks), cut into
``Line``s; the plain string code here does what the patterns its docstrings quote do.
"""
from __future__ import annotations

import re

MAX_LINE_CHARS = 1000  # a pattern never runs over a pasted megabyte
MAX_LINES = 4000
_BLOCK_TAGS = ("<private", "<memory-context", "<system-reminder", "<local-command-stdout", "<local-command-stderr",
               "<command-message", "<command-name", "<command-args", "<user-prompt-submit-hook")
_patterns = None


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


def _without_inline_code(text: str) -> str:
    """``re.sub(r"`[^`\n]*`", " ", text)``: on each line, the text between pairs of backticks."""
    if "`" not in text:
        return text
    lines = []
    for line in text.split("\n"):
        parts = line.split("`")
        tail = "`" + parts[-1] if len(parts) % 2 == 0 else ""  # an odd backtick opens no span
        lines.append(" ".join(parts[::2]) + tail)
    return "\n".join(lines)


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
    return _without_inline_code(text)


class Line(str):
    """A scoring line with its message (``msg``: a speaker's consecutive turns), ``role`` and paragraph (``para``)."""

    def __new__(cls, text: str, msg: int, role: str, para: tuple):
        line = super().__new__(cls, text)
        line.msg, line.role, line.para = msg, role, para
        return line


def _without_list_mark(line: str) -> str:
    """``re.sub(r"^\\s*(?:[-*+>]|\\d+[.)])\\s+", "", line)``."""
    rest, digits = line.lstrip(), 0
    while digits < len(rest) and rest[digits].isdecimal():  # any decimal digit, as ``\d`` reads it
        digits += 1
    if rest[:1] in ("-", "*", "+", ">"):
        body = rest[1:]
    elif digits and rest[digits:digits + 1] in (".", ")"):
        body = rest[digits + 1:]
    else:
        return line
    kept = body.lstrip()
    return kept if len(kept) < len(body) else line


def paragraphs(text: str) -> list:
    """``re.split(r"\\n[ \\t]*\\n", text)``: ``text`` cut at blank lines."""
    lines, parts, start, j = text.split("\n"), [], 0, 1
    while j < len(lines) - 1:
        if lines[j].strip(" \t"):
            j += 1
        else:  # a blank line and both its newlines: the next line cannot be a cut
            parts.append("\n".join(lines[start:j]))
            start, j = j + 1, j + 2
    parts.append("\n".join(lines[start:]))
    return parts


def split_lines(text: str) -> list:
    """Cleaned text as scoring lines: list markers dropped, empties left out, each cut to ``MAX_LINE_CHARS``."""
    lines = []
    for raw in text.splitlines():
        raw = _without_list_mark(raw).strip()
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

