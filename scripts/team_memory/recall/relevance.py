"""Relevance: a memory is shown only when it explains what is distinctive in the prompt.

The scorer weighs a word by how rare it is in the store; a word can be rare in the store and
still say nothing about which memory a prompt needs ("write a test for the date parser" meets
"End-to-end tests run in Playwright" on ``test``). This rule weighs each prompt word by how
ordinary it is in programming text at large: ``ordinary.txt`` (next to this module, built
offline from public text by ``scripts/make_ordinary.py``) lists the commonest words, most common
first. A word's ``distinctness`` is 0 within the first ``COMMON`` ranks, rises with the log of
its rank, and is 1 for a word past the list (a name, a product, an identifier, a typo, CJK text).

Per prompt word (a group of ``textnorm.token_groups``: an identifier's parts or a CJK run's
bigrams count as one word), its ``mass`` is the distinctness of its most distinctive token. A
memory's match on a word is worth the match's points times ``ORDINARY_SHARE + (1 -
ORDINARY_SHARE) x`` the distinctness of what it met (the word itself, or only the part it met:
``setConsole`` met on ``console``, at ``PART`` of it: the prompt is about the identifier); the sum over the prompt's words is the memory's
``distinct`` points. Its ``cover`` is the share of the prompt's whole mass it explains (never
over less than ``LEAST_MASS``: a prompt of ordinary words alone has little to explain).

A memory is shown (``judge``, from ``Smart.shown``, which the plain and the cached path both call)
when its distinct points reach ``retrieval.min_distinct`` (1.5), or when it covers ``COVERED``
(half) of the prompt and reaches ``LOW_DISTINCT`` x ``min_distinct``: a match on ordinary words
weighs a fifth of its points, so "test" met in a tag (3 points) does not answer alone, while a
rare tag of the store that is also rare in programming text does. Beside the best memory, one
shows only with ``retrieval.near_distinct`` (0.3) x the best's distinct points: when one memory
clearly answers, it is shown alone. ``retrieval.min_distinct`` 0 turns the rule off. The word
list is read once, only when a prompt has rows to judge (about 70 KB).
"""
from __future__ import annotations

import math
import os

from .weights import JOINED

COMMON = 60  # a word within the commonest COMMON ranks is not distinctive at all
ORDINARY_SHARE = 0.2  # what a match on an ordinary word keeps of its points
LEAST_MASS = 0.8  # the least mass a prompt is judged over: ordinary words alone explain little
PART = 0.5  # a part of an identifier (``profile`` of ``user.profile``) says only so much about it; a CJK bigram all
QUALITY = {"exact": 1.0, "prefix": 0.7, "fuzzy": 0.85}  # how surely a match of that kind explains a word
COVERED = 0.5  # a memory that explains this share of the prompt ...
LOW_DISTINCT = 0.55  # ... answers from this share of ``min_distinct``
PLAIN = 0.25  # ``search --explain`` names a word under this distinctness ordinary, one over 1 - PLAIN distinctive
DEFAULT_MIN_DISTINCT = 1.5
DEFAULT_NEAR_DISTINCT = 0.3

_RANKS = None


class Ranks:
    """word -> rank (1 = the commonest) in ``ordinary.txt``, looked up in the file's text as it is: a
    prompt asks for a few words, so no table of thousands is built on the hook's path."""

    def __init__(self, text: str):
        body = text.find("\n", text.rfind("\n#") + 1) if text.startswith("#") else -1
        self.text = text[body:] if body >= 0 else "\n" + text
        self.size = self.text.count("\n") - 1
        self.seen: dict = {}

    def __len__(self) -> int:
        return self.size

    def get(self, word: str, default=None):
        if word not in self.seen:
            at = self.text.find("\n" + word + "\n") if word and "\n" not in word else -1
            self.seen[word] = self.text.count("\n", 0, at) + 1 if at >= 0 else None
        found = self.seen[word]
        return default if found is None else found


def ranks() -> Ranks:
    """The ranks of ``ordinary.txt``; empty when it cannot be read."""
    global _RANKS
    if _RANKS is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ordinary.txt")
        try:
            with open(path, encoding="utf-8") as f:
                _RANKS = Ranks(f.read())
        except OSError:
            _RANKS = Ranks("")
    return _RANKS


