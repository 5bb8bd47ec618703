"""What recall and the CLI may show of a memory file, whoever wrote it: secrets and private text hidden, looked for
in the NFKC form (``ＡＫＩＡ``) and before any other cleaning (cleaning can join what a pattern needs).
"""
from __future__ import annotations

from ..base.sanitize import clean_line, clean_tag, cut, folded, safe_name, shown_path

# A lower-case piece of every secret or private-tag pattern in redact.py and privacy.py.
HINTS = ("private", ":/", "sk-", "sk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
         "xox", "akia", "asia", "aiza", "npm_", "eyj", "bearer", "pass", "secret", "token", "key", "credential")


def might_hide(text: str) -> bool:
    """False when ``text`` surely holds no secret or private tag (a loop: ``any()`` costs twice as much)."""
    low = text.lower()
    for hint in HINTS:
        if hint in low:
            return True
    return False


def _probe(text: str) -> str:
    """``text`` in the form the patterns look at: normalised unless it is printable ASCII."""
    return text if text.isascii() and text.isprintable() else folded(text)


def _private_hidden(probe: str, opening: bool = False):
    """``probe``, private sections as ``[PRIVATE]`` (None: none); unclosed: hidden from the first (``opening``) tag."""
    from .privacy import FORMATS, PrivateTagError, first_tag, strip_sections
    try:
        shown, private = strip_sections(probe, FORMATS, "[PRIVATE]")
        return shown if private else None
    except PrivateTagError:
        start = first_tag(probe, FORMATS, opening)
        return probe[:start] + "[PRIVATE]" if start is not None else None if opening else "[PRIVATE]"


def hide(text: str, private: bool = True) -> str:
    """``text`` with private sections (``private=False``: left, for the tool's own messages) and secrets hidden."""
    if not isinstance(text, str) or not text:
        return text
    probe = _probe(text)
    if not might_hide(probe):
        return text
    from .redact import redact_secrets
    hidden = _private_hidden(probe) if private else None
    shown, secrets = redact_secrets(probe if hidden is None else hidden)
    return shown if hidden is not None or secrets else text


def hide_secrets(text: str) -> str:
    """``text`` with secrets hidden (in the normalised form), private tags left: for the tool's own messages."""
    return hide(text, private=False)


def shown_text(value, limit: int | None = None) -> str:
    """Any value as one line anyone may see: hidden parts hidden (before cleaning), one clean line, cut."""
    text = value if isinstance(value, str) else str(value)
    line = hide(clean_line(hide(text)))  # cleaning can bring the pieces of a secret together: look again
    return cut(line, limit) if limit is not None else line


def shown_message(value) -> str:
    """The tool's own message: one clean line, hidden parts hidden; a closing tag it names ("close it with") stays."""
    text = clean_line(value if isinstance(value, str) else str(value))
    probe = _probe(text)
    if might_hide(probe):
        private = _private_hidden(probe, opening=True)
        text = hide_secrets(text if private is None else private)
    return text


MAX_DEPTH = 40  # nesting shown by ``shown_value``; anything deeper is "..."


def shown_value(value, depth: int = 0):
    """A JSON value with ``hide`` applied to every string and every key, at any depth."""
    if isinstance(value, str):
        return hide(value)
    if depth >= MAX_DEPTH:
        return "..."
    if isinstance(value, list):
        return [shown_value(v, depth + 1) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key = hide(key) if isinstance(key, str) else key
            shown, n = key, 1
            while shown in out:  # two keys hidden to the same text: both kept
                n += 1
                shown = f"{key} ({n})"
            out[shown] = shown_value(item, depth + 1)
        return out
    return value


def shown_tag(tag) -> str:
    """A tag as listed: cleaned, or "" when the raw or the clean form would show a hidden part."""
    if not isinstance(tag, str):
        return ""
    clean = clean_tag(tag)
    return "" if hide(tag) != tag or hide(clean) != clean else clean


def shown_name(name) -> str:
    """A file name, id or path as printed: hidden parts hidden, then ``sanitize.shown_path``."""
    return shown_path(hide(name if isinstance(name, str) else str(name)))


def name_is_shown(name: str) -> bool:
    """Whether recall may print a memory file named ``name``: a safe name holding nothing hidden."""
    return safe_name(name) and (not might_hide(name) or hide(name) == name)


def shown_related(entries) -> dict:
    """``{stored form: shown form}`` of usable entries, hidden in the raw form (stored ``https:/u:pw@h`` hides nothing)."""
    from .relpaths import normalised
    out: dict = {}
    for raw, stored in normalised(entries):
        if stored not in out:
            out[stored] = shown_text(raw if hide(raw) != raw else stored)
    return out


def recall_title(title: str, limit: int) -> str:
    """A record's title as the index and cache keep it: one clean line, hidden parts hidden, cut."""
    title = clean_line(title)
    shown = hide(title)
    return (title if shown is title else clean_line(shown))[:limit].strip()
