"""What teams already wrote for Claude, as proposed memories: ``proposals(path, config)`` gives one
``Proposal`` per piece of a Markdown file (``mdsource.split_markdown``); nothing here writes.

The category comes from the triage cues (``capture.triage``), a few heading words and a numbered list
(a runbook); ``preference`` is the fallback. Content says what the text says and no more: a missing reason
is "not stated in the source". Ids are title slugs, so a second import finds them taken and adds nothing.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..base.sanitize import TITLE_MAX, clean_line, clean_tag
from ..capture.triage import compile_cues, cue_hits
from ..records.ids import slugify
from ..records.privacy import PrivateTagError, private_settings, scrub_text
from ..base.safefs import read_regular
from ..text.textnorm import STOP_WORDS
from .mdsource import split_markdown

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
POLICY_WORDS = ("review", "approval", "approve", "sign-off", "policy", "legal", "licen", "compliance")


@dataclass
class Proposal:
    record: dict
    source: str  # the file, as given
    lines: str  # "12" or "12-15"
    why: str  # what chose the category


def plain(text: str, link_text: bool = True) -> str:
    """Markdown emphasis and links dropped: ``**x**`` -> ``x``, ``[x](url)`` -> ``x`` (nothing when not
    ``link_text``); one line."""
    out, i, memo = [], 0, {}
    while i < len(text):
        ch = text[i]
        if ch == "[":
            close = _next(text, "](", i, memo)
            end = _next(text, ")", close + 2, memo) if close > 0 else -1
            newline = _next(text, "\n", i, memo)
            if close > 0 and end > 0 and not 0 <= newline < end:
                out.append(text[i + 1:close] if link_text else " ")
                i = end + 1
                continue
        if text.startswith("**", i) or text.startswith("__", i):
            i += 2
            continue
        out.append(ch)
        i += 1
    return " ".join("".join(out).split())


def _next(text: str, sub: str, start: int, memo: dict) -> int:
    """``text.find(sub, start)`` for a ``start`` that never goes back: each search resumes where the last one
    ended, so a line of 400,000 ``[`` is read once, not once per ``[``."""
    found = memo.get(sub, -2)
    if found == -1 or found >= start:
        return found
    memo[sub] = found = text.find(sub, start)
    return found


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
    out, word = [], []
    for ch in text.lower() + " ":
        if ch.isalnum() or ch in "-_.+":
            word.append(ch)
        elif word:
            out.append("".join(word).strip(".-"))
            word = []
    return [w for w in out if w]


def tags_of(headings: list, text: str, source_tag: str) -> list:
    """Words of the nearest heading, file and folder names in backticks (``file_name``), and where it came
    from (always kept); at most 8."""
    tags: list = []

    def add(word: str) -> None:
        tag = clean_tag(word)[:40].strip(".-")
        if tag and len(tag) > 1 and tag not in STOP_WORDS and tag not in tags and not tag.isdigit():
            tags.append(tag)

    for heading in headings[-1:]:  # the nearest heading only: a file's title would tag every memory
        for word in _words(plain(heading)):
            add(word)
    parts = text.split("`")
    for code in parts[1::2][:6]:
        if file_name(code):
            add(code.strip().strip("/").split("/")[-1])
    tags = tags[:7]
    add(source_tag)  # always kept: it says where the memory came from
    return tags


def file_name(code: str) -> bool:
    """Inline code that names a file or folder (``src/``, ``pyproject.toml``): the only code that makes a
    tag. An expression (``id=None``), a value (``fix:``), a function (``os.replace``) or a plain word is what
    the text says, not a topic."""
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
    """A piece that is nothing but links (``[Architecture](docs/arch.md)``, ``See <https://...>.``): a pointer
    to where the rules are, not a rule."""
    rest = plain(text, link_text=False)
    words = [w.lower() for w in rest.replace("<", " ").replace(">", " ").split()]
    has_link = rest != plain(text) or any(w.startswith(("http://", "https://")) for w in words)
    words = [w for w in words if not w.startswith(("http://", "https://"))]
    return has_link and not [w for w in _words(" ".join(words)) if w not in FILLER]


def _hint(headings: list) -> str | None:
    """The category the nearest heading names, if any."""
    for heading in reversed(headings):
        words = set(_words(plain(heading)))
        for category in CATEGORY_ORDER:
            if words & set(HEADING_HINTS[category]):
                return category
    return None


def classify(text: str, headings: list, cues: dict, steps: bool) -> tuple:
    """``(category, why)`` for one piece."""
    if steps:
        return "runbook", "a numbered list"
    lowered = " ".join(text.lower().split())
    scores = {}
    for category in CATEGORY_ORDER:
        primary = cues[category][0]
        scores[category] = min(cue_hits(primary, lowered), 2) if len(primary) else 0
    if any(w in lowered for w in LIMIT_WORDS) or any(ch.isdigit() for ch in lowered) and "must" in lowered:
        scores["constraint"] += 1
    for rejected in (" over ", " instead of ", " rather than "):
        if rejected in lowered and scores["decision"]:
            scores["decision"] += 1
    hint = _hint(headings)
    if hint:
        scores[hint] += 2
    best = max(CATEGORY_ORDER, key=lambda c: (scores[c], c == hint, -CATEGORY_ORDER.index(c)))
    if scores[best] <= 0:
        return "preference", "the fallback (no cue matched)"
    why = "the heading" if best == hint and scores[best] <= 2 else "its words"
    return best, why


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
    for word in (" over ", " instead of ", " rather than "):
        at = lowered.find(word)
        if at >= 0:
            option = plain(text[at + len(word):]).split(",")[0].split(";")[0].split(" because ")[0]
            option = option.rstrip(".)").strip()
            if 0 < len(option) <= 120:
                return [{"option": option, "rejected_reason": NOT_STATED}]
    return []


def content_for(category: str, text: str, steps: list, lead: str, headings: list, where: str) -> dict:
    body = text.strip() if text.strip() else "\n".join(steps)
    section = " > ".join(plain(h) for h in headings) or "top"
    lowered = body.lower()
    strong = any(w in lowered for w in STRONG_WORDS)
    if category == "decision":
        return {"status": "accepted", "context": f"Written in {where} (section: {section}).", "decision": body,
                "rationale": [_reason(body) or NOT_STATED], "alternatives": _rejected(body)}
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
    return {"topic": topic or "general", "value": body, "reason": _reason(body) or NOT_STATED,
            "strength": "strong" if strong else "default"}


def read_markdown(path: str) -> str:
    """A Markdown file: a regular file only, never through a link, bounded, UTF-8 (``ValueError`` if not)."""
    data, _ = read_regular(path, MAX_FILE_BYTES)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"is not UTF-8 text (byte {exc.start}); save it as UTF-8 and import again") from None


def _topic_piece(pieces: list) -> tuple:
    """An auto memory topic file holds one fact: ``(text, reason)`` of its whole body, with the
    ``**Why:**`` line as the reason and ``[[name]]`` links as plain names."""
    lines, reason = [], ""
    for piece in pieces:
        body = piece.text if piece.kind != "steps" else "\n".join(f"{i}. {s}" for i, s in enumerate(piece.steps, 1))
        if piece.lead and piece.kind == "steps":  # a led bullet list holds its lead already
            body = piece.lead + "\n" + body
        for line in body.split("\n"):
            key = plain(line).lower()
            if key.startswith("why:"):
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


def _pointer(text: str) -> bool:
    """A line of an auto memory index: ``[Title](file.md) - hook``, which points at a topic file."""
    close = text.find("](")
    return text.startswith("[") and close > 0 and text.find(".md)", close) > 0


def proposals(path: str, config: dict, source_tag: str = "claude-md", shown: str | None = None,
              index: bool = False) -> tuple:
    """``(proposals, notes)`` for one Markdown file; ``notes`` say what was left out and why.
    ``index``: the file is an auto memory ``MEMORY.md``, whose links point at topic files read on their own."""
    where = shown or os.path.basename(path)
    pieces, front, blanked = split_markdown(read_markdown(path))
    notes = [f"{where}: {blanked} private section(s) left out"] if blanked else []
    kind = front.get("type", "").lower()
    if kind == "user":
        notes.append(f"{where}: about one person (type: user), not the team: left out")
        return [], notes
    cues = compile_cues(config)
    settings = private_settings(config)

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
        content = content_for(category, text, [], "", [kind or "auto memory"], where)
        if reason:
            for key in ("rationale", "reason"):
                if key in content:
                    content[key] = [reason] if key == "rationale" else reason
        record = {"category": category, "id": slugify(title), "title": title,
                  "tags": tags_of([scrubbed(front.get("name", "").replace("-", " "))], scrubbed(text), source_tag),
                  "content": content}
        lines = f"{pieces[0].first}-{pieces[-1].last}" if pieces[-1].last != pieces[0].first else str(pieces[0].first)
        return [Proposal(record, where, lines, why)], notes
    links = 0
    for piece in pieces:
        text = piece.text.strip()
        if index and piece.kind == "bullet" and _pointer(text):
            continue  # the topic file it names is read on its own
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
