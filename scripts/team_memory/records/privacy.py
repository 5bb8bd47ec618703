"""Private sections: text the author marked as never to be stored, each replaced by the configured marker.

``<private>`` always; ``[private]`` and ``<!-- private -->`` when ``privacy.private_tags.formats`` lists them. Tags in
closed fenced code are text; nested sections go whole; an unbalanced tag raises ``PrivateTagError`` (nothing written).
"""
from __future__ import annotations

import re

from ..base.config import quoted, section, warn
from .redact import redact_secrets, secret_kinds
from ..base.sanitize import clean_text, folded

DEFAULT_MARKER = "[PRIVATE]"
MARKERS = ("[PRIVATE]", "[REDACTED]", "")
FORMATS = ("xml", "bracket", "comment")

_TAGS = {  # format -> (opening tag, closing tag)
    # ``(?:/\s*)?``, not ``\s*/?\s*``: two runs of spaces in a row were quadratic
    "xml": (re.compile(r"<\s*private\s*(?:/\s*)?>", re.I), re.compile(r"<\s*/\s*private\s*>", re.I)),
    "bracket": (re.compile(r"\[\s*private\s*\]", re.I), re.compile(r"\[\s*/\s*private\s*\]", re.I)),
    "comment": (re.compile(r"<!--\s*private\s*-->", re.I), re.compile(r"<!--\s*/\s*private\s*-->", re.I)),
}
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)

# Top-level fields that hold structure, not prose: never rewritten.
STRUCTURAL_FIELDS = frozenset({"schema_version", "category", "id", "created_at", "updated_at",
                               "record_status", "retired_at", "archived_at", "times_updated", "confidence"})

# What ``leaks`` says of a field with an unclosed private tag (``validate`` and ``doctor`` match it).
UNCLOSED = "holds an unclosed private tag (recall shows nothing after it)"


class PrivateTagError(ValueError):
    """A private tag is not closed (or closed without being opened): nothing may be written."""


def private_settings(config: dict) -> tuple:
    """``(formats, marker)`` from ``privacy.private_tags``; bad values warn and use the defaults."""
    tags = section(config, "privacy").get("private_tags", {})
    tags = tags if isinstance(tags, dict) else {}
    formats = tags.get("formats", ["xml"])
    if not isinstance(formats, list) or not all(f in FORMATS for f in formats):
        warn(f"invalid privacy.private_tags.formats {quoted(formats)}; using ['xml']")
        formats = ["xml"]
    marker = tags.get("marker", DEFAULT_MARKER)
    if marker not in MARKERS:
        warn(f"invalid privacy.private_tags.marker {quoted(marker)}; using {DEFAULT_MARKER!r}")
        marker = DEFAULT_MARKER
    return tuple(dict.fromkeys(["xml", *formats])), marker


def _fenced_spans(text: str) -> list:
    """``(start, end)`` of every closed fenced code block; an unclosed fence protects nothing."""
    spans, pos = [], 0
    while True:
        opening = _FENCE.search(text, pos)
        line_end = text.find("\n", opening.end()) if opening else -1
        if line_end < 0:
            return spans
        fence = opening.group(1)
        closing = re.compile(r"^[ \t]{0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$", re.M)
        close = closing.search(text, line_end + 1)
        if not close:
            return spans
        spans.append((opening.start(), close.end()))
        pos = close.end()


def _tag_events(text: str, formats) -> list:
    """Every tag outside fenced code: ``(start, end, format, is_open)``, in order."""
    fences = _fenced_spans(text)
    events = []
    for fmt in formats:
        for is_open, regex in zip((True, False), _TAGS[fmt]):
            for m in regex.finditer(text):
                start, end = m.start(), m.end()
                if text[start - 1:start] == "`" and text[end:end + 1] == "`" and text[start - 2:start - 1] != "`":
                    continue  # `<private>` written as inline code (a whole span) names the tag; it opens nothing
                if not any(a <= start < b for a, b in fences):
                    events.append((start, end, fmt, is_open))
    kept, last_end = [], -1
    for ev in sorted(events):
        if ev[0] >= last_end:
            kept.append(ev)
            last_end = ev[1]
    return _without_markers(text, kept)


def _without_markers(text: str, events: list) -> list:
    """``events`` less each ``[PRIVATE]`` that is our own marker: an opener so spelled and left without a closer."""
    if DEFAULT_MARKER not in text:
        return events
    open_real, open_marker = [], []
    for i, (start, end, fmt, is_open) in enumerate(events):
        if fmt != "bracket":
            continue
        if is_open:
            (open_marker if text[start:end] == DEFAULT_MARKER else open_real).append(i)
        elif open_real:
            open_real.pop()
        elif open_marker:
            open_marker.pop()
    inert = set(open_marker)
    return [ev for i, ev in enumerate(events) if i not in inert] if inert else events


