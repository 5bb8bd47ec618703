"""When ``smart`` answers at all: the evidence that the best memory is what the prompt is about.

Two ways to be sure enough, either is enough (``Smart.confident``):

- **evidence** (``retrieval.min_score`` 1.3, ``retrieval.min_evidence`` 1.9): the best score
  times the square root of the share of the prompt it explains (``evidence``). A rare tag asked
  about alone keeps its points; a rare word met by chance in a long prompt about something
  else is scaled down.
- **explained** (``retrieval.min_explained`` 0.7; 0 turns it off): the best memory explains
  nearly all of a short prompt, counting the words the store has never seen against it
  (``explained``), meets at least one rare word exactly or by prefix (``rare_words``), and
  scores ``EXPLAINED_SCORE`` (1.0). "what did Maya research?" met by a memory that names Maya
  and has *research* in its text answers, though a body word and a common name add up to
  less than the evidence floor; "how do I cook rice without a rice cooker", whose best
  memory meets one word of four, stays silent, as does one common word asked about alone.

``RARE`` reads the same at any store size: a word held by about the square root of the
store's size or fewer memories (22 of 500, 100 of 10,000).
"""
from __future__ import annotations

import math

from .weights import BODY, JOINED, PREFIX, TAG, TITLE

RARE = 0.5  # the IDF weight (``idf(df) / idf(1)``) of a rare word
EXPLAINED_SCORE = 1.0  # the least score the ``explained`` way answers with
UNKNOWN = BODY  # a prompt word the store has never seen counts as a rare body word left unexplained
FIELD_POINTS = {"tags": TAG, "title": TITLE, "body": BODY}


def evidence(best: float, reachable: float) -> float:
    """The best score times the square root of the share of the prompt it explains.

    ``reachable`` adds up, per prompt word, the most points any memory gets from it: what
    the store could explain of the prompt (words the store has never seen add nothing).
    A rare tag asked about alone explains all of its prompt and keeps its points; the
    same tag met by chance in a long prompt about something else explains a small share.
    """
    if best <= 0 or reachable <= 0:
        return 0.0
    return best * math.sqrt(min(1.0, best / reachable))


def explained(best: float, reachable: float, unknown: int) -> float:
    """The share of the whole prompt the best memory explains: ``best`` over what the store
    could explain plus ``UNKNOWN`` points for each prompt word it has never seen (0..1)."""
    whole = reachable + UNKNOWN * unknown
    if best <= 0 or whole <= 0:
        return 0.0
    return min(1.0, best / whole)


def unknown_words(query, reach: dict) -> int:
    """How many of the prompt's words (not the joined pairs) no memory meets at all."""
    return sum(1 for g, group in enumerate(query) if g not in reach and group and group[0][:1] != JOINED)


def rare_words(matches: list) -> int:
    """How many distinct prompt words meet the memory (exactly or by prefix) with weight >= ``RARE``."""
    groups = set()
    for g, q, (points, field, kind, _) in matches:
        if q[:1] == JOINED or kind not in ("exact", "prefix") or field not in FIELD_POINTS:
            continue
        base = FIELD_POINTS[field] * (PREFIX if kind == "prefix" else 1.0)
        if points >= RARE * base - 1e-9:  # points = base x the token's weight (``Smart._match``)
            groups.add(g)
    return len(groups)


def best_matches(totals: dict, found: dict, best: float) -> list:
    """The match lists of every memory that scores ``best`` (ties: any of them may answer)."""
    return [found[i] for i, total in totals.items() if total == best]
