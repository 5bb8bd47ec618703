"""``smart`` on the machine cache: the same hits as ``Smart.score_all``, from postings alone.

Every entry is filed under ``"<token> <points>"`` for each of its tokens, with the points
of its best field (tag 3, title 2, body 1), so a token's document frequency is the size
of its postings (its tag/title frequency, for ``field_idf``, the size of the tag and title
keys) and the tokens that start with ``q`` are one range of sorted keys.

Most entries a prompt touches share only common words with it and end far below the
floors, so exact scores are computed for few of them:

1. for each prompt token, its options (exact match per field, then each prefix target per
   field) are ranked by points, earliest first on ties, which is the order in which
   ``Smart._match`` lets one replace another; an entry's best option for the token is the
   first one that holds it;
2. an upper bound of every entry's score (the sum over prompt tokens of the points of
   its best option, a body option counted at ``1 + BODY_COVERAGE_MAX`` x its points for
   ``weights.body_coverage``; the real score decays a word's second and later tokens, and adds at
   most ``ADJACENT`` / 2 x that sum for neighbouring words, ``matching.adjacency``) is added up
   with whole-int bit operations: the bound is kept as bit planes (plane k holds bit k of
   every entry's bound, in units of ``QUANTUM``), each option's points are rounded *up*
   to whole units, and an option's entries are added to the planes as one bitmap. A
   common word in 40% of 100,000 memories costs a few dozen operations on 12 KB ints, not
   40,000 Python steps. Options of one token are taken by falling points, each adding only
   the entries no better option of that token holds, so an entry gets its best option's
   units. Options filed under few entries are merged per rounded value first;
3. the entries whose bound reaches ``Smart.floor()`` / (1 + ``ADJACENT`` / 2) (under it nothing
   is shown; less a margin for the rounding to two places) are read out of the planes with
   one comparison; only they are scored exactly, with ``Smart``'s own ``match_total`` and
   ``match_parts``, in order of falling exact bound (their matches' sum plus their adjacency and
   their ``body_coverage``),
   until the bound is under ``max(floor, min_relative x best so far)`` less the margin: no
   entry left can reach the clear bar or the best score;
4. when the fuzzy fallback has to run (the best is not ``Smart.confident``), the entries
   it touches are scored exactly with their fuzzy matches added; the others stay under
   the floor or under the bar, which the fuzzy step only raises, as in ``score_all``;
5. the abstention rule (``Smart.confident``: the best score and the share of the prompt
   it explains) is applied to the exact scores, with the prompt's reachable points taken
   from each token's best option, as ``score_all`` does;
6. the possibly related memories (under ``Smart.clear_bar``, ``Smart.related_fit``; the
   ``max_related`` best, ties kept): the entries not scored yet (and those under the floor of
   step 3, which a memory met by short forms may be), taken band by band of
   their bound (``BAND``), largest exact bound first, until none left can reach ``Smart.related_floor`` or
   the ``max_related``-th best related score so far (``_related``); ``Smart.shown`` then
   picks the shown ones from the exact scores, as ``score_all`` does.

Rounding up only makes the bound larger, so no entry that ``score_all`` would return is
missed; every returned score is computed exactly as ``score_all`` computes it.
"""
from __future__ import annotations

from bisect import bisect_left

from ..derived.cache import NO_BITS, bits_of, ids_of_bits
from .abstention import unknown_words
from .bitplanes import QUANTUM, bound_planes, reaching
from .secondchance import second_chance
from .weights import (ADJACENT, BODY, FUZZY, FUZZY_MIN, IRREGULAR, JOINED, MIN_WEIGHT, PREFIX, PREFIX_MIN, TAG, TITLE, idf_weight, match_parts,
                      match_total, add_fuzzy, adjacency, body_coverage, fuzzy_available, fuzzy_stems, surface_weight)
from ..text.fuzzycheck import form_lengths, forms_by_length, fuzzy_may_match_groups, spelled_forms
from ..text.wordforms import alternates

FIELD = {TAG: "tags", TITLE: "title", BODY: "body"}
CODES = (("3", TAG), ("2", TITLE), ("1", BODY))
MARGIN = 0.01  # scores are rounded to 2 places before the floors compare them
BAND = 0.75  # the related step reads the entries under the clear bar in bands of their bound this wide
_NOTHING = 1 << 62


