"""``smart``'s scores over an ``Index`` (``derived.cache``): the one implementation of the rule ``matching`` states.

An entry holds each of its tokens in its best field (tags, title, body), so a token's document
frequency is the size of its ids, and the tokens that start with ``q`` are one range of sorted ones.
Most entries a prompt touches share only common words with it and end far below the floors, so
exact scores are computed for few of them:

1. for each prompt token, its options (exact match per field, then each prefix target per
   field, then each irregular form) are ranked by points, earliest first on ties; an entry's
   match for the token is the first option that holds it;
2. an upper bound of every entry's score (the sum over prompt tokens of its best option's points,
   a body option counted at ``1 + BODY_COVERAGE_MAX`` x its points for ``weights.body_coverage``;
   the real score decays a word's second and later tokens, and adds at most ``ADJACENT`` / 2 x that
   sum for neighbouring words, ``weights.adjacency``) is added up as bit planes (``bitplanes``): a
   common word in 40% of 10,000 memories costs a few dozen operations on whole ints, not 4,000
   Python steps (what keeps the prompt hook in its budget at 10,000 memories);
3. the entries whose bound reaches ``Smart.floor()`` / (1 + ``ADJACENT`` / 2) (less a margin for the
   rounding to two places) are scored exactly (``weights.matches_total``), in order of falling exact
   bound, until the bound is under ``max(floor, min_relative x best so far)``: no entry left can
   reach the clear bar or the best score;
4. when the fuzzy fallback has to run (the best is not ``Smart.confident``), the entries it
   touches are scored exactly with their fuzzy matches added; the others stay under the floor or
   under the bar, which the fuzzy step only raises;
5. the abstention rule (``Smart.confident``) is applied to the exact scores, with the prompt's
   reachable points taken from each token's best option;
6. the possibly related memories (under ``Smart.clear_bar``, ``Smart.related_fit``; the
   ``max_related`` best, ties kept): the entries not scored yet, band by band of their bound
   (``BAND``), largest exact bound first, until none left can reach ``Smart.related_floor`` or the
   ``max_related``-th best related score so far (``_related``); ``Smart.shown`` picks the shown ones.

Rounding up only makes a bound larger, so no entry that reaches a floor is missed.
"""
from __future__ import annotations

from ..derived.cache import ids_of_bits
from .abstention import unknown_words
from .bitplanes import QUANTUM, bound, reaching
from .secondchance import second_chance
from .weights import (ADJACENT, BODY, FUZZY, FUZZY_MIN, IRREGULAR, JOINED, MIN_WEIGHT, PREFIX, PREFIX_MIN, TAG, TITLE, idf,
                      matches_total, add_fuzzy, adjacency, body_coverage, fuzzy_available, fuzzy_stems, surface_weight)
from ..text.fuzzycheck import fuzzy_may_match, spelled_forms
from ..text.wordforms import alternates

FIELD = {TAG: "tags", TITLE: "title", BODY: "body"}
FIELD_POINTS = (TAG, TITLE, BODY)  # a cache tier's field: 0 tags, 1 title, 2 body
MARGIN = 0.01  # scores are rounded to 2 places before the floors compare them
BAND = 0.75  # the related step reads the entries under the clear bar in bands of their bound this wide
_NOTHING = 1 << 62


