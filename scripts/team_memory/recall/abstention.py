"""When ``smart`` answers at all: the evidence that the best memory is what the prompt is about.

Any one of three ways is enough (``Smart.confident``; the settings: docs/guide.md):

- **evidence** (``min_score`` 1.3, ``min_evidence`` 1.9): the best score x the square root of the
  share of the prompt it explains: a rare tag asked about alone keeps its points, a rare word met by
  chance in a long prompt is scaled down.
- **corroborated** (``min_corroborated`` 1.3): two prompt words meet the best exactly and strongly
  (``strong_words``), it scores ``min_score`` and explains ``CORROBORATED_SHARE`` of the prompt: two
  words of one memory back each other up where one alone may be chance.
- **explained** (``min_explained`` 0.7): the best explains that share of the whole prompt, words the
  store has never seen counting against it, meets a rare word (``rare_words``) and scores
  ``EXPLAINED_FLOOR`` x ``min_score``: one memory whose text says *pottery* answers "what did Maya
  say about pottery?" in a store where most memories name Maya.

A rare word is held by about the square root of the store's size or fewer memories, so the shares
read the same at any store size.
"""
from __future__ import annotations

import math

from .weights import BODY, FUZZY, JOINED, PREFIX, TAG, TITLE, idf, match_parts

COMMON_SHARE = 0.5  # a tag or title word held by half the store or more is common, never strong
CORROBORATED_SHARE = 0.35  # the share of the whole prompt (``explained``) two corroborating words must explain
RARE = 0.5  # the IDF weight (``idf(df) / idf(1)``) of a rare word
MIN_RARE_WORDS = 2  # ``second_chance``
EXPLAINED_FLOOR = 0.75  # the ``explained`` way answers from this share of ``retrieval.min_score`` (0.98 points)
UNKNOWN = BODY  # a prompt word the store has never seen counts as a rare body word left unexplained
FIELD_POINTS = {"tags": TAG, "title": TITLE, "body": BODY}
KIND_FACTOR = {"exact": 1.0, "prefix": PREFIX, "fuzzy": FUZZY}  # ``rare_words``: what a match's points were scaled by


def evidence(best: float, reachable: float) -> float:
    """The best score x the square root of the share of the prompt it explains (``reachable``: per prompt
    word, the most points any memory gets from it)."""
    if best <= 0 or reachable <= 0:
        return 0.0
    return best * math.sqrt(min(1.0, best / reachable))


def explained(best: float, reachable: float, unknown: int) -> float:
    """``best`` over what the store could explain plus ``UNKNOWN`` points per word it has never seen (0..1)."""
    whole = reachable + UNKNOWN * unknown
    if best <= 0 or whole <= 0:
        return 0.0
    return min(1.0, best / whole)


def unknown_words(query, reach: dict) -> int:
    """How many of the prompt's words (not the joined pairs) no memory meets at all."""
    return sum(1 for g, group in enumerate(query) if g not in reach and group and group[0][:1] != JOINED)


def rare_words(matches: list) -> int:
    """How many distinct prompt words meet the memory with weight >= ``RARE`` (a fuzzy match's points hold
    its similarity too: only a clear typo of a rare word counts)."""
    groups = set()
    for g, q, (points, field, kind, _) in matches:
        if q[:1] == JOINED or kind not in KIND_FACTOR or field not in FIELD_POINTS:
            continue
        base = FIELD_POINTS[field] * KIND_FACTOR[kind]
        if points >= RARE * base - 1e-9:  # points = base x the token's weight (``matching.Book.options``)
            groups.add(g)
    return len(groups)


def strong_weights(n: int) -> dict:
    """field -> the least weight of a strong match in a store of ``n`` memories: a share of the store, not
    a fixed weight, so it reads the same at 50 memories as at 50,000."""
    top = idf(1, max(n, 1))
    surface = idf(COMMON_SHARE * n, n) / top
    return {"tags": surface, "title": surface, "body": RARE}


def strong_words(matches: list, n: int) -> int:
    """How many distinct prompt words (not joined pairs) meet the memory exactly and strongly."""
    least = strong_weights(n)
    return len({g for g, q, (points, field, kind, _) in matches
                if kind == "exact" and q[:1] != JOINED and field in least
                and points >= FIELD_POINTS[field] * least[field] - 1e-9})


def second_chance(strategy, rows: list) -> list:
    """``[(points, key, parts)]``: when nothing is ``Smart.confident``, the ``retrieval.second_chance`` best of
    ``rows`` (``(rounded points, key, matches)``) as possibly related, if the best is one of them. One
    qualifies with ``min_score``, ``min_relative`` x the best and ``MIN_RARE_WORDS`` rare prompt words
    (two such words in one memory are unlikely by chance)."""
    wanted = strategy.second_chance
    if not wanted or not rows:
        return []
    best = max(total for total, _, _ in rows)
    least = max(strategy.min_score, strategy.min_relative * best)
    fit = [(total, key, matches) for total, key, matches in rows
           if total >= least and rare_words(matches) >= MIN_RARE_WORDS]
    if not fit or max(total for total, _, _ in fit) < best:
        return []  # the best itself must qualify
    scores = sorted((total for total, _, _ in fit), reverse=True)
    cut = scores[min(len(scores), wanted) - 1]
    out = []
    for total, key, matches in fit:
        if total >= cut:
            parts = match_parts(matches)
            parts["related"] = True
            out.append((total, key, parts))
    return out
