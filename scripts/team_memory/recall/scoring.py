"""Match strategies: how a prompt scores against one index entry.

``title_tags`` is the prior plugin's scoring, kept exactly (its worked
examples are tests):

=========================  ======  ==========================================
match                      points  condition
=========================  ======  ==========================================
title word, exact          +2      per prompt token found in the title
tag, exact                 +3      per prompt token equal to a tag
prefix (title or tag)      +1      per unmatched prompt token of 4+ chars that
                                   starts a title token or tag
category description       0-2     +1 exact, +0.5 prefix, ``min(2, int(sum))``
=========================  ======  ==========================================

A strategy object has ``query(prompt) -> q`` (falsy: nothing to match) and
``score(q, entry) -> (points, parts)`` where ``parts`` explains the points.
It may also have ``prepare(memory_root, entries)`` (store-wide statistics),
``score_all(q, entries) -> [(points, entry, parts)]`` (ranking in one pass)
and ``recency_bonus`` (1 unless set). ``smart`` (``matching.Smart``) is the
default; ``title_tags`` stays exactly the seed.

The machine cache (``cache.py``) speeds a strategy up when it also offers:

- ``prepare_entry(entry, record=None) -> features``: JSON-serialisable, computed once when
  the cache is built (``record`` is the memory's JSON, for strategies that match its body);
  ``score_prepared(q, features)`` must return exactly what ``score(q, entry)`` returns.
  ``cache_version`` names the features' shape (bump it when ``prepare_entry`` changes,
  and old caches are rebuilt).
- ``index_keys(features)`` and ``match_points(q, index) -> {id: points}``: the
  cache files each entry under its keys (postings); ``match_points`` adds up the
  entry-specific points from ``index.exact(key)`` / ``index.prefixed(prefix)``
  alone, and every entry it leaves out scores ``baseline(q, category)``, the same
  for all such entries of a category (``(0, None)`` when that is no hit). A hit's
  total is its match points plus its category's baseline; ``score_prepared`` is
  then called only for the hits that are shown, to explain them.
- or, for a strategy whose scores depend on the whole store (``smart``: IDF weights,
  relative floors), ``score_index(q, index) -> [(points, id, parts)]``: the hits,
  from the postings alone, exactly as ``score_all`` gives them for the index entries.

A strategy without these is scored on the plain path.
"""
from __future__ import annotations

from ..base.config import category_descriptions
from .matching import Smart
from ..text.features import TitleTagsFeatures, strategy_name
from ..base.model import display_name
from ..text.tokens import tokenize


def score_entry(prompt_words: set, entry: dict, parts: dict | None = None) -> int:
    """Title/tag/prefix points of one entry (the seed's ``score_entry``)."""
    title_tokens = tokenize(entry["title"])
    entry_tags = set(entry["tags"])
    exact_title = prompt_words & title_tokens
    exact_tags = prompt_words & entry_tags
    score = len(exact_title) * 2 + len(exact_tags) * 3
    targets = title_tokens | entry_tags
    prefixed = []
    for pw in prompt_words - (exact_title | exact_tags):
        if len(pw) >= 4 and any(t.startswith(pw) for t in targets):
            prefixed.append(pw)
    score += len(prefixed)
    if parts is not None:
        parts.update(title=sorted(exact_title), tags=sorted(exact_tags), prefix=sorted(prefixed))
    return score


def score_description(prompt_words: set, description_tokens: set) -> int:
    """Category-description points: +1 exact, +0.5 prefix, truncated, capped at 2."""
    if not description_tokens or not prompt_words:
        return 0
    exact = prompt_words & description_tokens
    score = float(len(exact))
    for pw in prompt_words - exact:
        if len(pw) >= 4 and any(dt.startswith(pw) for dt in description_tokens):
            score += 0.5
    return min(2, int(score))


class TitleTags(TitleTagsFeatures):
    """The seed's exact scoring: title +2, tag +3, prefix +1, description up to +2 (features: ``TitleTagsFeatures``)."""

    def __init__(self, config: dict):
        self.desc_tokens = {display_name(cat): tokenize(desc) for cat, desc in category_descriptions(config).items()}

    def query(self, prompt: str):
        return tokenize(prompt)

    def score(self, prompt_words, entry: dict):
        parts: dict = {}
        points = score_entry(prompt_words, entry, parts)
        desc = score_description(prompt_words, self.desc_tokens.get(entry["category"], set()))
        parts["description"] = desc
        return points + desc, parts

    def match_points(self, prompt_words, index) -> dict:
        """id -> title/tag/prefix points, for every entry that has any, from the cache's postings.

        The same sums as ``score_entry``: +2 per prompt word among the title tokens, +3 per
        prompt word among the tags, +1 per other 4+ character prompt word that starts one.
        """
        points: dict = {}
        get = points.get
        for word in prompt_words:
            exact = set()
            for ident in index.exact("t:" + word):
                points[ident] = get(ident, 0) + 2
                exact.add(ident)
            for ident in index.exact("g:" + word):
                points[ident] = get(ident, 0) + 3
                exact.add(ident)
            if len(word) >= 4:
                prefixed = set(index.prefixed("t:" + word))
                prefixed.update(index.prefixed("g:" + word))
                for ident in prefixed - exact:
                    points[ident] = get(ident, 0) + 1
        return points

    def baseline(self, prompt_words, category: str):
        """The points of an entry of ``category`` that matches no title token or tag: its description bonus."""
        desc = score_description(prompt_words, self.desc_tokens.get(category, set()))
        return desc, ({"title": [], "tags": [], "prefix": [], "description": desc} if desc else None)

    def score_prepared(self, prompt_words, features: list):
        title_tokens, entry_tags = set(features[1]), set(features[2])
        exact_title = prompt_words & title_tokens
        exact_tags = prompt_words & entry_tags
        targets = title_tokens | entry_tags
        prefixed = [pw for pw in prompt_words - (exact_title | exact_tags)
                    if len(pw) >= 4 and any(t.startswith(pw) for t in targets)]
        desc = score_description(prompt_words, self.desc_tokens.get(features[0], set()))
        parts = {"title": sorted(exact_title), "tags": sorted(exact_tags), "prefix": sorted(prefixed), "description": desc}
        return len(exact_title) * 2 + len(exact_tags) * 3 + len(prefixed) + desc, parts


STRATEGIES = {"title_tags": TitleTags, "smart": Smart}  # the same names as ``features.FEATURES``


def get_strategy(config: dict, name: str | None = None):
    """The strategy named in ``retrieval.match_strategy`` (or ``name``), ready to score."""
    return STRATEGIES[strategy_name(config, name)](config)
