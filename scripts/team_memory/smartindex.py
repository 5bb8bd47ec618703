"""``smart`` on the machine cache: the same hits as ``Smart.score_all``, from postings alone.

Every entry is filed under ``"<token> <points>"`` for each of its tokens, with the points
of its best field (tag 3, title 2, body 1), so a token's document frequency is the size
of its postings and the tokens that start with ``q`` are one range of sorted keys.

Most entries a prompt touches share only common words with it and end far below the
floors, so exact scores are computed for few of them:

1. for each prompt token, its options (exact match per field, then each prefix target per
   field) are sorted by points, earliest first on ties, which is the order in which
   ``Smart._match`` lets one replace another; an entry's best option for the token is the
   first one that holds it. Summing the best options' points per entry, with set
   operations and one addition per (token, entry), gives an upper bound of its score
   (the real one decays a word's second and later tokens);
2. entries are then scored exactly, with ``Smart``'s own ``_total`` and ``_parts``, in
   order of falling bound, until the bound is under ``max(min_score, min_relative x best
   so far)`` less a 0.01 margin for the rounding to two places: no entry left can reach
   the final bar or the best score;
3. when the fuzzy fallback has to run (nothing reached ``min_score``), the entries it
   touches are scored exactly with their fuzzy matches added; the others stay under
   ``min_score``, so under the bar, as in ``score_all``.
"""
from __future__ import annotations

from .matching import (BODY, FUZZY, FUZZY_MIN, MIN_WEIGHT, PREFIX, PREFIX_MIN, TAG, TITLE, _idf, _parts,
                       _rapidfuzz, _total, fuzzy_available, fuzzy_may_match)

FIELD = {TAG: "tags", TITLE: "title", BODY: "body"}
CODES = (("3", TAG), ("2", TITLE), ("1", BODY))
MARGIN = 0.01  # scores are rounded to 2 places before the floors compare them


class _Postings:
    """Live postings and weights of tokens, read from the cache once per token."""

    def __init__(self, index, n: int):
        self.index, self.n, self.top = index, n, _idf(1, n)
        self.dead = index.dead_ids()
        self.memo: dict = {}

    def tiers(self, token: str):
        """``([(field points, set of ids)], weight)``; no tiers when no live entry holds the token."""
        got = self.memo.get(token)
        if got is None:
            got = self.memo[token] = self._weigh([(points, self.index.exact_set(token + " " + code))
                                                  for code, points in CODES])
        return got

    def _weigh(self, tiers: list):
        live, df = [], 0
        for points, ids in tiers:
            if ids and self.dead:
                ids = ids - self.dead
            if ids:
                live.append((points, ids))
                df += len(ids)
        return live, (max(MIN_WEIGHT, _idf(df, self.n) / self.top) if df else 0.0)

    def targets(self, q: str) -> list:
        """``Smart._prefix_targets`` over the live tokens: longer ones sorted, then ``q``'s own prefixes."""
        out = []
        if len(q) >= PREFIX_MIN:
            by_token: dict = {}
            for key, ids in self.index.postings_with_prefix(q).items():
                by_token.setdefault(key[:-2], {})[key[-1]] = ids
            by_token.pop(q, None)
            for token, codes in by_token.items():
                if token not in self.memo:
                    self.memo[token] = self._weigh([(points, codes.get(code)) for code, points in CODES])
            out = sorted(t for t in by_token if self.memo[t][0])
        for k in range(PREFIX_MIN, len(q)):
            if self.tiers(q[:k])[0]:
                out.append(q[:k])
        return out

    def options(self, q: str) -> list:
        """``[(points, field, kind, target, ids)]`` best first; ties keep ``Smart._match``'s order."""
        ranked = []
        tiers, w = self.tiers(q)
        for points, ids in tiers:
            ranked.append((-(points * w), 0, FIELD[points], "exact", q, ids))
        for order, t in enumerate(self.targets(q), 1):
            tiers, w = self.tiers(t)
            for points, ids in tiers:
                ranked.append((-(PREFIX * points * w), order, FIELD[points], "prefix", t, ids))
        ranked.sort(key=lambda r: (r[0], r[1]))
        return [(-r[0], r[2], r[3], r[4], r[5]) for r in ranked]


def _best(options: list, ident: int):
    for points, field, kind, target, ids in options:
        if ident in ids:
            return (points, field, kind, target)
    return None


def score_index(strategy, query, index) -> list:
    """``[(points, id, parts)]``, the hits ``strategy.score_all`` gives for the index's entries."""
    n = index.meta.get("count") or 0
    if not n:
        return []
    book = _Postings(index, n)
    per_token, unmatched = [], []
    bound: dict = {}
    get = bound.get
    for g, group in enumerate(query):
        for q in group:
            options = book.options(q)
            if not options:
                unmatched.append((g, q))
                continue
            per_token.append((g, q, options))
            seen: set = set()
            for points, _, _, _, ids in options:
                fresh = ids - seen if seen else ids
                seen.update(fresh)
                for i in fresh:
                    bound[i] = get(i, 0.0) + points

    def exact(i):
        matches = []
        for g, q, options in per_token:
            m = _best(options, i)
            if m is not None:
                matches.append((g, q, m))
        return matches

    found, totals = {}, {}
    best = 0.0
    floor = strategy.min_score - MARGIN  # no entry under it is ever scored exactly
    for i, ub in sorted(((i, ub) for i, ub in bound.items() if ub >= floor), key=lambda kv: -kv[1]):
        if ub < max(strategy.min_score, strategy.min_relative * best) - MARGIN:
            break
        found[i] = exact(i)
        totals[i] = _total(found[i])
        best = max(best, totals[i])
    if (strategy.use_fuzzy and unmatched and best < strategy.min_score
            and fuzzy_may_match([q for _, q in unmatched if len(q) >= FUZZY_MIN],
                                {key[:-2] for key in index.all_keys() if key[-1] in "32"},  # dead ones too
                                strategy.fuzzy_cutoff)
            and fuzzy_available()):
        # entries the fuzzy step does not touch keep totals under min_score, hence under the bar
        touched = _fuzzy(strategy, book, unmatched)
        for i, extra in touched.items():
            if i not in found:
                found[i] = exact(i)
            found[i].extend(extra)
            totals[i] = _total(found[i])
        best = max(totals.values(), default=0.0)
    out = []
    bar = max(strategy.min_score, strategy.min_relative * best)
    for i, total in totals.items():
        total = round(total, 2)
        if total > 0 and total >= bar:
            out.append((total, i, _parts(found[i])))
    return out


def _fuzzy(strategy, book: _Postings, unmatched: list) -> dict:
    """``Smart``'s fuzzy step: unmatched 5+ character tokens against the live title and tag tokens."""
    fuzz, process = _rapidfuzz()
    index = book.index
    surface = sorted({key[:-2] for key in index.live_keys("32")})
    touched: dict = {}  # id -> fuzzy matches, in the order Smart.score_all appends them
    for g, q in unmatched:
        if len(q) < FUZZY_MIN:
            continue
        best: dict = {}
        for t, similarity, _ in process.extract(q, surface, scorer=fuzz.ratio,
                                                score_cutoff=strategy.fuzzy_cutoff, limit=3):
            tiers, w = book.tiers(t)
            for points, ids in tiers:
                if points == BODY:
                    continue
                for i in ids:
                    p = FUZZY * points * w * similarity / 100.0
                    if p > best.get(i, (0,))[0]:
                        best[i] = (p, FIELD[points], "fuzzy", t)
        for i, m in best.items():
            touched.setdefault(i, []).append((g, q, m))
    return touched
