"""Markdown written for Claude (CLAUDE.md, a rules file, an auto memory file) cut into pieces:
``split_markdown(text)`` returns ``Piece``s, each with the headings above it and its 1-based source lines.

A bullet (with its indented continuation and sub-bullets) is a piece; a run of numbered items is one piece of
``steps``; a paragraph ending with ``:`` just before a list is that list's ``lead``; a run of bullets that lists
the repository (under a "structure" or "layout" heading, or each naming a path first) is one piece; any other
paragraph is a piece. Fenced code and tables stay whole with the piece before them. Headings, ``@path`` lines,
HTML comments and front matter (read into ``front``) are not pieces. Private sections that take whole lines are
blanked before anything is cut. Plain string work, no ``re``: every line here is the user's text.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..records.privacy import FORMATS, find_sections

MAX_SOURCE_CHARS = 2_000_000  # a CLAUDE.md larger than this is not a CLAUDE.md
MAX_PIECE_CHARS = 20_000  # a piece stops growing here (a memory's text holds 10,000): appending stays linear
LIST_CHARS = 2_000  # a led list or a listing longer than this goes on in a new piece with the same lead


@dataclass
class Piece:
    kind: str  # "bullet", "steps", "listing" (``_listings``) or "paragraph"
    headings: list
    text: str = ""
    steps: list = field(default_factory=list)
    lead: str = ""
    first: int = 0  # 1-based source lines, inclusive
    last: int = 0

    @property
    def lines(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


def _joined(text: str, sep: str, more: str) -> str:
    """``text + sep + more``, unless ``text`` is already ``MAX_PIECE_CHARS`` long (then ``text``: a million
    continuation lines cost one pass, not a copy of the piece per line)."""
    return text if len(text) >= MAX_PIECE_CHARS else text + sep + more


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def bullet_body(line: str):
    """The text after a bullet mark (``- x`` -> ``x``), or None when ``line`` is no bullet."""
    s = line.lstrip(" \t")
    if len(s) >= 2 and s[0] in "-*+" and s[1] in " \t":
        body = s[2:].strip()
        if body.startswith("[ ] ") or body.startswith("[x] ") or body.startswith("[X] "):
            body = body[4:].strip()  # a task list item
        return body
    return None


def number_body(line: str):
    """The text after a list number (``12. x`` -> ``x``), or None."""
    s = line.lstrip(" \t")
    i = 0
    while i < len(s) and i < 9 and s[i].isdigit() and s[i].isascii():
        i += 1
    if 0 < i < len(s) - 1 and s[i] in ".)" and s[i + 1] in " \t":
        return s[i + 2:].strip()
    return None


def heading_of(line: str):
    """``(level, text)`` of an ATX heading (``## Build``), or None."""
    s = line.lstrip(" ")
    if len(line) - len(s) > 3 or not s.startswith("#"):
        return None
    level = len(s) - len(s.lstrip("#"))
    rest = s[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    text = rest.strip().rstrip("#").strip()
    return level, text


def _fence(line: str) -> str:
    s = line.lstrip(" ")
    if len(line) - len(s) > 3:
        return ""
    for mark in ("```", "~~~"):
        if s.startswith(mark):
            return mark
    return ""


def _is_rule(s: str) -> bool:
    t = s.replace(" ", "")
    return len(t) >= 3 and len(set(t)) == 1 and t[0] in "-*_="


def front_matter(lines: list) -> tuple:
    """``(fields, lines it takes)``: ``key: value`` pairs of a leading ``---`` block."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    fields = {}
    for n in range(1, min(len(lines), 60)):
        line = lines[n]
        if line.strip() in ("---", "..."):
            return fields, n + 1
        key, sep, value = line.partition(":")
        if sep and key.strip() and " " not in key.strip():
            fields[key.strip().lower()] = value.strip().strip("'\"")
    return {}, 0


def blank_private(text: str) -> tuple:
    """``(text, sections blanked)``: private sections that take whole lines become empty lines."""
    if "private" not in text.lower():
        return text, 0
    try:
        sections = find_sections(text, FORMATS)
    except Exception:  # noqa: BLE001 - an unbalanced tag: the write path refuses the pieces that hold it
        return text, 0
    chars, blanked = list(text), 0
    for start, end in sections:
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        before, after = text[line_start:start], text[end:line_end]
        if before.strip(" \t-*+>") == "" and number_body(before + "x") is None and after.strip() == "":
            for i in range(line_start, line_end):
                if chars[i] != "\n":
                    chars[i] = ""
            blanked += 1
    return "".join(chars), blanked


class _Cutter:
    """One pass over the lines; ``pieces`` in source order."""

    def __init__(self):
        self.pieces: list = []
        self.headings: list = []  # (level, text)
        self.para: list = []  # (n, text) of the paragraph being read
        self.current = None  # the bullet or steps piece still taking continuation lines

    def heading_texts(self) -> list:
        return [t for _, t in self.headings]

    def flush_para(self) -> None:
        if self.para:
            text = " ".join(t.strip() for _, t in self.para)
            self.pieces.append(Piece("paragraph", self.heading_texts(), text=text,
                                     first=self.para[0][0], last=self.para[-1][0]))
            self.para = []

    def close(self) -> None:
        self.flush_para()
        self.current = None

    def attach_block(self, first: int, last: int, block: str) -> None:
        """Code or a table: kept whole, with the piece before it in this section."""
        target = self.current
        if target is None and self.pieces and self.pieces[-1].headings == self.heading_texts() and not self.para:
            target = self.pieces[-1]
        if self.para:
            self.flush_para()
            target = self.pieces[-1]
        if target is None:
            self.pieces.append(Piece("paragraph", self.heading_texts(), text=block, first=first, last=last))
            return
        if target.kind == "steps" and target.steps:
            target.steps[-1] = _joined(target.steps[-1], "\n", block)
        else:
            target.text = _joined(target.text, "\n", block)
        target.last = max(target.last, last)

    def bullet(self, n: int, body: str) -> None:
        if self.current is not None and self.current.kind == "bullet" and self.current.lead and not self.para:
            if len(self.current.text) + len(body) <= LIST_CHARS:
                self.current.text += f"\n- {body}"  # the next item of a led list
                self.current.last = n
            else:  # a long list goes on in a piece of its own, under the same lead
                self.current = Piece("bullet", self.heading_texts(), text=f"{self.current.lead}\n- {body}",
                                     lead=self.current.lead, first=n, last=n)
                self.pieces.append(self.current)
            return
        self.flush_para()
        lead = self.lead_paragraph()
        if lead is not None:  # "All changes need to:" and its items: one piece
            self.current = Piece("bullet", self.heading_texts(), text=f"{lead.text}\n- {body}", lead=lead.text,
                                 first=lead.first, last=n)
            self.pieces[-1] = self.current
            return
        self.current = Piece("bullet", self.heading_texts(), text=body, first=n, last=n)
        self.pieces.append(self.current)

    def lead_paragraph(self):
        """The paragraph just before a list that introduces it (ends with ``:``), or None."""
        last = self.pieces[-1] if self.pieces else None
        if (last is not None and last.kind == "paragraph" and last.headings == self.heading_texts()
                and last.text.rstrip().endswith(":") and "\n" not in last.text):
            return last
        return None

    def step(self, n: int, body: str) -> None:
        if self.current is not None and self.current.kind == "steps":
            self.current.steps.append(body)
            self.current.last = n
            return
        lead, first = "", n
        self.flush_para()
        last = self.lead_paragraph()
        if last is not None:
            lead, first = last.text, last.first  # "To release a version:" introduces the list
            self.pieces.pop()
        self.current = Piece("steps", self.heading_texts(), steps=[body], lead=lead, first=first, last=n)
        self.pieces.append(self.current)

    def continuation(self, n: int, text: str) -> None:
        target = self.current
        body = bullet_body(text)
        line = f"- {body}" if body is not None else text.strip()
        if target.kind == "steps":
            target.steps[-1] = _joined(target.steps[-1], "\n" if body is not None else " ", line)
        else:
            target.text = _joined(target.text, "\n" if body is not None else " ", line)
        target.last = n


def split_markdown(text: str) -> tuple:
    """``(pieces, front matter fields, private sections blanked)`` of one Markdown file."""
    text = text[:MAX_SOURCE_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    text, blanked = blank_private(text)
    lines = text.split("\n")
    front, skip = front_matter(lines)
    cut = _Cutter()
    n, blank_before = skip, False
    while n < len(lines):
        line, number = lines[n], n + 1
        stripped = line.strip()
        mark = _fence(line)
        if mark:  # fenced code: to its closing fence (or the end), whole
            end = n + 1
            while end < len(lines) and not lines[end].lstrip(" ").startswith(mark):
                end += 1
            end = min(end, len(lines) - 1)
            cut.attach_block(number, end + 1, "\n".join(lines[n:end + 1]))
            n, blank_before = end + 1, False
            continue
        if stripped.startswith("|"):  # a table: its rows, whole
            end = n
            while end + 1 < len(lines) and lines[end + 1].strip().startswith("|"):
                end += 1
            cut.attach_block(number, end + 1, "\n".join(x.strip() for x in lines[n:end + 1]))
            n, blank_before = end + 1, False
            continue
        heading = heading_of(line)
        if not stripped or heading or _is_rule(stripped) or stripped.startswith("<!--") or stripped.startswith("@"):
            if heading:
                cut.close()
                level, title = heading
                cut.headings = [h for h in cut.headings if h[0] < level] + [(level, title)]
            elif stripped.startswith("<!--"):  # a comment: to its end, never a memory
                while n < len(lines) and "-->" not in lines[n]:
                    n += 1
            elif stripped:
                cut.close()
            else:
                cut.flush_para()
            blank_before = not stripped
            n += 1
            continue
        body, step = bullet_body(line), number_body(line)
        indented = _indent(line) >= 2
        if cut.current is not None and indented and (body is not None or step is None or cut.current.kind != "steps"):
            cut.continuation(number, line)  # under the item above: its own text, sub-bullets included
        elif step is not None:
            cut.step(number, step)
        elif body is not None:
            cut.bullet(number, body)
        elif cut.current is not None and not blank_before:
            cut.continuation(number, line)  # a lazy continuation line
        else:
            cut.current = None
            cut.para.append((number, line))
        blank_before = False
        n += 1
    cut.close()
    return _listings([p for p in cut.pieces if (p.text.strip() or p.steps)]), front, blanked


LISTING_WORDS = ("structure", "layout", "directories", "directory", "folders", "tree")


def _names_a_path(text: str) -> bool:
    """The item starts with a file or folder name in backquotes (``src/``, ``**`pyproject.toml`**``)."""
    s = text.lstrip("*_ ")
    end = s.find("`", 1) if s.startswith("`") else -1
    name = s[1:end] if 0 < end <= 120 else ""
    return bool(name) and ("/" in name or "." in name.strip(".")) and all(
        ch.isalnum() or ch in "_.-/" for ch in name)


def _listing_item(piece: Piece) -> bool:
    return piece.kind == "bullet" and not piece.lead and bool(piece.headings) and (
        any(w in piece.headings[-1].lower() for w in LISTING_WORDS) or _names_a_path(piece.text))


def _led(piece: Piece, heading: str) -> Piece:
    piece.kind, piece.lead = "listing", heading + ":"
    piece.text = f"{piece.lead}\n- {piece.text}"
    return piece


def _listings(pieces: list) -> list:
    """Each run of bullets that lists the repository (``_listing_item``, one section) made one piece, led by
    its heading (a new one past ``LIST_CHARS``); a single path-first bullet elsewhere stays as it is."""
    out: list = []
    listing = None  # the piece the current run is gathered into
    for piece in pieces:
        prev = out[-1] if out else None
        if not (_listing_item(piece) and prev is not None and prev.headings == piece.headings
                and (prev is listing or _listing_item(prev))):
            out.append(piece)
            continue
        if prev is not listing:  # the run's first item becomes the listing
            listing = _led(prev, piece.headings[-1])
        if len(listing.text) + len(piece.text) > LIST_CHARS:  # full: this item starts the next one
            listing = _led(piece, piece.headings[-1])
            out.append(listing)
            continue
        listing.text += f"\n- {piece.text}"
        listing.last = piece.last
    return out