class Members:
    """The live entries filed under one key: a bitmap (dense keys) or a list of ids."""

    __slots__ = ("bits", "ids", "count", "as_bytes", "as_set")

    def __init__(self, bits, ids, count: int):
        self.bits, self.ids, self.count = bits, ids, count
        self.as_bytes = self.as_set = None

    def __contains__(self, i: int) -> bool:
        if self.bits is None:
            if self.as_set is None:
                self.as_set = set(self.ids)
            return i in self.as_set
        data = self.as_bytes
        if data is None:
            data = self.as_bytes = self.bits.to_bytes((self.bits.bit_length() + 7) // 8, "little")
        return (i >> 3) < len(data) and data[i >> 3] >> (i & 7) & 1 == 1

    def id_list(self) -> list:
        return ids_of_bits(self.bits) if self.bits is not None else list(self.ids)


class Option:
    __slots__ = ("points", "field", "kind", "target", "members")

    def __init__(self, points, field, kind, target, members):
        self.points, self.field, self.kind, self.target, self.members = points, field, kind, target, members

    def match(self) -> tuple:
        return (self.points, self.field, self.kind, self.target)


class Book:
    """Live postings and weights of tokens, read from the index once per token."""

    def __init__(self, index, field_idf: bool = True):
        self.index, self.n = index, index.n
        self.top = idf(1, self.n)
        self.field_idf = field_idf
        self.size = (self.n + 7) // 8  # bytes for a bitmap of every id
        self.memo: dict = {}  # token -> ([(field points, Members)], weight, tag/title weight)
        self.surface = None

    def _weigh(self, token: str):
        got = self.memo.get(token)
        if got is None:
            live, df, surface = [], 0, 0
            for field, bits, ids, count in self.index.tiers(token):
                points = FIELD_POINTS[field]
                live.append((points, Members(bits, ids, count)))
                df += count
                if points > BODY:
                    surface += count
            w = max(MIN_WEIGHT, idf(df, self.n) / self.top) if df else 0.0
            got = self.memo[token] = (live, w, (surface_weight(surface, self.n, w) if self.field_idf else w))
        return got

    def stems(self) -> set:
        """Every tag and title token (the fuzzy step's stems)."""
        if self.surface is None:
            self.surface = set(self.index.surface())
        return self.surface

    def forms(self) -> tuple:
        """``(forms, stems)``: the tag and title tokens' written forms (``fuzzycheck.spelled_forms``), and the tokens."""
        return spelled_forms(self.stems()), self.stems()

    def tiers(self, token: str):
        """``([(field points, Members)], weight, tag/title weight)``; no tiers when no entry holds it."""
        return self._weigh(token)

    def targets(self, q: str) -> list:
        """The tokens ``q`` meets by prefix: longer ones that start with it, sorted, then ``q``'s own prefixes
        of 4+ characters (``PREFIX_MIN``)."""
        out = []
        if len(q) >= PREFIX_MIN:
            out = [t for t in self.index.tokens_from(q) if t != q and self._weigh(t)[0]]
        for k in range(PREFIX_MIN, len(q)):
            if self.tiers(q[:k])[0]:
                out.append(q[:k])
        return out

    def options(self, q: str) -> list:
        """``[Option]`` best first: exact, then by prefix, then irregular forms (ties in that order)."""
        ranked = []
        joined = q[:1] == JOINED  # two prompt words written as one: exact matches only
        if joined:
            q = q[1:]
        tiers, w, ws = self.tiers(q)
        for points, members in tiers:
            ranked.append((-(points * (ws if points > BODY else w)), 0, FIELD[points], "exact", q, members))
        targets = () if joined else self.targets(q)
        for order, t in enumerate(targets, 1):
            tiers, w, ws = self.tiers(t)
            for points, members in tiers:
                ranked.append((-(PREFIX * points * (ws if points > BODY else w)), order, FIELD[points], "prefix", t, members))
        for order, t in enumerate(() if joined else alternates(q), len(targets) + 1):  # "lose" meets "lost"
            tiers, w, ws = self.tiers(t)
            for points, members in tiers:
                ranked.append((-(IRREGULAR * points * (ws if points > BODY else w)), order, FIELD[points], "exact", t,
                               members))
        ranked.sort(key=lambda r: (r[0], r[1]))
        return [Option(-r[0], r[2], r[3], r[4], r[5]) for r in ranked]


class _Chooser:
    """Each prompt token's best option for an entry, for a given set of entries."""

    def __init__(self, per_token: list, wanted):
        self.rows = []
        for g, q, options in per_token:
            dense = [(rank, o.members) for rank, o in enumerate(options) if o.members.bits is not None]
            first: dict = {}  # id -> rank of the first sparse option holding it
            for rank, option in enumerate(options):
                if option.members.bits is None:
                    for i in option.members.ids:
                        if i in wanted and i not in first:
                            first[i] = rank
            self.rows.append((g, q, options, dense, first))

    def matches(self, i: int) -> list:
        out = []
        for g, q, options, dense, first in self.rows:
            best = first.get(i, _NOTHING)
            for rank, members in dense:
                if rank >= best:
                    break
                if i in members:
                    best = rank
                    break
            if best != _NOTHING:
                out.append((g, q, options[best].match()))
        return out


def score_index(strategy, query, index) -> list:
    """``[(points, id, parts)]``: the memories of ``index`` that ``strategy`` shows for ``query``."""
    n = index.n
    if not n:
        return []
    book = Book(index, strategy.field_idf)
    per_token, unmatched = [], []
    reach: dict = {}  # group number -> the most points any entry gets from it
    for g, group in enumerate(query):
        for q in group:
            options = book.options(q)
            if options:
                per_token.append((g, q, options))
                reach[g] = max(reach.get(g, 0.0), options[0].points)
            if not any(o.kind == "exact" for o in options):  # no match, or by prefix only: the fuzzy step may try it
                unmatched.append((g, q))
    reachable = sum(reach.values())
    unknown = unknown_words(query, reach)

    found, totals = {}, {}
    best = 0.0
    least = strategy.floor()  # no entry under it is ever shown
    if strategy.second_chance:
        least = min(least, strategy.min_score)  # ``secondchance``: min_score, min_relative x the best
    floor = least - MARGIN  # no entry under it is ever scored exactly
    candidates, planes, reached = [], None, 0.0
    if per_token:
        planes = bound(per_token, book.size)
        # the entries with the largest bound, scored first: the best of them lifts the floor
        # to min_relative x that score, under which no clear hit can be (a long prompt puts
        # most entries over the floor alone)
        seeds = ids_of_bits(planes.top())
        seed_chooser = _Chooser(per_token, set(seeds))
        lifted = max((matches_total(seed_chooser.matches(i)) for i in seeds), default=0.0)
        # a score is at most (1 + ADJACENT / 2) x the sum of its matches, body ones counted at
        # 1 + BODY_COVERAGE_MAX x (``matching.adjacency``, ``weights.body_coverage``, ``bitplanes.bound``)
        reached = max(floor, strategy.min_relative * lifted - MARGIN) / (1.0 + ADJACENT / 2)
        candidates = reaching(planes, reached)
    ranked = _ranked(per_token, candidates, floor)
    rest = iter(ranked)
    for neg_ub, i, matches in rest:
        if -neg_ub < max(least, strategy.min_relative * best) - MARGIN:
            rest = [(neg_ub, i, matches), *rest]  # not scored: the related step may need them
            break
        found[i] = matches
        totals[i] = matches_total(matches)
        best = max(best, totals[i])
    if (strategy.use_fuzzy and unmatched and not strategy.confident(best, reachable, unknown, totals, found, n)
            and fuzzy_may_match([q for _, q in unmatched if len(q) >= FUZZY_MIN and q[:1] != JOINED],
                                book.stems(), strategy.fuzzy_cutoff)
            and fuzzy_available()):
        # entries never scored have bounds under max(min_score, min_relative x the best so far),
        # so under the final bar: the fuzzy step only raises the best
        touched = _fuzzy(strategy, book, unmatched)
        chooser = _Chooser(per_token, set(touched))
        for i, extra in touched.items():
            if i not in found:
                found[i] = chooser.matches(i)
            for g, q, m in extra:
                add_fuzzy(found[i], g, q, m)
            totals[i] = matches_total(found[i])
            for g, _, m in extra:  # a typo the store explains is not unknown
                reach[g] = max(reach.get(g, 0.0), m[0])
        best = max(totals.values(), default=0.0)
        reachable, unknown = sum(reach.values()), unknown_words(query, reach)
    if not strategy.confident(best, reachable, unknown, totals, found, n):
        return second_chance(strategy, [(round(t, 2), i, found[i]) for i, t in totals.items()])
    shown = round(best, 2)  # the best as ``Smart.shown`` takes it (rows are rounded)
    if strategy.related_floor(shown) < strategy.clear_bar(shown) and planes is not None:
        _related(strategy, per_token, planes, shown, reached, list(rest), [i for _, i, _ in ranked], found, totals)
    return strategy.shown(best, [(round(total, 2), i, found[i]) for i, total in totals.items()])


def _ranked(per_token: list, ids, floor: float) -> list:
    """``[(-exact bound, id, matches)]`` of ``ids`` whose exact bound reaches ``floor``, largest first."""
    chooser = _Chooser(per_token, set(ids))
    ranked = []
    for i in ids:
        matches = chooser.matches(i)
        ub = adjacency(matches) + body_coverage(matches)
        for m in matches:
            ub += m[2][0]
        if ub >= floor:
            ranked.append((-ub, i, matches))
    ranked.sort(key=lambda r: r[0])
    return ranked


def _related(strategy, per_token: list, planes, best: float, reached: float, rest: list, seen_ids,
             found: dict, totals: dict) -> None:
    """Score the entries that can be among the ``max_related`` best under the clear bar.

    Every entry not scored yet is under the clear bar. They are taken band by band of their
    bound (``rest`` first: those over ``reached``, then lower bands read out of the planes),
    each band largest exact bound first, and scoring stops once no entry left can reach
    ``Smart.related_floor`` or the ``max_related``-th best related score so far (ties are kept).
    """
    low, high = strategy.related_floor(best), strategy.clear_bar(best)
    pool = sorted((round(t, 2) for i, t in totals.items()
                   if round(t, 2) < high and strategy.related_fit(round(t, 2), found[i], best)), reverse=True)
    wanted = strategy.max_related

    def need() -> float:
        return max(low, pool[wanted - 1] if len(pool) >= wanted else low) - MARGIN

    def score(band) -> None:
        for neg_ub, i, matches in band:
            if -neg_ub < need():
                return
            if i in found:  # scored with its fuzzy matches already
                continue
            found[i] = matches
            total = totals[i] = matches_total(matches)
            if round(total, 2) < high and strategy.related_fit(round(total, 2), matches, best):
                pool.append(round(total, 2))
                pool.sort(reverse=True)

    score(rest)
    seen = set(seen_ids)  # scored above, or their exact bounds are under ``need``, which only rises
    top = reached
    while top * (1.0 + ADJACENT / 2) >= need():
        lowest = need() / (1.0 + ADJACENT / 2)  # no entry whose bound is under it can be shown
        bottom = max(lowest, top * BAND)
        band = [i for i in reaching(planes, bottom) if i not in seen]
        seen.update(band)
        score(_ranked(per_token, band, need()))
        if bottom <= lowest + 1e-9 or bottom < QUANTUM:  # the last band: every entry with a bound is read
            break
        top = bottom


def _fuzzy(strategy, book: Book, unmatched: list) -> dict:
    """``Smart``'s fuzzy step: unmatched 5+ character tokens against the live title and tag tokens."""
    forms, stems = book.forms()
    touched: dict = {}  # id -> fuzzy matches, in prompt order
    for g, q in unmatched:
        if len(q) < FUZZY_MIN or q[:1] == JOINED:
            continue
        best: dict = {}
        for t, similarity in fuzzy_stems(q, forms, stems, strategy.fuzzy_cutoff):
            tiers, _, ws = book.tiers(t)
            for points, members in tiers:
                if points == BODY:
                    continue
                for i in members.id_list():
                    p = FUZZY * points * ws * similarity / 100.0
                    if p > best.get(i, (0,))[0]:
                        best[i] = (p, FIELD[points], "fuzzy", t)
        for i, m in best.items():
            touched.setdefault(i, []).append((g, q, m))
    return touched
