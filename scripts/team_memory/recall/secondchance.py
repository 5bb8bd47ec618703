"""A second chance when nothing clears the bar (``retrieval.second_chance``, off by default).

When the best memory is not ``Smart.confident``, the prompt normally injects nothing. With
``retrieval.second_chance`` N (1-5) the N best memories are still shown, by title only under
"Possibly related" (marked ``related``, as ``Smart.shown`` marks them), when:

- the best memory itself qualifies (otherwise silence, as before);
- a memory qualifies when it meets at least ``MIN_RARE_WORDS`` (2) distinct rare prompt words
  exactly or by prefix (``abstention.rare_words``: IDF weight 0.5 or more, a word held by at
  most about the square root of the store's size), so the rule reads the same at any size. Two such words
  in one memory are unlikely by chance; one word, or common words, never qualify;
- it scores ``min_score`` and ``min_relative`` x the best (the cache path scores exactly
  every entry that can reach that, so both paths agree).

The weight is read back from each match (its points over the field's points, ``weights``):
both paths hold the same matches, so they give the same hits.
"""
from __future__ import annotations

from .abstention import rare_words

MIN_RARE_WORDS = 2


def second_chance(strategy, rows: list) -> list:
    """``[(points, key, parts)]``: the second-chance titles of ``rows`` (``(rounded points, key, matches)``)."""
    from .weights import match_parts
    wanted = getattr(strategy, "second_chance", 0)
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
