"""Relevance: a memory is shown only when it explains what is distinctive in the prompt.

A word rare in the store can still say nothing about which memory a prompt needs ("write a test for the date parser"
meets "End-to-end tests run in Playwright" on ``test``). So each prompt word is weighed by how ordinary it is in
programming text (``ordinary.txt``, ``scripts/make_ordinary.py``): its ``distinctness``. A memory's match on a word
keeps ``ORDINARY_SHARE + (1 - ORDINARY_SHARE) x`` the distinctness of what it met of its points (its ``distinct``
points); its ``cover`` is the share of the prompt's distinctness it explains. ``judge`` answers when the best's
distinct points x the root of its cover reach ``min_distinct`` (``min_distinct_team`` for a question about the team's
own ways); beside it, a memory needs ``near_distinct`` x the best's distinct points.
"""
from __future__ import annotations

import math
import os

from ..text.textnorm import fold
from .weights import JOINED

COMMON = 60  # a word within the commonest COMMON ranks is not distinctive at all
ORDINARY_SHARE = 0.2  # what a match on an ordinary word keeps of its points
LEAST_MASS = 0.8  # the least mass a prompt is judged over: ordinary words alone explain little
NUMBER = 0.5  # a number ("the oldest 10 files", ``3.10``) seldom says alone what a prompt is about
PART = 0.5  # a part of an identifier (``profile`` of ``user.profile``) says only so much about it; a CJK bigram all
QUALITY = {"exact": 1.0, "prefix": 0.7, "fuzzy": 0.85}  # how surely a match of that kind explains a word
PLAIN = 0.25  # ``search --explain`` names a word under this distinctness ordinary, one over 1 - PLAIN distinctive
# words by which a prompt asks about the team's own ways (English), and pairs of words
# ("rule" and "policy" are not: a CSS rule and an IAM policy are code)
TEAM_WORDS = frozenset({"we", "we're", "we've", "our", "ours", "us", "team", "allowed", "convention", "conventions",
                        "again", "supposed"})
TEAM_PAIRS = frozenset({("should", "i"), ("can", "i")})
QUESTION_WORDS = frozenset("how what why where when which who whose do does did is are was were can could should would "
                           "will may might must".split())
TEAM_SLICE = 2000  # the characters of a prompt ``asks_team`` and ``subject_name`` read
NAME_DISTINCT = 0.75  # a capitalized word past about the commonest 2,000 of programming text may be a name:
# "John", "Sam" and "Jon" are (man pages and docs hold them), "Python", "React", "Windows" are not
NAMES_TRIED = 8  # capitalized words looked up in ``ordinary.txt`` at most (each lookup reads the list's text)
ASKED = frozenset({"asked", "asks", "said", "says", "told", "tells", "wants", "wanted", "mentioned", "suggested",
                   "wrote", "thinks"})  # "Ana asked me about ...": Ana is who asked, not what the prompt is about

_RANKS = None


class Ranks:
    """word -> rank (1 = the commonest) in ``ordinary.txt``, found in the file's text (no table built)."""

    def __init__(self, text: str):
        body = text.find("\n", text.rfind("\n#") + 1) if text.startswith("#") else -1
        self.text = text[body:] if body >= 0 else "\n" + text
        self.size = self.text.count("\n") - 1
        self.seen: dict = {}

    def get(self, word: str):
        """The rank of ``word``; None when the list does not hold it."""
        if word not in self.seen:
            at = self.text.find("\n" + word + "\n") if word and "\n" not in word else -1
            self.seen[word] = self.text.count("\n", 0, at) + 1 if at >= 0 else None
        return self.seen[word]


def ranks() -> Ranks:
    """The ranks of ``ordinary.txt``; empty when it cannot be read."""
    global _RANKS
    if _RANKS is None:
        try:
            with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ordinary.txt"), encoding="utf-8") as f:
                _RANKS = Ranks(f.read())
        except OSError:
            _RANKS = Ranks("")
    return _RANKS


def asks_team(prompt: str) -> bool:
    """Whether the prompt asks about the team's own ways ("how do we ...", "should I ...", "in our middleware"):
    "our" anywhere, another team word in a question; "we should add X" is a task, not a question."""
    text, words = _lowered(prompt)
    if "our" in words or "ours" in words:  # the team's own things, asked about or worked on
        return True
    team = any(w in TEAM_WORDS for w in words) or any(p in TEAM_PAIRS for p in zip(words, words[1:]))
    return team and _question(text, words)


def _lowered(prompt: str) -> tuple:
    text = prompt[:TEAM_SLICE].lower().replace("\u2019", "'")
    return text, "".join(c if c.isalnum() or c == "'" else " " for c in text).split()


def _question(text: str, words: list) -> bool:  # a "?", a question word first, or "how" or "why"
    return "?" in text or (bool(words) and words[0].split("'")[0] in QUESTION_WORDS) or "how" in words or "why" in words


