"""Text hygiene shared by the write side, the index writer and the retrieval output.

``clean_line`` makes one safe line of text: NFKC-normalised, with control,
zero-width, bidi-override and Unicode tag characters removed, index-format
markers (`` -> `` and ``#tags:``) neutralised and whitespace collapsed.
``sanitize_title`` adds the 120-character cut and XML escaping used inside the
``<memory-context>`` block.
"""
from __future__ import annotations

TITLE_MAX = 120

_PATTERNS = {
    "control": r"[\x00-\x1f\x7f]",
    # zero-width, bidi marks and overrides, line/paragraph separators, word joiners,
    # BOM, and the Unicode tag block used for invisible "ASCII smuggling".
    "invisible": "[\u200b-\u200f\u2028-\u202f\u2060-\u2069\ufeff\U000e0000-\U000e007f]",
    "spaces": r"\s+",
    "tag_chars": r"[^\w.+-]",
}
_compiled: dict = {}
# ASCII characters a tag keeps: letters, digits, "_", ".", "+", "-" (what [\w.+-] keeps of ASCII)
_ASCII_TAG_DROP = {c: None for c in range(128)
                   if not (chr(c).isalnum() or chr(c) in "_.+-")}


def _re(name: str):
    """The compiled pattern ``name`` (``re`` is imported on first use, off the hook's fast path)."""
    got = _compiled.get(name)
    if got is None:
        import re
        got = _compiled[name] = re.compile(_PATTERNS[name])
    return got


def normalize(text: str) -> str:
    """NFKC, so look-alike forms (full-width arrows, ligatures) are caught by the rules below."""
    import unicodedata
    return unicodedata.normalize("NFKC", text)


def neutralize_markers(text: str) -> str:
    """Remove what could forge an index line: `` -> `` and ``#tags:``, until none is left."""
    while True:
        new = text.replace(" -> ", " - ").replace("#tags:", "")
        if new == text:
            return text
        text = new


def clean_line(text: str) -> str:
    """One line of plain, safe text (no escaping, no length cut)."""
    if (text.isascii() and text.isprintable() and "  " not in text and " -> " not in text
            and "#tags:" not in text and text == text.strip()):
        return text  # already clean: every rule below would leave it as it is
    text = normalize(text)
    text = _re("control").sub(" ", text)
    text = _re("invisible").sub("", text)
    text = _re("spaces").sub(" ", text).strip()
    return neutralize_markers(text).strip()


def escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, with an ellipsis when something was cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "\u2026"


def sanitize_title(title: str, limit: int = TITLE_MAX) -> str:
    """A title as printed inside ``<memory-context>``: clean, cut to ``limit``, XML-escaped.

    The cut happens before escaping so an entity such as ``&amp;`` is never split.
    """
    return escape_xml(clean_line(title)[:limit].strip())


def clean_tag(tag: str) -> str:
    """A tag as stored and indexed: one lowercase word (letters of any script, digits, ``.+-_``)."""
    tag = clean_line(tag).lower().replace(" ", "-")
    if tag.isascii():
        return tag.translate(_ASCII_TAG_DROP).strip(".-")
    return _re("tag_chars").sub("", tag).strip(".-")


def block_line(entry: dict) -> str:
    """One index entry as printed inside ``<memory-context>``: sanitized title, escaped path, sorted tags."""
    line = f"- [{entry['category']}] {sanitize_title(entry['title'])} -> {escape_xml(entry['path'])}"
    tags = sorted({escape_xml(t) for t in entry["tags"]})
    if tags:
        line += f" #tags:{','.join(tags)}"
    return line