class Members:
    """The live entries filed under one key: a bitmap (dense keys) or a list of ids."""

    __slots__ = ("bits", "ids", "count", "_bytes", "_set")

    def __init__(self, bits, ids, count: int):
        self.bits, self.ids, self.count = bits, ids, count
        self._bytes = self._set = None

    def __contains__(self, i: int) -> bool:
        if self.bits is None:
            if self._set is None:
                self._set = set(self.ids)
            return i in self._set
        data = self._bytes
        if data is None:
            data = self._bytes = self.bits.to_bytes((self.bits.bit_length() + 7) // 8, "little")
        return (i >> 3) < len(data) and data[i >> 3] >> (i & 7) & 1 == 1

    def id_list(self) -> list:
        return ids_of_bits(self.bits) if self.bits is not None else list(self.ids)


class Option:
    __slots__ = ("points", "field", "kind", "target", "members")

    def __init__(self, points, field, kind, target, members):
        self.points, self.field, self.kind, self.target, self.members = points, field, kind, target, members

    def match(self) -> tuple:
        return (self.points, self.field, self.kind, self.target)


class _Book:
    """Live postings and weights of tokens, read from the cache once per token."""

    def __init__(self, index, n: int, field_idf: bool = True):
        self.index, self.n, self.top = index, n, idf_weight(1, n)
        self.field_idf = field_idf
        self.dead = index.dead_ids()
        self.size = (index.n_ids + 7) // 8  # bytes for a bitmap of every id, patched-in ones too
        self.dead_bits = bits_of(self.dead, self.size) if self.dead else 0
        self.xpost = index.xpost
        self.xkeys = sorted(self.xpost)  # patched-in keys, for prefix ranges
        self.memo: dict = {}  # token -> ([(field points, Members)], weight, tag/title weight)

    def _members(self, key: str, ids, bitmap_number: int, stored: int):
        """Members of ``key``: main postings ``ids`` (or its bitmap) plus patched-in ids, less the dead."""
        extra = self.xpost.get(key)
        if extra and self.dead:
            extra = [i for i in extra if i not in self.dead]
        if bitmap_number != NO_BITS:
            bits = self.index.bitmap(bitmap_number)
            count = stored
            if self.dead_bits:
                gone = bits & self.dead_bits
                if gone:
                    bits &= ~self.dead_bits
                    count -= bin(gone).count("1")
            if extra:
                bits |= bits_of(extra, self.size)
                count += len(extra)
            return Members(bits, None, count) if count else None
        if self.dead and ids:
            ids = [i for i in ids if i not in self.dead]
        if extra:
            ids = list(ids) + extra
        return Members(None, ids, len(ids)) if ids else None

    def _weigh(self, tiers: list):
        live, df, surface = [], 0, 0
        for points, members in tiers:
            if members is not None:
                live.append((points, members))
                df += members.count
                if points > BODY:
                    surface += members.count
        w = max(MIN_WEIGHT, idf_weight(df, self.n) / self.top) if df else 0.0
        return live, w, (surface_weight(surface, self.n, w) if self.field_idf else w)

    def tiers(self, token: str):
        """``([(field points, Members)], weight, tag/title weight)``; no tiers when no live entry holds it."""
        got = self.memo.get(token)
        if got is None:
            got = self.memo[token] = self._weigh(self._read_range(token + " ", exact_token=token).get(token, []))
        return got

    def _read_range(self, prefix: str, exact_token=None) -> dict:
        """token -> ``[(field points, Members)]`` for every main or patched-in key starting with ``prefix``."""
        index = self.index
        lo, hi = index.key_range(prefix)
        out: dict = {}
        points_of = dict((code, points) for code, points in CODES)
        if hi > lo:
            keys = index.keys_between(lo, hi)
            ids, bounds = index.postings_between(lo, hi)
            numbers = index.bitmaps_between(lo, hi)
            for j, key in enumerate(keys):
                stored = bounds[j + 1] - bounds[j]
                number = numbers[j]
                members = self._members(key, None if number != NO_BITS else ids[bounds[j]:bounds[j + 1]],
                                        number, stored)
                out.setdefault(key[:-2], []).append((points_of[key[-1]], members))
        xkeys = self.xkeys
        j = bisect_left(xkeys, prefix)
        while j < len(xkeys) and xkeys[j].startswith(prefix):
            key = xkeys[j]
            j += 1
            if exact_token is None or key[:-2] == exact_token:
                token = key[:-2]
                have = {p for p, _ in out.get(token, [])}
                if points_of[key[-1]] not in have:
                    out.setdefault(token, []).append((points_of[key[-1]], self._members(key, (), NO_BITS, 0)))
        for token in out:  # tag, title, body order
            out[token].sort(key=lambda tier: -tier[0])
        return out

    def targets(self, q: str) -> list:
        """``Smart._prefix_targets`` over the live tokens: longer ones sorted, then ``q``'s own prefixes."""
        out = []
        if len(q) >= PREFIX_MIN:
            found = self._read_range(q)
            found.pop(q, None)
            for token, tiers in found.items():
                if token not in self.memo:
                    self.memo[token] = self._weigh(tiers)
            out = sorted(t for t in found if self.memo[t][0])
        for k in range(PREFIX_MIN, len(q)):
            if self.tiers(q[:k])[0]:
                out.append(q[:k])
        return out

    def options(self, q: str) -> list:
        """``[Option]`` best first; ties keep ``Smart._match``'s order."""
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
        for order, t in enumerate(() if joined else alternates(q), len(targets) + 1):  # after the prefixes, as in
            tiers, w, ws = self.tiers(t)                                                 # ``Smart._match``
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
    """``[(points, id, parts)]``, the hits ``strategy.score_all`` gives for the index's entries."""
    n = index.meta.get("count") or 0
    if not n:
        return []
    book = _Book(index, n, strategy.field_idf)
    per_token, unmatched = [], []
    reach: dict = {}  # group number -> the most points any entry gets from it (``Smart.score_all``)
    for g, group in enumerate(query):
        for q in group:
            options = book.options(q)
            if options:
                per_token.append((g, q, options))
                reach[g] = max(reach.get(g, 0.0), options[0].points)
            if not any(o.kind == "exact" for o in options):  # no match, or by prefix only (``Smart.score_all``)
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
        planes = bound_planes(per_token, book.size)
        # the entries with the largest bound, scored first: the best of them lifts the floor
        # to min_relative x that score, under which no clear hit can be (a long prompt puts
        # most entries over the floor alone)
        seeds = ids_of_bits(planes.top())
        seed_chooser = _Chooser(per_token, set(seeds))
        lifted = max((match_total(seed_chooser.matches(i)) for i in seeds), default=0.0)
        # a score is at most (1 + ADJACENT / 2) x the sum of its matches, body ones counted at
        # 1 + BODY_COVERAGE_MAX x (``matching.adjacency``, ``weights.body_coverage``, ``bitplanes.bound_planes``)
        reached = max(floor, strategy.min_relative * lifted - MARGIN) / (1.0 + ADJACENT / 2)
        candidates = reaching(planes, reached)
    ranked = _ranked(per_token, candidates, floor)
    rest = iter(ranked)
    for neg_ub, i, matches in rest:
        if -neg_ub < max(least, strategy.min_relative * best) - MARGIN:
            rest = [(neg_ub, i, matches), *rest]  # not scored: the related step may need them
            break
        found[i] = matches
        totals[i] = match_total(matches)
        best = max(best, totals[i])
    if (strategy.use_fuzzy and unmatched and not strategy.confident(best, reachable, unknown, totals, found, n)
            and _fuzzy_may_match(index, [q for _, q in unmatched if len(q) >= FUZZY_MIN and q[:1] != JOINED], strategy.fuzzy_cutoff)
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
            totals[i] = match_total(found[i])
            for g, _, m in extra:  # a typo the store explains is not unknown (``Smart.score_all``)
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
            total = totals[i] = match_total(matches)
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


def _fuzzy_may_match(index, prompt_tokens: list, cutoff: float) -> bool:
    """``matching.fuzzy_may_match`` against the cache's title and tag tokens (removed ones too)."""
    if not prompt_tokens:
        return False
    lengths = set()
    for length, _, _ in index.meta["fvoc"]:
        lengths.add(length)
    for key in index.xpost:
        lengths.add(len(key) - 2)
    # a stem is wanted when one of its written forms (``fuzzycheck.spelled_forms``) may reach a prompt token
    reach = {lf for lb in lengths for lf in form_lengths(lb) if any(_lengths_may_match(len(q), lf, cutoff)
                                                                    for q in prompt_tokens)}
    wanted = {lb for lb in lengths if any(lf in reach for lf in form_lengths(lb))}
    return fuzzy_may_match_groups(prompt_tokens, forms_by_length(index.fuzzy_vocabulary(wanted), reach), cutoff)


def _lengths_may_match(la: int, lb: int, cutoff: float) -> bool:
    return min(la, lb) >= (cutoff - 1e-6) / 200.0 * (la + lb)


def _fuzzy(strategy, book: _Book, unmatched: list) -> dict:
    """``Smart``'s fuzzy step: unmatched 5+ character tokens against the live title and tag tokens."""
    index = book.index
    stems = {key[:-2] for key in index.live_keys("32")}
    forms = spelled_forms(stems)
    touched: dict = {}  # id -> fuzzy matches, in the order Smart.score_all appends them
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