def subject_name(prompt: str, stop_words: frozenset) -> str:
    """The first name a question mentions ("When did **Elena** sign up?", "**Elena's** race number?"), or "": a
    capitalized word in a sentence or with ``'s``, not ordinary; not one who asked ("Elena asked me about ...")."""
    if not _question(*_lowered(prompt)):
        return ""
    words = "".join(c if c.isalnum() or c in "'_" else " " if c not in ".?!\n" else " . "
                    for c in prompt[:TEAM_SLICE].replace("\u2019", "'")).split()
    tried = 0
    for k, word in enumerate(words):
        name = word[:-2] if word.endswith("'s") else word.strip("'")
        first = k == 0 or words[k - 1] == "."
        if (len(name) >= 3 and name.isalpha() and name[0].isupper() and name[1:].islower() and name.isascii()
                and (not first or word.endswith("'s")) and name.lower() not in stop_words):
            tried += 1
            if tried > NAMES_TRIED:
                break
            asker = k + 1 < len(words) and words[k + 1].lower() in ASKED
            if distinctness(fold(name.lower()), ranks()) >= NAME_DISTINCT and not asker:
                return name
    return ""


def distinctness(token: str, table: Ranks) -> float:
    """0 for the ``COMMON`` commonest words, 1 past the list, the log of the rank between; ``NUMBER`` for digits."""
    if token.isdigit():
        return NUMBER
    rank = table.get(token)
    if rank is None:
        return 1.0
    if rank <= COMMON:
        return 0.0
    return min(1.0, math.log(rank / COMMON) / math.log((table.size + 1) / COMMON))


def named_by_path(head: str, token: str) -> bool:
    """Whether ``token`` is the file a path names (``pgbouncer`` of ``/usr/local/bin/pgbouncer``): what the path is about."""
    name = head.rsplit("/", 1)[-1].split(".", 1)[0] if "/" in head else ""
    return bool(name) and name.startswith(token)


def measure(query, matches: list, mass: dict, table: Ranks) -> tuple:
    """``(distinct points, cover)`` of one memory: see the module docstring."""
    out: dict = {}  # group number -> (share of that prompt word explained, distinct points)
    for g, q, match in matches:
        if g not in mass:
            continue
        part = mass[g] if q == query[g][0] or named_by_path(query[g][0], q) else (
            min(mass[g], distinctness(q, table)) * (PART if q.isascii() else 1.0))
        share = part * QUALITY.get(match[2], 1.0)
        points = match[0] * (ORDINARY_SHARE + (1.0 - ORDINARY_SHARE) * part)
        old = out.get(g, (0.0, 0.0))
        out[g] = (max(old[0], share), max(old[1], points))
    parts = out.values()
    return sum(p for _, p in parts), sum(s for s, _ in parts) / max(sum(mass.values()), LEAST_MASS)


def judge(query, rows: list, least: float, near: float, team: bool = False):
    """``(kept rows, report)``: ``rows`` (``(points, key, matches)``) less those far weaker than the best, or none when
    the best explains too little of the prompt's distinctive words; ``report``: why (``team``: a team question)."""
    if not rows or least <= 0 or query is None:
        return rows, None
    table = ranks()
    mass = {g: max(distinctness(t, table) for t in group) for g, group in enumerate(query)
            if group and group[0][:1] != JOINED}  # a prompt word's most distinctive token (joined pairs left out)
    measures = {key: measure(query, m, mass, table) for _, key, m in rows}
    proof = max(d * math.sqrt(max(0.0, c)) for d, c in measures.values())  # distinct points x the root of the cover
    bar = near * max(d for d, _ in measures.values())
    answered = proof >= least - 1e-9
    kept = [row for row in rows if answered and measures[row[1]][0] >= bar - 1e-9]
    return kept, {"measures": measures, "proof": proof, "answered": answered, "bar": bar, "least": least,
                  "near": near, "team": team, "ordinary": [query[g][0] for g, m in mass.items() if m < PLAIN],
                  "distinctive": [query[g][0] for g, m in mass.items() if m >= 1.0 - PLAIN]}


def why_not(report, key) -> str | None:
    """Why ``judge`` did not show ``key`` (for ``search --explain``); None if it was shown or not judged."""
    if not report or key not in report["measures"]:
        return None
    distinct, covered = report["measures"][key]
    if not report["answered"]:
        setting = "min_distinct_team (a question about the team's own ways)" if report["team"] else "min_distinct"
        return (f"the best memory explains too little of what is distinctive in the prompt: evidence "
                f"{report['proof']:.2f} (distinct points x the square root of the share of the prompt explained), "
                f"under retrieval.{setting} {report['least']:g}; this one: {distinct:.2f} distinct points, "
                f"covers {covered:.0%} of the prompt")
    if distinct < report["bar"] - 1e-9:
        return (f"{distinct:.2f} distinct points, under {report['bar']:.2f}: retrieval.near_distinct "
                f"{report['near']:g} x the best's (the best answers alone)")
    return None


def ordinary_note(report) -> str | None:
    """A line naming the prompt's ordinary and distinctive words, for ``search --explain``."""
    if not report:
        return None
    return (f"the prompt's ordinary words (common in programming text; a match on one keeps about "
            f"{ORDINARY_SHARE:g} of its points): {', '.join(report['ordinary'][:12]) or 'none'}; its distinctive words: "
            f"{', '.join(report['distinctive'][:12]) or 'none'}")