def distinctness(token: str, table: dict) -> float:
    """0 for the ``COMMON`` commonest words, 1 past the list, the log of the rank between."""
    rank = table.get(token)
    if rank is None:
        return 1.0
    if rank <= COMMON:
        return 0.0
    return min(1.0, math.log(rank / COMMON) / math.log((len(table) + 1) / COMMON))


def masses(query, table: dict) -> dict:
    """group number -> the distinctness of its most distinctive token (joined pairs left out)."""
    return {g: max(distinctness(t, table) for t in group) for g, group in enumerate(query)
            if group and group[0][:1] != JOINED}


def explained(query, matches: list, mass: dict, table: dict) -> dict:
    """group number -> ``(share of that prompt word explained, distinct points)`` for one memory's matches."""
    out: dict = {}
    for g, q, match in matches:
        if g not in mass:
            continue
        part = mass[g] if q == query[g][0] else min(mass[g], distinctness(q, table)) * (PART if q.isascii() else 1.0)
        share = part * QUALITY.get(match[2], 1.0)
        points = match[0] * (ORDINARY_SHARE + (1.0 - ORDINARY_SHARE) * part)
        old = out.get(g, (0.0, 0.0))
        out[g] = (max(old[0], share), max(old[1], points))
    return out


def measure(query, matches: list, mass: dict, table: dict) -> tuple:
    """``(distinct points, cover)`` of one memory: see the module docstring."""
    parts = explained(query, matches, mass, table).values()
    return sum(p for _, p in parts), sum(s for s, _ in parts) / max(sum(mass.values()), LEAST_MASS)


def judge(query, rows: list, least: float = DEFAULT_MIN_DISTINCT, near: float = DEFAULT_NEAR_DISTINCT):
    """``(kept rows, report)``: the ``rows`` (``(points, key, matches)``) that explain enough of ``query``'s
    distinctive words (module docstring). ``report`` says why, for ``search --explain``:
    ``{"measures": {id(key): (distinct, cover)}, "best": the best distinct points kept (0: none),
    "bar": what a memory needed, "ordinary": the prompt words that weigh nothing}``."""
    if not rows or least <= 0 or query is None:
        return rows, None
    table = ranks()
    mass = masses(query, table)
    measures = {id(key): measure(query, m, mass, table) for _, key, m in rows}
    best = max((d for d, c in measures.values() if fits(d, c, least)), default=0.0)
    bar = near * best
    kept = [row for row in rows if fits(*measures[id(row[1])], least) and measures[id(row[1])][0] >= bar - 1e-9]
    return kept, {"measures": measures, "best": best, "bar": bar, "least": least, "near": near,
                  "ordinary": [query[g][0] for g, m in mass.items() if m < PLAIN],
                  "distinctive": [query[g][0] for g, m in mass.items() if m >= 1.0 - PLAIN]}


def fits(distinct: float, covered: float, least: float) -> bool:
    """Whether a memory's ``measure`` is enough to show it (before the ``near`` bar)."""
    return distinct >= least - 1e-9 or (covered >= COVERED - 1e-9 and distinct >= LOW_DISTINCT * least - 1e-9)


def why_not(report, key) -> str | None:
    """Why ``judge`` did not show ``key`` (for ``search --explain``); None if it was shown or not judged."""
    if not report or id(key) not in report["measures"]:
        return None
    distinct, covered = report["measures"][id(key)]
    if not fits(distinct, covered, report["least"]):
        return (f"explains too little of what is distinctive in the prompt: {distinct:.2f} distinct points, under "
                f"retrieval.min_distinct {report['least']:g} (covers {covered:.0%} of the prompt)")
    if distinct < report["bar"] - 1e-9:
        return (f"{distinct:.2f} distinct points, under {report['bar']:.2f}: retrieval.near_distinct "
                f"{report['near']:g} x the best's {report['best']:.2f} (the best answers alone)")
    return None


def ordinary_note(report) -> str | None:
    """A line naming the prompt's ordinary and distinctive words, for ``search --explain``."""
    if not report:
        return None
    return (f"the prompt's ordinary words (common in programming text; a match on one keeps about "
            f"{ORDINARY_SHARE:g} of its points): {', '.join(report['ordinary'][:12]) or 'none'}; its distinctive words: "
            f"{', '.join(report['distinctive'][:12]) or 'none'}")
