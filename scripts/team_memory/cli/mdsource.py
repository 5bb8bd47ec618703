"""Markdown written for Claude (CLAUDE.md, a rules file, an auto memory file) as proposed memories, written nowhere:
``split_markdown(text)`` cuts a file into ``Piece``s (a bullet, a run of numbered steps, a listing, a paragraph);
``proposals(path, config)`` gives one ``Proposal`` per piece. Plain string work, no ``re``: every line is the user's.
The category comes from the triage cues, heading words and a numbered list (a runbook), else ``preference``.
Content says what the text says and no more; ids are title slugs, so a second import finds them taken."""
from __future__ import annotations

import os
from collections import namedtuple
from dataclasses import dataclass, field, replace

from ..base.safefs import read_regular
from ..base.sanitize import TITLE_MAX, clean_line, clean_tag
from ..capture.triage import compile_cues, cue_hits
from ..records.store import slugify
from ..records.privacy import FORMATS, PrivateTagError, find_sections, private_settings, scrub_text
from ..text.textnorm import STOP_WORDS

MAX_SOURCE_CHARS = 2_000_000  # a CLAUDE.md larger than this is not a CLAUDE.md
MAX_PIECE_CHARS = 20_000  # a piece stops growing here (a memory's text holds 10,000): appending stays linear
LIST_CHARS = 2_000  # a led list or a listing longer than this goes on in a new piece with the same lead


@dataclass
class Piece:
    kind: str  # "bullet", "steps", "listing" (``_listing_item``) or "paragraph"
    headings: list
    text: str = ""
    steps: list = field(default_factory=list)
    lead: str = ""
    first: int = 0  # 1-based source lines, inclusive
    last: int = 0

    @property
    def lines(self) -> str:  # "12" or "12-15"
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"

    def add(self, sep: str, more: str, last: int) -> None:
        """``sep + more`` after the last step or the text, unless that is full (appending stays linear); to ``last``."""
        self.last = max(self.last, last)
        if self.kind == "steps":
            if len(self.steps[-1]) < MAX_PIECE_CHARS:
                self.steps[-1] += sep + more
        elif len(self.text) < MAX_PIECE_CHARS:
            self.text += sep + more


def bullet_body(line: str):
    """The text after a bullet mark (``- x`` -> ``x``), or None when ``line`` is no bullet."""
    s = line.lstrip(" \t")
    if len(s) >= 2 and s[0] in "-*+" and s[1] in " \t":
        body = s[2:].strip()
        return body[4:].strip() if body[:4] in ("[ ] ", "[x] ", "[X] ") else body  # (a task list item)
    return None


def number_body(line: str):
    """The text after a list number (``12. x`` -> ``x``), or None."""
    s = line.lstrip(" \t")
    i = len(s[:9]) - len(s[:9].lstrip("0123456789"))  # up to 9 ASCII digits
    if 0 < i < len(s) - 1 and s[i] in ".)" and s[i + 1] in " \t":
        return s[i + 2:].strip()
    return None


def heading_of(line: str):
    """``(level, text)`` of an ATX heading (``## Build``), or None."""
    s = line.lstrip(" ")
    level = len(s) - len(s.lstrip("#"))
    rest = s[level:]
    if len(line) - len(s) > 3 or not 0 < level <= 6 or rest[:1] not in ("", " ", "\t"):
        return None
    return level, rest.strip().rstrip("#").strip()


