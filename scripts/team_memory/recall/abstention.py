"""When ``smart`` answers at all: the evidence that the best memory is what the prompt is about.

Three ways to be sure enough; any one is enough (``Smart.confident``; the settings: docs/guide.md):

- **evidence** (``retrieval.min_score`` 1.3, ``retrieval.min_evidence`` 1.9): the best score
  times the square root of the share of the prompt it explains (``evidence``): a rare tag asked
  about alone keeps its points, a rare word met by chance in a long prompt is scaled down.
- **corroborated** (``retrieval.min_corroborated`` 1.3; 0 turns it off): two different prompt
  words meet the best memory exactly and strongly (``strong_words``: a tag or title word that
  less than half the store holds there, or a rare body word), the best scores ``min_score``,
  its evidence reaches ``min_corroborated``, and it explains ``CORROBORATED_SHARE`` (0.35) of
  the whole prompt (``explained``). Two words of one memory back each other up where one
  alone may be chance: "how much did Jon raise in the end?" met by the memory tagged ``jon``
  that says *raised* answers, though ``end`` is a title word of other memories.
- **explained** (``retrieval.min_explained`` 0.7; 0 turns it off): the best memory explains
  that share of the whole prompt, words the store has never seen counting against it
  (``explained``), meets a rare word exactly or by prefix (``rare_words``), and scores
  ``EXPLAINED_FLOOR`` (0.75) x ``min_score``: "what did Maya say about pottery?" met by the
  one memory whose text says *pottery*, in a store where most memories name Maya. "how do
  I glaze pottery without a kiln", whose best memory meets one word in four, stays silent,
  as does one common word asked about alone.

``RARE`` and the strong shares read the same at any store size: a rare word is held by about
the square root of the store's size or fewer memories (22 of 500, 100 of 10,000).
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
    """The best score times the square root of the share of the prompt it explains; ``reachable`` adds up,
    per prompt word, the most points any memory gets from it (words the store has never seen add nothing)."""
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
    """How many distinct prompt words meet the memory (exactly, by prefix, or by the fuzzy step in its
    title or tags) with weight >= ``RARE``: a fuzzy match's points hold its similarity too, so only a
    clear typo (``pydnatic``) of a rare word counts, never a near spelling of a common one."""
    groups = set()
    for g, q, (points, field, kind, _) in matches:
        if q[:1] == JOINED or kind not in KIND_FACTOR or field not in FIELD_POINTS:
            continue
        base = FIELD_POINTS[field] * KIND_FACTOR[kind]
        if points >= RARE * base - 1e-9:  # points = base x the token's weight (``matching.Book.options``)
            groups.add(g)
    return len(groups)


def strong_weights(n: int) -> dict:
    """field -> the least weight of a strong match in a store of ``n`` memories (``strong_words``): a share
    of the store, not a fixed weight, so a name tagged on a third of the memories is as strong at 50
    memories as at 50,000, where its weight is lower."""
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
    ``rows`` (``(rounded points, key, matches)``), by title as possibly related, if the best is one of them.

    A memory qualifies with ``min_score``, ``min_relative`` x the best, and ``MIN_RARE_WORDS`` distinct rare
    prompt words (``rare_words``, read back from the matches): two such words in one memory are unlikely by
    chance, so the rule reads the same at any store size.
    """
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
