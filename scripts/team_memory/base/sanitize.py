"""Text hygiene for every string that reaches Claude, a terminal or the index: one policy (``char_class``, by
Unicode category) says which code points are dropped, which become a space and which are kept."""
from __future__ import annotations

TITLE_MAX = 120

DROP, SPACE, KEEP = 0, 1, 2
_SPACE_CONTROLS = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85")
_DROPPED_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs", "Cn"))
# Default-ignorable code points filed under letters or marks (the category rule would keep them).
_FILLERS = frozenset((0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F,
                      0x2800, 0x3164, 0xFFA0))


def char_class(cp: int) -> int:
    """``DROP``, ``SPACE`` or ``KEEP`` for one code point: the whole policy."""
    ch = chr(cp)
    if ch in _SPACE_CONTROLS:
        return SPACE
    if 0xFE00 <= cp <= 0xFE0F or 0xE0000 <= cp <= 0xE01EF or cp in _FILLERS:
        return DROP
    import unicodedata  # a C module; imported on first non-ASCII text only
    cat = unicodedata.category(ch)
    return DROP if cat in _DROPPED_CATEGORIES else SPACE if cat[0] == "Z" else KEEP


class _Line(dict):
    """A ``str.translate`` table filled on demand (all of Unicode up front: ~0.3 s every hook run)."""

    def __missing__(self, cp: int):
        kind = char_class(cp)
        self[cp] = value = None if kind == DROP else " " if kind == SPACE else cp
        return value


class _Text(dict):
    """``_Line``, but tabs and newlines kept (line and paragraph separators become newlines)."""

    def __missing__(self, cp: int):
        self[cp] = value = cp if cp in (9, 10) else "\n" if cp in (0x2028, 0x2029) else _LINE[cp]
        return value


_LINE = _Line()
_TEXT = _Text()
_ASCII_TAG_DROP = {c: None for c in range(128)
                   if not (chr(c).isalnum() or chr(c) in "_.+-")}


def normalize(text: str) -> str:
    """NFKC: look-alike forms (full-width arrows, ligatures) become what the rules look for (ASCII is its own)."""
    if text.isascii():
        return text
    import unicodedata  # a C module: loaded for non-ASCII text only
    return unicodedata.normalize("NFKC", text)


def apply_policy(text: str) -> str:
    """``text`` with dropped code points removed and whitespace made a plain space (no NFKC)."""
    return text.translate(_LINE)


def clean_text(text: str) -> str:
    """Multi-line text with the policy applied: newlines and tabs kept (``\\r\\n`` -> ``\\n``), no NFKC."""
    # ASCII without controls but tab and newline is kept whole by the table (``char_class`` keeps 0x20-0x7e).
    plain = text.isascii() and (text.isprintable() or len(text.translate(_ASCII_CONTROLS)) == len(text))
    return text if plain else text.replace("\r\n", "\n").translate(_TEXT)


_ASCII_CONTROLS = {c: None for c in (*range(32), 127) if c not in (9, 10)}


def folded(text: str) -> str:
    """NFKC and the policy until stable (newlines kept): the form secrets and private tags are looked for in."""
    for _ in range(3):
        new = normalize(clean_text(text))
        if new == text:
            break
        text = new
    return text


def clean_line(text: str) -> str:
    """One line of plain, safe text (no escaping, no length cut)."""
    # Printable ASCII holds nothing the policy changes (keep in step with ``char_class``).
    if (text.isascii() and text.isprintable() and "  " not in text and " -> " not in text
            and "#tags:" not in text and text == text.strip()):
        return text
    text = normalize(text).translate(_LINE)
    if not text.isascii():  # removing a joiner can let NFKC compose what it separated
        text = normalize(text).translate(_LINE)
    text = " ".join(text.split())
    while True:  # what could forge an index line: " -> " and "#tags:", until none is left
        new = text.replace(" -> ", " - ").replace("#tags:", "")
        if new == text:
            return text.strip()
        text = new


# Tag names (lower-cased, without "-", "_", ":" or spaces) that could end or forge the <memory-context> block or
# the client's wrapper (<system-reminder>); prefixes, so look-alikes (</memory‐context>, </system_x>) count.
BLOCK_TAG_PREFIXES = ("memory", "system")


def neutralize_block(text: str) -> str:
    """``text`` verbatim, but a ``<`` opening or closing one of the block's tags becomes ``&lt;`` (after clean_line)."""
    if "<" not in text:
        return text
    parts = text.split("<")
    return parts[0] + "".join(("&lt;" if _forged(part) else "<") + part for part in parts[1:])


def _forged(after: str) -> bool:
    """Does the text after a ``<`` name one of the block's tags (``BLOCK_TAG_PREFIXES``)?"""
    name = []
    for ch in after.lstrip(" /\\!?"):
        if len(name) >= 20 or not (ch.isalnum() or ch in "-_: "):
            break
        if ch not in "-_: ":
            name.append(ch.lower())
    return "".join(name).startswith(BLOCK_TAG_PREFIXES)


def escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, with an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "\u2026"


def sanitize_title(title: str, limit: int = TITLE_MAX) -> str:
    """A title in the XML-escaped form (the orientation block): clean, cut, then escaped (no split entity)."""
    return escape_xml(clean_line(title)[:limit].strip())


def block_text(text: str, limit: int = TITLE_MAX) -> str:
    """One-line text as printed in the ``<memory-context>`` block: clean, cut, verbatim but for forged tags."""
    return neutralize_block(cut(clean_line(text), limit))


def display(text) -> str:
    """Any value as one safe terminal line (no escape sequences, no invisible text)."""
    return clean_line(text if isinstance(text, str) else str(text))


def clean_tag(tag: str) -> str:
    """A tag as stored and indexed: one lowercase word (letters of any script, digits, ``.+-_``; never a comma)."""
    tag = clean_line(tag).lower().replace(" ", "-")
    if tag.isascii():
        return tag.translate(_ASCII_TAG_DROP).strip(".-")
    import re
    return re.sub(r"[^\w.+-]", "", tag).strip(".-")


def block_line(entry: dict) -> str:
    """One index entry as printed inside ``<memory-context>``: title, path, sorted tags."""
    title, path = block_text(entry["title"]), neutralize_block(clean_line(entry["path"]))
    tags = sorted({neutralize_block(clean_line(t)) for t in entry["tags"]})
    return f"- [{entry['category']}] {title} -> {path}" + (f" #tags:{','.join(tags)}" if tags else "")


def safe_name(name: str) -> bool:
    """A memory file name printable as it is: letters and digits of any script, ``-_.``, policy- and NFKC-stable."""
    plain = name.replace("-", "").replace("_", "").replace(".", "")
    return plain.isalnum() and (name.isascii() or (apply_policy(name) == name and normalize(name) == name))


def shown_path(path: str) -> str:
    """A path as printed: a character the policy would drop or make a space (but " ") is ``?``, a shell pattern."""
    if path.isascii() and path.isprintable():
        return path
    return "".join(c if c == " " or char_class(ord(c)) == KEEP else "?" for c in path)