def front_matter(lines: list) -> tuple:
    """``(fields, lines it takes)``: ``key: value`` pairs of a leading ``---`` block."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    fields = {}
    for n, line in enumerate(lines[1:60], 1):
        if line.strip() in ("---", "..."):
            return fields, n + 1
        key, sep, value = line.partition(":")
        if sep and key.strip() and " " not in key.strip():
            fields[key.strip().lower()] = value.strip().strip("'\"")
    return {}, 0


def blank_private(text: str) -> tuple:
    """``(text, sections blanked)``: private sections that take whole lines become empty lines."""
    try:
        sections = find_sections(text, FORMATS) if "private" in text.lower() else []
    except Exception:  # noqa: BLE001 - an unbalanced tag: the write path refuses the pieces that hold it
        return text, 0
    chars, blanked = list(text), 0
    for start, end in sections:
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end) % (len(text) + 1)  # (-1: the end of the text)
        before, after = text[line_start:start], text[end:line_end]
        if before.strip(" \t-*+>") == "" and number_body(before + "x") is None and after.strip() == "":
            chars[line_start:line_end] = ["\n" if c == "\n" else "" for c in chars[line_start:line_end]]
            blanked += 1
    return "".join(chars), blanked


class _Cutter:
    """One pass over the lines: ``pieces`` final, in source order; ``open``, the last piece (code or a table may
    still grow it); ``current``, the list item taking continuation lines; ``listing``, the run being gathered."""

    def __init__(self):
        self.pieces: list = []
        self.section: list = []  # the headings above, outermost first
        self.para: list = []  # (n, text)
        self.open = self.current = self.listing = None

    def start(self, piece: Piece) -> Piece:
        """``piece`` opens; the one before is final: dropped when empty, or gathered into its section's listing."""
        done, self.open = self.open, piece
        if done is None or not (done.text.strip() or done.steps):
            return piece
        prev = self.pieces[-1] if self.pieces else None
        if not (_listing_item(done) and prev is not None and prev.headings == done.headings
                and (prev is self.listing or _listing_item(prev))):
            self.pieces.append(done)
            return piece
        if prev is not self.listing:  # the run's first item becomes the listing
            self.listing = _led(prev)
        if len(self.listing.text) + len(done.text) > LIST_CHARS:  # full: this item starts the next one
            self.listing = _led(done)
            self.pieces.append(self.listing)
        else:
            self.listing.add("\n", f"- {done.text}", done.last)
        return piece

    def flush_para(self) -> None:
        if self.para:
            text = " ".join(t.strip() for _, t in self.para)
            self.start(Piece("paragraph", self.section, text=text, first=self.para[0][0], last=self.para[-1][0]))
            self.para = []

    def close(self) -> None:
        self.flush_para()
        self.current = None

    def attach_block(self, first: int, last: int, block: str) -> None:
        """Code or a table: kept whole, with the piece before it in this section."""
        self.flush_para()
        same = self.open is not None and self.open.headings == self.section
        target = self.current or (self.open if same else None)
        if target is None:
            self.start(Piece("paragraph", self.section, text=block, first=first, last=last))
            return
        target.add("\n", block, last)

    def item(self, kind: str, n: int, body: str) -> None:
        """A bullet or a step: the next item of the list being read, or a new piece with its lead-in."""
        current = self.current
        more = current is not None and current.kind == kind and (kind == "steps" or current.lead)
        if more and kind == "steps":
            current.steps.append(body)
            current.last = n
        elif more and len(current.text) + len(body) <= LIST_CHARS:
            current.add("\n", f"- {body}", n)  # the next item of a led list
        else:  # a long led list goes on in a piece of its own, under the same lead
            lead, first = current.lead if more else "", n
            if not more:  # a paragraph ending with ":" just before the list is its lead-in
                self.flush_para()
                last = self.open
                if (last is not None and last.kind == "paragraph" and last.headings == self.section
                        and last.text.rstrip().endswith(":") and "\n" not in last.text):
                    self.open, lead, first = None, last.text, last.first
            text = "" if kind == "steps" else f"{lead}\n- {body}" if lead else body
            self.current = self.start(Piece(kind, self.section, text=text, steps=[body] if kind == "steps" else [],
                                            lead=lead, first=first, last=n))

    def continuation(self, n: int, text: str) -> None:
        body = bullet_body(text)
        self.current.add("\n" if body is not None else " ", f"- {body}" if body is not None else text.strip(), n)