def find_sections(text: str, formats=("xml",)) -> list:
    """``(start, end)`` of every outermost private section; ``PrivateTagError`` if unbalanced."""
    sections, depth, fmt, start = [], 0, None, 0
    for ev_start, ev_end, ev_fmt, is_open in _tag_events(text, formats):
        if depth == 0:
            if not is_open:
                line = text.count("\n", 0, ev_start) + 1
                raise PrivateTagError(f"a closing private tag at line {line} has no opening tag")
            depth, fmt, start = 1, ev_fmt, ev_start
        elif ev_fmt == fmt:  # inside a section only its own format nests; others are swallowed
            depth += 1 if is_open else -1
            if depth == 0:
                sections.append((start, ev_end))
    if depth:
        raise PrivateTagError(f"a private tag opened at line {text.count(chr(10), 0, start) + 1} is never closed")
    return sections


def first_tag(text: str, formats=FORMATS, opening: bool = False):
    """Where the first private tag (``opening``: opening tag) outside fenced code starts; None without one."""
    return next((ev[0] for ev in _tag_events(text, formats) if ev[3] or not opening), None)


def strip_sections(text: str, formats, marker: str) -> tuple:
    """``(text with private sections replaced by marker, count)``; ``PrivateTagError`` if unbalanced."""
    if not isinstance(text, str) or "private" not in text.lower():
        return text, 0
    sections = find_sections(text, formats)
    if not sections:
        return text, 0
    out, pos = [], 0
    for start, end in sections:
        out.append(text[pos:start])
        inner = text[start:end]
        for regex in (regex for fmt in formats for regex in _TAGS[fmt]):
            inner = regex.sub("", inner)
        if inner.strip():  # a blank section vanishes
            out.append(marker)
        pos = end
    out.append(text[pos:])
    result = re.sub(r"\n{3,}", "\n\n", "".join(out))
    if "private" in result.lower():  # removing a section moved a code fence (a tag right before ```): refuse
        try:
            left = find_sections(result, formats)
        except PrivateTagError:
            left = True
        if left:
            raise PrivateTagError("a private section beside a code fence (```) changes the fences when removed; "
                                  "put the tag on a line of its own")
    return result, len(sections)


def scrub_text(text: str, settings: tuple) -> tuple:
    """``(clean text, private sections removed, secrets redacted)``; the NFKC form when it reveals more."""
    text = clean_text(text)
    text, private = strip_sections(text, *settings)
    text, secrets = redact_secrets(text)
    probe = text if text.isascii() else folded(text)
    if probe != text:
        probe, more_private = strip_sections(probe, *settings)
        probe, more_secrets = redact_secrets(probe)
        if more_private or more_secrets:
            return probe, private + more_private, secrets + more_secrets
    return text, private, secrets


def scrub_record(record: dict, config: dict) -> tuple:
    """``(new record, private count, secret count)``; ``PrivateTagError`` names every unbalanced field."""
    settings, counts, errors = private_settings(config), [], []

    def scrub(path, text):
        try:
            text, *found = scrub_text(text, settings)
            counts.append(found)
        except PrivateTagError as exc:
            errors.append(f"{path}: {exc}")
        return text

    out = _map_texts(record, scrub)
    if errors:
        raise PrivateTagError("; ".join(errors) + " (close it with </private>, or put literal tags in a "
                              "fenced code block; nothing was written)")
    return out, sum(private for private, _ in counts), sum(secrets for _, secrets in counts)


def _map_texts(record: dict, change) -> dict:
    """``record`` with ``change(path, text)`` for every string at any depth, ``STRUCTURAL_FIELDS`` left as they are."""
    def walk(value, path):
        if isinstance(value, str):
            return change(path, value)
        if isinstance(value, list):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {k: walk(v, f"{path}.{field_name(k)}") for k, v in value.items()}
        return value

    return {key: value if key in STRUCTURAL_FIELDS else walk(value, field_name(key)) for key, value in record.items()}


def field_name(name) -> str:
    """A field name as a message names it: a plain identifier as it is, else described (it may hold a secret)."""
    name = str(name)
    if name.isascii() and name.replace("_", "a").replace("$", "a").isalnum() and len(name) <= 40 \
            and not secret_kinds(name):
        return name
    return f"(a field name of {len(name)} characters)"


def leaks(record: dict, config: dict) -> list:
    """Fields of a stored record that still hold private sections or secrets (for ``validate``)."""
    settings, found = private_settings(config), []

    def check(path, text):
        try:
            if "private" in text.lower():  # recall hides after an unclosed tag of any format: say so
                find_sections(folded(text), FORMATS)
            _, private, secrets = scrub_text(text, settings)
        except PrivateTagError:
            found.append((path, UNCLOSED))
            return text
        if private:
            found.append((path, f"holds {private} private section(s)"))
        if secrets:
            kinds = secret_kinds(folded(text))
            found.append((path, f"holds {secrets} secret(s)" + (f" ({', '.join(kinds)})" if kinds else "")))
        return text

    _map_texts(record, check)
    return found