def split_markdown(text: str) -> tuple:
    """``(pieces, front matter fields, private sections blanked)`` of one Markdown file."""
    text = text[:MAX_SOURCE_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    text, blanked = blank_private(text)
    lines = text.split("\n")
    front, n = front_matter(lines)
    cut, blank_before, levels = _Cutter(), False, []  # levels: (level, text) of the headings above
    while n < len(lines):
        line, number, stripped = lines[n], n + 1, lines[n].strip()
        heading, rule, unindented = heading_of(line), stripped.replace(" ", ""), line.lstrip(" ")
        mark = unindented[:3] if len(line) - len(unindented) <= 3 and unindented[:3] in ("```", "~~~") else ""
        if mark or stripped.startswith("|"):  # fenced code to its closing fence (or the end), or a table: whole
            end = n + 1 if mark else n
            while mark and end < len(lines) and not lines[end].lstrip(" ").startswith(mark):
                end += 1
            while not mark and end + 1 < len(lines) and lines[end + 1].strip().startswith("|"):
                end += 1
            end = min(end, len(lines) - 1)
            block = lines[n:end + 1] if mark else [row.strip() for row in lines[n:end + 1]]
            cut.attach_block(number, end + 1, "\n".join(block))
            n = end
        elif heading:
            cut.close()
            levels = [h for h in levels if h[0] < heading[0]] + [heading]
            cut.section = [t for _, t in levels]
        elif stripped.startswith("<!--"):  # a comment: to its end, never a memory
            while n < len(lines) and "-->" not in lines[n]:
                n += 1
        elif not stripped:
            cut.flush_para()
        elif stripped.startswith("@") or len(rule) >= 3 and len(set(rule)) == 1 and rule[0] in "-*_=":
            cut.close()  # an @path line or a rule
        else:
            body, step = bullet_body(line), number_body(line)
            indented = len(line) - len(line.lstrip(" \t")) >= 2
            current = cut.current
            if current is not None and (indented and (body is not None or step is None or current.kind != "steps")
                                        or not blank_before and body is None and step is None):
                cut.continuation(number, line)  # under the item above (sub-bullets included), or a lazy continuation
            elif step is not None:
                cut.item("steps", number, step)
            elif body is not None:
                cut.item("bullet", number, body)
            else:
                cut.current = None
                cut.para.append((number, line))
        blank_before = not stripped
        n += 1
    cut.close()
    cut.start(None)
    return cut.pieces, front, blanked


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


def _led(piece: Piece) -> Piece:
    piece.kind, piece.lead = "listing", piece.headings[-1] + ":"
    piece.text = f"{piece.lead}\n- {piece.text}"
    return piece


NOT_STATED = "not stated in the source"
MAX_FILE_BYTES = 2 * 1024 * 1024
CATEGORY_ORDER = ("decision", "constraint", "runbook", "tech_debt", "preference")

# heading words that say what a section holds (a word of the heading, lower-cased)
HEADING_HINTS = {
    "decision": ("decision", "decisions", "architecture", "adr", "adrs", "design", "choices", "stack"),
    "constraint": ("constraint", "constraints", "limit", "limits", "rules", "security", "compliance",
                   "requirements", "restrictions", "policy", "policies", "gotchas", "never"),
    "runbook": ("runbook", "runbooks", "how-to", "howto", "deploy", "deploying", "deployment", "release",
                "releasing", "setup", "troubleshooting", "recovery", "procedure", "procedures", "steps"),
    "tech_debt": ("debt", "todo", "todos", "known", "issues", "workarounds", "hacks", "fixme", "legacy"),
    "preference": ("conventions", "convention", "style", "preferences", "guidelines", "practices", "workflow"),
}
STRONG_WORDS = ("always", "never", "must", "do not", "don't", "required", "mandatory")
LIMIT_WORDS = ("at most", "at least", "no more than", "maximum", "minimum", "limit", "must not", "never exceed",
               "hard cap", "timeout", "quota")
REJECTING = (" over ", " instead of ", " rather than ")
POLICY_WORDS = ("review", "approval", "approve", "sign-off", "policy", "legal", "licen", "compliance")


Proposal = namedtuple("Proposal", "record source lines why")  # source: the file as given; why: what chose the category


def plain(text: str, link_text: bool = True) -> str:
    """One line without Markdown emphasis and links (``[x](url)`` -> ``x``, or nothing when not ``link_text``).
    Linear: a line where a link fails to close holds no further link."""
    out = []
    for line in text.split("\n"):
        i, links = 0, True
        while i < len(line):
            if links and line[i] == "[":
                close = line.find("](", i)
                end = line.find(")", close + 2) if close > 0 else -1
                links = end > 0
                if links:
                    out.append(line[i + 1:close] if link_text else " ")
                    i = end + 1
                    continue
            if line.startswith(("**", "__"), i):
                i += 2
                continue
            out.append(line[i])
            i += 1
        out.append("\n")
    return " ".join("".join(out).split())


def title_of(text: str, whole: bool = False) -> str:
    """The first sentence (the first line when ``whole``), cut at a word boundary to fit a title."""
    line = plain(text.split("\n", 1)[0])
    for stop in () if whole else (". ", "; ", ": "):
        at = line.find(stop)
        if 20 <= at:
            line = line[:at]
            break
    line = line.rstrip(".:;, ")
    limit = min(TITLE_MAX, 100)
    if len(line) > limit:
        line = line[:limit - 1]
        if " " in line[limit // 2:]:
            line = line[:line.rindex(" ")]
        line = line.rstrip(".,;: ") + "\u2026"
    return clean_line(line) or "Imported note"


def _words(text: str) -> list:
    runs = "".join(ch if ch.isalnum() or ch in "-_.+" else " " for ch in text.lower()).split()
    return [w for w in (run.strip(".-") for run in runs) if w]


def tags_of(headings: list, text: str, source_tag: str) -> list:
    """Words of the nearest heading, file names in backticks (``file_name``), the source tag; at most 8."""
    words = [w for heading in headings[-1:] for w in _words(plain(heading))]  # (a file's title would tag them all)
    words += [code.strip().strip("/").split("/")[-1] for code in text.split("`")[1::2][:6] if file_name(code)]
    tags: list = []
    for i, word in enumerate(words + [source_tag]):  # the source tag always kept: it says where the memory came from
        tag = clean_tag(word)[:40].strip(".-")
        room = len(tags) < 7 or i == len(words)
        if room and len(tag) > 1 and tag not in STOP_WORDS and tag not in tags and not tag.isdigit():
            tags.append(tag)
    return tags


def file_name(code: str) -> bool:
    """Inline code that names a file or folder (``src/``, ``pyproject.toml``), not ``id=None`` or ``os.replace``."""
    code = code.strip()
    if not (1 < len(code) <= 60 and all(ch.isalnum() or ch in "_.-/" for ch in code)
            and any(ch.isalpha() for ch in code)):
        return False
    last = code.rstrip("/").rpartition("/")[2].lstrip(".")
    if "." not in last:
        return "/" in code or code.startswith(".")  # a folder, a path without an extension, a dotfile
    extension = last.rpartition(".")[2]
    return 0 < len(extension) <= 5 and extension.isalnum() and extension.islower()


FILLER = frozenset({"see", "also", "read", "more", "details", "docs", "documentation", "here", "link", "links",
                    "for", "in", "at", "on", "the", "a", "an", "and", "or", "of", "to"})


def only_links(text: str) -> bool:
    """A piece that is nothing but links (``See <https://...>.``): a pointer to the rules, not a rule."""
    rest = plain(text, link_text=False)
    words = [w.lower() for w in rest.replace("<", " ").replace(">", " ").split()]
    has_link = rest != plain(text) or any(w.startswith(("http://", "https://")) for w in words)
    words = [w for w in words if not w.startswith(("http://", "https://"))]
    return has_link and not [w for w in _words(" ".join(words)) if w not in FILLER]


def classify(text: str, headings: list, cues: dict, steps: bool) -> tuple:
    """``(category, why)`` for one piece."""
    if steps:
        return "runbook", "a numbered list"
    lowered = " ".join(text.lower().split())
    scores = {c: min(cue_hits(cues[c][0], lowered), 2) if len(cues[c][0]) else 0 for c in CATEGORY_ORDER}
    if any(w in lowered for w in LIMIT_WORDS) or any(ch.isdigit() for ch in lowered) and "must" in lowered:
        scores["constraint"] += 1
    if scores["decision"]:
        scores["decision"] += sum(w in lowered for w in REJECTING)
    nearest_first = [set(_words(plain(h))) for h in reversed(headings)]  # the category the nearest heading names:
    hint = next((c for words in nearest_first for c in CATEGORY_ORDER if not words.isdisjoint(HEADING_HINTS[c])), None)
    if hint:
        scores[hint] += 2
    best = max(CATEGORY_ORDER, key=lambda c: (scores[c], c == hint, -CATEGORY_ORDER.index(c)))
    if scores[best] <= 0:
        return "preference", "the fallback (no cue matched)"
    return best, "the heading" if best == hint and scores[best] <= 2 else "its words"


def _reason(text: str) -> str:
    """What follows "because"/"since"/"so that" in ``text``; empty when nothing is given."""
    lowered = text.lower()
    for word in (" because ", " since ", " so that ", " as it ", " - why: ", " (why: "):
        at = lowered.find(word)
        if at >= 0:
            return plain(text[at + 1:]).rstrip(").")
    return ""


def _rejected(text: str) -> list:
    lowered = text.lower()
    for word in REJECTING:
        at = lowered.find(word)
        if at >= 0:
            option = plain(text[at + len(word):]).split(",")[0].split(";")[0].split(" because ")[0]
            option = option.rstrip(".)").strip()
            if 0 < len(option) <= 120:
                return [{"option": option, "rejected_reason": NOT_STATED}]
    return []


def content_for(category: str, text: str, steps: list, lead: str, headings: list, where: str,
                reason: str = "") -> dict:
    body = text.strip() if text.strip() else "\n".join(steps)
    reason = reason or _reason(body) or NOT_STATED  # (``reason``: a topic file's **Why:**)
    section = " > ".join(plain(h) for h in headings) or "top"
    lowered = body.lower()
    strong = any(w in lowered for w in STRONG_WORDS)
    if category == "decision":
        return {"status": "accepted", "context": f"Written in {where} (section: {section}).", "decision": body,
                "rationale": [reason], "alternatives": _rejected(body)}
    if category == "constraint":
        kind = "policy" if any(w in lowered for w in POLICY_WORDS) else "technical"
        return {"kind": kind, "rule": body, "impact": [], "severity": "high" if strong or "at most" in lowered
                else "medium", "active": True}
    if category == "runbook":
        verify = [s.split("\n", 1)[0] for s in steps
                  if s.lower().startswith(("verify", "check", "confirm", "make sure", "ensure"))]
        trigger = plain(lead).rstrip(":") if lead else f"{section} (as written in {where})"
        return {"trigger": trigger, "steps": steps or [body], "verification": verify[-1] if verify else NOT_STATED}
    if category == "tech_debt":
        return {"status": "open", "priority": "medium", "description": body, "reason_deferred": NOT_STATED}
    topic = plain(headings[-1]) if headings else "general"
    return {"topic": topic or "general", "value": body, "reason": reason,
            "strength": "strong" if strong else "default"}


def _topic_piece(pieces: list) -> tuple:
    """``(text, reason)`` of an auto memory topic file: its body with ``[[name]]`` as names, ``**Why:**`` the reason."""
    lines, reason = [], ""
    for piece in pieces:
        body = piece.text if piece.kind != "steps" else "\n".join(f"{i}. {s}" for i, s in enumerate(piece.steps, 1))
        if piece.lead and piece.kind == "steps":  # a led bullet list holds its lead already
            body = piece.lead + "\n" + body
        for line in body.split("\n"):
            if plain(line).lower().startswith("why:"):
                reason = plain(line)[4:].strip()
            else:
                lines.append(line)
    text = "\n".join(lines).replace("[[", "").replace("]]", "").strip()
    lowered = text.lower()
    at = lowered.find("**why:**")
    if at >= 0:  # written on its own line, but a paragraph's lines were joined
        end = lowered.find("**how to apply:**", at)
        end = len(text) if end < 0 else end
        reason = reason or plain(text[at + 8:end]).strip()
        text = (text[:at].rstrip() + " " + text[end:].lstrip()).strip()
    return text, reason


def proposals(path: str, config: dict, source_tag: str = "claude-md", shown: str | None = None,
              index: bool = False) -> tuple:
    """``(proposals, notes)`` for one Markdown file (UTF-8, else ``ValueError``); ``notes`` say what was left out and
    why. ``index``: the file is an auto memory ``MEMORY.md``, whose links point at topic files read on their own."""
    where = shown or os.path.basename(path)
    data = read_regular(path, MAX_FILE_BYTES)[0]  # a regular file only, never through a link, bounded
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"is not UTF-8 text (byte {exc.start}); save it as UTF-8 and import again") from None
    pieces, front, blanked = split_markdown(text)
    notes = [f"{where}: {blanked} private section(s) left out"] if blanked else []
    kind = front.get("type", "").lower()
    if kind == "user":
        notes.append(f"{where}: about one person (type: user), not the team: left out")
        return [], notes
    cues, settings = compile_cues(config), private_settings(config)

    def scrubbed(text: str) -> str:  # ids and tags come from the text as it will be stored, never the raw one
        try:
            return scrub_text(text, settings)[0]
        except PrivateTagError:  # an unclosed tag: nothing from it on
            return text[:text.lower().find("<private")]
    out = []
    if (front.get("name") or front.get("description")) and pieces:  # a topic file: one fact, one memory
        text, reason = _topic_piece(pieces)
        if not text:
            return [], notes
        title = title_of(scrubbed(front.get("description") or front.get("name", "").replace("-", " ") or text))
        category, why = classify(text + " " + title, [], cues, False)
        record = {"category": category, "id": slugify(title), "title": title,
                  "tags": tags_of([scrubbed(front.get("name", "").replace("-", " "))], scrubbed(text), source_tag),
                  "content": content_for(category, text, [], "", [kind or "auto memory"], where, reason)}
        return [Proposal(record, where, replace(pieces[0], last=pieces[-1].last).lines, why)], notes
    links = 0
    for piece in pieces:
        text = piece.text.strip()
        close = text.find("](") if index and piece.kind == "bullet" else -1
        if close > 0 and text.startswith("[") and text.find(".md)", close) > 0:
            continue  # a line of the index, [Title](file.md) - hook: the topic file it names is read on its own
        if text and only_links(text):
            links += 1
            continue
        category, why = classify(text or " ".join(piece.steps), piece.headings, cues, piece.kind == "steps")
        if piece.kind == "steps":
            title = title_of(scrubbed(piece.lead or (plain(piece.headings[-1]) if piece.headings else piece.steps[0])))
        elif piece.kind == "listing":  # "Repository structure: src/, tests/, docs/"
            names = [(item.split("`")[1:2] or item.split()[:1] or [""])[0] for item in text.split("\n- ")[1:]]
            title = title_of(scrubbed(f"{piece.lead} {', '.join(n for n in names if n)}"), whole=True)
        else:  # a lead-in reads on into its first item: "All changes need to pass the full test suite"
            title = title_of(scrubbed(piece.lead[:-1] + " " + text.split("\n- ", 2)[1] if piece.lead else text))
        record = {"category": category, "id": slugify(title), "title": title,
                  "tags": tags_of([scrubbed(h) for h in piece.headings[-1:]],
                                  scrubbed(text + " " + " ".join(piece.steps)), source_tag),
                  "content": content_for(category, text, piece.steps, piece.lead, piece.headings, where)}
        out.append(Proposal(record, where, piece.lines, why))
    if links:
        notes.append(f"{where}: {links} piece(s) that are only a link left out (a pointer, not a rule)")
    return out, notes
