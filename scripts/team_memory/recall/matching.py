"""The ``smart`` match strategy: weighted token matching over title, tags and body.

Per prompt token (``textnorm.tokenize``) and memory, the best of: a tag match ``TAG``, a title match ``TITLE`` (a part
of a compound tag counts as title), a body match ``BODY``, each x the token's weight; a prefix match (the shorter token,
of 4+ characters, starts the other) at ``PREFIX`` x those points; another form of an irregular verb (``lose``/``lost``:
``textnorm.alternates``) at ``IRREGULAR``, counted as exact; another name of the same thing (``k8s``/``kubernetes``:
``textnorm.synonyms``) at ``SYNONYM``; the fuzzy fallback at ``FUZZY`` x title/tag points x similarity. The weight is
the store's IDF, ``idf(df) / idf(1)`` (at least ``MIN_WEIGHT``); a tag or title match takes the IDF among the memories
holding the token there (``retrieval.field_idf``), so one memory's tag stays rare however many bodies mention it. A
memory's score sums its prompt words (``weights.matches_total``); two neighbouring words also count written as one,
exact matches only, at half where the memory meets both words too (``textnorm.joined_pairs``; ``retrieval.join_pairs``).

Whether to answer at all: ``weights`` (``Smart.confident``); beside the best, a clear hit needs ``clear_bar``; under it
the ``retrieval.max_related`` best reaching ``bar`` (or ``related_fit``) that ``weights.judge`` keeps are shown by title
(docs/guide.md). The fuzzy step runs only when rapidfuzz is importable and exact and prefix matching leave no confident
best: prompt tokens of 5+ characters with no exact match meet title and tag tokens and their written forms
(``fuzzycheck.spelled_forms``; ``retrieval.fuzzy_cutoff``), replacing the token's weaker prefix match.
"""
from __future__ import annotations

import math

from ..base.config import number_setting, section
from ..derived.cache import bits_of, ids_of_bits
from ..text.features import SmartFeatures, content_text, strategy_name
from ..text.fuzzycheck import fuzzy_may_match, spelled_forms
from ..text.textnorm import alternates, joined_pairs, synonyms, token_groups, tokenize
from .weights import (ADJACENT, BODY, BODY_COVERAGE_MAX, CORROBORATED_SHARE, EXPLAINED_FLOOR, FUZZY, FUZZY_MIN,
                      IRREGULAR, JOINED, MIN_WEIGHT, PREFIX, PREFIX_MIN, SYNONYM, TAG, TITLE, add_fuzzy, adjacency,
                      asks_team, body_coverage, evidence, explained, fuzzy_available, fuzzy_stems, idf, judge,
                      matches_total, nth_best, rare_words, second_chance, short_form_total, strong_words,
                      subject_name, surface_weight, unknown_words, with_parts)

DEFAULT_MIN_SCORE = 1.3
DEFAULT_MAX_RELATED = 3  # possibly related memories shown by title after the clear hits
TIE = 0.9  # a runner-up needs min_runner_up points, or TIE x the best when the best has fewer
SUBJECT_MISSING = 0.5  # a memory's score when it does not name the question's first name (chosen on dev splits)
NAME_READS = 8  # memories read at most to find a name written out ("jam" holds the token of "James")
# retrieval.<key>: (default, least, most); what each means: docs/guide.md
FLOAT_SETTINGS = {
    "min_score": (DEFAULT_MIN_SCORE, 0.0, 1000.0),
    "min_relative": (0.6, 0.0, 1.0),
    "min_evidence": (1.9, 0.0, 1000.0),
    "min_corroborated": (1.3, 0.0, 1000.0),  # ``weights.strong_words``: 0 turns that way of answering off
    "min_explained": (0.7, 0.0, 1.0),  # ``weights.explained``: 0 turns that way of answering off
    "min_runner_up": (3.0, 0.0, 1000.0),
    "min_related": (0.4, 0.0, 1.0),
    "answer_shape": (1.0, 0.0, 100.0),  # a date for "when ...?", an amount for "how much ...?" (``text.answershape``)
    "fuzzy_cutoff": (85, 50.0, 100.0),
    "min_distinct": (1.0, 0.0, 1000.0),  # ``weights.judge``
    "near_distinct": (0.3, 0.0, 1.0),
    "min_distinct_team": (0.4, 0.0, 1000.0),
}


class Smart(SmartFeatures):
    """The strategy's settings and bars; what it caches per memory is ``features.SmartFeatures``'."""

    def __init__(self, config: dict):
        super().__init__(config)  # stop_words, compound_parts
        strategy_name(config)  # an unknown name warns
        for key, (default, low, high) in FLOAT_SETTINGS.items():  # clamped; a bad value warns and gives the default
            setattr(self, key, number_setting(config, "retrieval", key, default, low, high, kind=float))
        # the least score a best memory answers with, by the ways switched on (``confident``)
        self.lowest_best = min(max(self.min_score, self.min_evidence),  # evidence is never more than the best score
                               max(self.min_score, self.min_corroborated) if self.min_corroborated > 0 else math.inf,
                               EXPLAINED_FLOOR * self.min_score if self.min_explained > 0 else math.inf)
        # no memory under this is shown beside a best of ``min_evidence`` or more, nor as possibly related
        self.runner_up_floor = max(self.min_score, min(self.min_runner_up, TIE * self.min_evidence))
        self.max_related = number_setting(config, "retrieval", "max_related", DEFAULT_MAX_RELATED, 0, 20)
        self.second_chance = number_setting(config, "retrieval", "second_chance", 0, 0, 5)  # ``weights.second_chance``
        switches = ("fuzzy", "field_idf", "join_pairs", "unknown_names")  # on unless set to false
        self.use_fuzzy, self.field_idf, self.join_pairs, self.unknown_names = (
            section(config, "retrieval").get(key, True) is not False for key in switches)
        self._subject = self.stranger = ""  # the prompt's first name; it, when no memory mentions it (``score_index``)
        self._query = None  # the prompt being scored, for ``shown`` (``weights.judge``)
        self._asks_team = False  # whether the prompt asks about the team's own ways (``weights.asks_team``)
        self.relevance = None  # what ``weights.judge`` said of the last prompt (``search --explain``)

    def score(self, query, index, read=None) -> list:
        """``[(points, id, parts)]`` shown for ``query`` (``read``: index entry -> record or None: ``_mentioned``)."""
        self._query = query
        return score_index(self, query, index, read)

    def query(self, prompt: str):
        """The prompt's tokens grouped by the word or run they came from (``weights.matches_total``)."""
        groups = token_groups(prompt, self.stop_words)
        self._asks_team = asks_team(prompt)
        self._subject = subject_name(prompt, self.stop_words) if self.unknown_names else ""
        if self.join_pairs:
            seen = {t for g in groups for t in g}
            groups += [[JOINED + t] for t in joined_pairs(prompt, self.stop_words) if t not in seen]
        return tuple(tuple(g) for g in groups)

    def confident(self, best: float, reachable: float, unknown: int, totals: dict, found: dict, n: int) -> bool:
        """Whether the best is evidence enough to answer (``weights``; ``totals``, ``found``: id -> score, matches)."""
        if best < self.lowest_best - 1e-9:
            return False
        proof = evidence(best, reachable)
        if best >= self.min_score and proof >= self.min_evidence - 1e-9:
            return True
        share = explained(best, reachable, unknown)
        tops = [found[i] for i, total in totals.items() if total == best]  # ties: any of them may answer
        if (self.min_corroborated > 0 and best >= self.min_score and proof >= self.min_corroborated - 1e-9
                and share >= CORROBORATED_SHARE - 1e-9 and any(strong_words(m, n) >= 2 for m in tops)):
            return True
        return (self.min_explained > 0 and best >= EXPLAINED_FLOOR * self.min_score
                and share >= self.min_explained - 1e-9 and any(rare_words(m) for m in tops))

    def floor(self) -> float:
        """No best or clear hit is under this (a possibly related one met by short forms may be: ``_related``)."""
        return min(self.clear_bar(self.lowest_best), self.runner_up_floor)

    def clear_bar(self, best: float) -> float:
        """The points a clear hit needs beside a best of ``best`` (the best itself always is one)."""
        return min(best, max(self.min_score, min(self.min_runner_up, TIE * best), self.min_relative * best))

    def bar(self, best: float) -> float:
        """The points a memory needs to be shown at all beside a best of ``best``."""
        clear = self.clear_bar(best)
        return min(clear, max(self.runner_up_floor, self.min_related * best)) if self.max_related else clear

    def related_floor(self, best: float) -> float:
        """The least a possibly related memory met by short forms (``related_fit``) scores beside ``best``."""
        bar = self.bar(best)
        return min(bar, max(self.min_score * PREFIX, self.min_related * best)) if self.max_related else bar

    def related_fit(self, total: float, matches: list, best: float) -> bool:
        """Whether one under the clear bar is related: it reaches ``bar``, prefixes as exact from ``related_floor``."""
        low = self.bar(best)
        return total >= low or (total >= self.related_floor(best) - 1e-9 and short_form_total(matches) >= low - 1e-9)

    def shown(self, best: float, rows: list) -> list:
        """``[(points, key, parts)]`` of ``rows`` (``(rounded points, key, matches)``) shown: the clear hits and the
        ``max_related`` best under the clear bar (ties kept, marked ``related``), then ``weights.judge`` (after
        the choice: one left out never lets a weaker one in)."""
        best = round(best, 2)  # as ``rows`` are: a best answering under ``min_score`` is its own clear bar
        high = self.clear_bar(best)
        fits = [(t, key, m) for t, key, m in rows if t > 0 and (t >= high or self.related_fit(t, m, best))]
        cut = nth_best([t for t, _, _ in fits if t < high], self.max_related, high)
        chosen = [(t, key, m) for t, key, m in fits if t >= high or t >= cut]
        least = min(self.min_distinct, self.min_distinct_team) if self._asks_team else self.min_distinct
        chosen, self.relevance = judge(self._query, chosen, least, self.near_distinct, self._asks_team)
        return with_parts(chosen, high)


get_strategy = Smart  # the configured match strategy, ready to score (``smart``; ``retrieval.match_strategy``)


# -- the scores over an ``Index`` (``derived.cache``): the one implementation of the rule above.
# Most entries a prompt touches share only common words with it, so few are scored exactly:
# 1. each prompt token's options (exact per field, prefix targets, irregular forms) are ranked by points,
#    earliest first on ties; an entry's match for the token is the first option holding it;
# 2. every entry's upper bound is added up as bit planes (``bound``: what keeps the prompt hook in its
#    budget at 10,000 memories); the real score is at most (1 + ``ADJACENT`` / 2) x that bound;
# 3. entries whose bound reaches the floor are scored by falling exact bound until the bound is under
#    ``max(floor, min_relative x best so far)``; 4. the fuzzy step scores what it touches (it only raises the best);
# 5. possibly related memories: unscored entries, band by band of their bound (``BAND``), until none can reach
#    ``Smart.related_floor`` or the ``max_related``-th best so far (``_related``).
# Bounds are rounded up and compared less ``MARGIN``: no entry that reaches a floor is missed.

FIELD = {TAG: "tags", TITLE: "title", BODY: "body"}
FIELD_POINTS = (TAG, TITLE, BODY)  # a cache tier's field: 0 tags, 1 title, 2 body
MARGIN = 0.01  # scores are rounded to 2 places before the floors compare them
_NOTHING = 1 << 62
BAND = 0.75  # the related step reads the entries under the clear bar in bands of their bound this wide
QUANTUM = 0.01  # the bound's unit: each option adds whole units, rounded up, to every entry it reaches
# options filed under few entries are merged per value rounded up to one of these units: a token has few groups
LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def _add(planes: list, bits: int, units: int) -> None:
    """Add ``units`` to the number of every entry in ``bits`` (plane k: bit k of every entry's number, so adding
    to a thousand entries is a few whole-int operations)."""
    k = 0
    while units:
        if units & 1:
            carry, j = bits, k
            while carry:
                if j >= len(planes):
                    planes += [0] * (j - len(planes)) + [carry]
                    break
                plane = planes[j]
                planes[j] = plane ^ carry
                carry &= plane
                j += 1
        units >>= 1
        k += 1


def top(planes: list) -> int:
    """A bitmap of the entries holding the largest number."""
    found = -1  # every entry, narrowed plane by plane from the highest
    for plane in reversed(planes):
        found = found & plane or found
    return max(found, 0)


def _at_least(planes: list, threshold: int) -> int:
    """A bitmap of the entries whose number is ``threshold`` (>= 1) or more."""
    if threshold >> len(planes):
        return 0
    greater, equal = 0, -1
    for k in range(len(planes) - 1, -1, -1):
        plane = planes[k]
        if threshold >> k & 1:
            equal &= plane
        else:
            greater |= equal & plane
            equal &= ~plane
    return greater | equal


def bound(per_token: list, size: int) -> list:
    """Every entry's rounded-up bound as bit planes (a body option at ``1 + BODY_COVERAGE_MAX`` x its points)."""
    planes: list = []
    for _, _, options in per_token:
        groups: dict = {}  # units -> [bitmap, sparse ids]
        for (points, field, _, _), members in options:
            points = points * (1.0 + BODY_COVERAGE_MAX) if field == "body" else points
            units = int(points / QUANTUM * (1.0 + 1e-9)) + 1  # rounded up: strictly above, whatever the float error
            if members.bits is not None:
                groups.setdefault(units, [0, []])[0] |= members.bits
            else:
                units = next((step for step in LADDER if step >= units), units)
                groups.setdefault(units, [0, []])[1].extend(members.ids)
        seen = 0
        for units in sorted(groups, reverse=True):
            bits, ids = groups[units]
            if ids:
                bits |= bits_of(ids, size)
            fresh = bits & ~seen if seen else bits
            seen |= bits
            if fresh:
                _add(planes, fresh, units)
    return planes


def reaching(planes: list, floor: float) -> list:
    """The ids whose rounded-up bound reaches ``floor`` (every id whose exact bound does, and maybe more)."""
    return ids_of_bits(_at_least(planes, max(1, int(floor / QUANTUM))))


class Members:
    """The live entries filed under one key: a bitmap (dense keys) or a list of ids."""

    __slots__ = ("bits", "ids", "as_bytes")

    def __init__(self, bits, ids):
        self.bits, self.ids, self.as_bytes = bits, ids, None

    def __contains__(self, i: int) -> bool:  # a bitmap's only (``_Chooser`` reads a list of ids itself)
        data = self.as_bytes
        if data is None:
            data = self.as_bytes = self.bits.to_bytes((self.bits.bit_length() + 7) // 8, "little")
        return (i >> 3) < len(data) and data[i >> 3] >> (i & 7) & 1 == 1


class Book:
    """Live postings and weights of tokens, read from the index once per token."""

    def __init__(self, index, field_idf: bool = True):
        self.index, self.n = index, index.n
        self.top = idf(1, self.n)
        self.field_idf = field_idf
        self.size = (self.n + 7) // 8  # bytes for a bitmap of every id
        self.memo: dict = {}  # token -> ([(field points, Members)], weight, tag/title weight)

    def tiers(self, token: str):
        """``([(field points, Members)], weight, tag/title weight)``; no tiers when no entry holds it."""
        got = self.memo.get(token)
        if got is None:
            live, df, surface = [], 0, 0
            for field, bits, ids, count in self.index.tiers(token):
                points = FIELD_POINTS[field]
                live.append((points, Members(bits, ids)))
                df += count
                if points > BODY:
                    surface += count
            w = max(MIN_WEIGHT, idf(df, self.n) / self.top) if df else 0.0
            got = self.memo[token] = (live, w, (surface_weight(surface, self.n, w) if self.field_idf else w))
        return got

    def options(self, q: str) -> list:
        """``[(match, Members)]`` best first, a match ``(points, field, kind, target)``: exact, by prefix (longer
        tokens, sorted, then ``q``'s own), irregular (ties so)."""
        ranked = []
        joined = q[:1] == JOINED  # two prompt words written as one: exact matches only
        q = q[1:] if joined else q
        sources = [(q, 1.0, "exact")]
        if not joined:
            longer = self.index.tokens_from(q) if len(q) >= PREFIX_MIN else ()
            sources += [(t, PREFIX, "prefix") for t in longer if t != q and self.tiers(t)[0]]
            sources += [(q[:k], PREFIX, "prefix") for k in range(PREFIX_MIN, len(q)) if self.tiers(q[:k])[0]]
            sources += [(t, IRREGULAR, "exact") for t in alternates(q)]  # "lose" meets "lost"
            sources += [(t, SYNONYM, "synonym") for t in synonyms(q)]  # "k8s" meets "kubernetes"
        for order, (t, factor, kind) in enumerate(sources):
            tiers, w, ws = self.tiers(t)
            for points, members in tiers:
                weight = ws if points > BODY else w
                ranked.append((-(factor * points * weight), order, FIELD[points], kind, t, members))
        ranked.sort(key=lambda r: (r[0], r[1]))
        return [((-r[0], r[2], r[3], r[4]), r[5]) for r in ranked]


class _Chooser:
    """Each prompt token's best option for an entry, for a given set of entries."""

    def __init__(self, per_token: list, wanted):
        self.rows = []
        for g, q, options in per_token:
            dense = [(rank, members) for rank, (_, members) in enumerate(options) if members.bits is not None]
            first: dict = {}  # id -> rank of the first sparse option holding it
            for rank, (_, members) in enumerate(options):
                if members.bits is None:
                    for i in members.ids:
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
                out.append((g, q, options[best][0]))
        return out


def score_index(strategy, query, index, read=None) -> list:
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
                reach[g] = max(reach.get(g, 0.0), options[0][0][0])  # the best option's points
            if len(q) >= FUZZY_MIN and q[:1] != JOINED and not any(m[2] == "exact" for m, _ in options):
                unmatched.append((g, q))  # no match, or by prefix only: the fuzzy step may try it
    reachable, unknown = sum(reach.values()), unknown_words(query, reach)
    strategy.stranger = "" if _mentioned(book, strategy._subject, read) else strategy._subject
    if strategy.stranger:
        return []  # "When did Elena sign up?" of a store that never names Elena: about someone else

    found, totals, best = {}, {}, 0.0
    least = strategy.floor()  # no entry under it is ever shown (``weights.second_chance``: min_score at least)
    least = min(least, strategy.min_score) if strategy.second_chance else least
    floor = least - MARGIN  # no entry under it is ever scored exactly
    candidates, planes, reached = [], None, 0.0
    if per_token:
        planes = bound(per_token, book.size)
        # the entries with the largest bound, scored first, lift the floor to min_relative x the best
        # of them (a long prompt puts most entries over the floor alone)
        seeds = ids_of_bits(top(planes))
        seed_chooser = _Chooser(per_token, set(seeds))
        lifted = max((matches_total(seed_chooser.matches(i)) for i in seeds), default=0.0)
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
            and fuzzy_may_match([q for _, q in unmatched], (stems := set(index.surface())), strategy.fuzzy_cutoff)
            and fuzzy_available()):
        # entries never scored have bounds under max(min_score, min_relative x the best so far),
        # so under the final bar: the fuzzy step only raises the best
        touched = _fuzzy(strategy, book, unmatched, stems)
        chooser = _Chooser(per_token, set(touched))
        for i, extra in touched.items():
            if i not in found:
                found[i] = chooser.matches(i)
            for g, q, m in extra:
                add_fuzzy(found[i], g, q, m)
                reach[g] = max(reach.get(g, 0.0), m[0])  # a typo the store explains is not unknown
            totals[i] = matches_total(found[i])
        best = max(totals.values(), default=0.0)
        reachable, unknown = sum(reach.values()), unknown_words(query, reach)
    if not strategy.confident(best, reachable, unknown, totals, found, n):
        return second_chance(strategy, [(round(t, 2), i, found[i]) for i, t in totals.items()])
    shown = round(best, 2)  # the best as ``Smart.shown`` takes it (rows are rounded)
    if strategy.related_floor(shown) < strategy.clear_bar(shown) and planes is not None:
        _related(strategy, per_token, planes, shown, reached, list(rest), [i for _, i, _ in ranked], found, totals)
    if strategy._subject:  # "who's Maya's boss?": a memory that never names Maya is about someone else's boss
        named = set(tokenize(strategy._subject))
        totals = {i: t if any(q in named for _, q, _ in found[i]) else t * SUBJECT_MISSING for i, t in totals.items()}
        best = max(totals.values())
    return strategy.shown(best, [(round(total, 2), i, found[i]) for i, total in totals.items()])


def _mentioned(book: Book, name: str, read=None) -> bool:
    """Whether some memory names ``name`` (or a synonym of it); True for no name. With ``read`` (entry -> record
    or None) it must also write the name out: "jam" holds the token of "James", "Evans" that of "Evan"."""
    tokens = tokenize(name)
    if not tokens or any(book.tiers(o)[0] for t in tokens for o in synonyms(t)):
        return True
    holders = [members for t in tokens for _, members in book.tiers(t)[0]]
    if read is None or not holders:
        return bool(holders)
    seen = set()
    for members in holders:  # tags and titles first
        for i in members.ids if members.ids is not None else ids_of_bits(members.bits):
            if i in seen:
                continue
            seen.add(i)
            if len(seen) > NAME_READS:
                return True  # too many to read: as the tokens say
            entry = book.index.entry(i)
            record = read(entry)
            text = "\n".join([entry["title"], content_text(record) if record else ""])  # not the id, a lowercase title
            if written_out(text, name.lower()) or any(written_out(tag, name.lower(), False) for tag in entry["tags"]):
                return True
    return False


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")  # keeps every index


def written_out(text: str, name: str, plural: bool = True) -> bool:
    """Whether ``text`` holds ``name`` (lowercase) as a word, its singular, or its plural in lowercase ("schemas"
    for "Schema"; "Evans" is another name than "Evan"; ``plural=False`` for text with no capitals: tags)."""
    low = text.translate(_ASCII_LOWER)
    for word in (name, name[:-1]) if name.endswith("s") else (name,):
        at = low.find(word)
        while at >= 0:
            end = at + len(word)
            rest = low[end:end + 3]
            inflected = rest[:1] == "s" and not rest[1:2].isalpha() or rest[:2] == "es" and not rest[2:3].isalpha()
            if (not (at and low[at - 1].isalpha())
                    and (not rest[:1].isalpha() or plural and inflected and not text[at].isupper())):
                return True
            at = low.find(word, at + 1)
    return False


def _ranked(per_token: list, ids, floor: float) -> list:
    """``[(-exact bound, id, matches)]`` of ``ids`` whose exact bound reaches ``floor``, largest first."""
    chooser = _Chooser(per_token, set(ids))
    ranked = []
    for i in ids:
        matches = chooser.matches(i)
        ub = sum((m[2][0] for m in matches), adjacency(matches) + body_coverage(matches))
        if ub >= floor:
            ranked.append((-ub, i, matches))
    ranked.sort(key=lambda r: r[0])
    return ranked


def _related(strategy, per_token: list, planes, best: float, reached: float, rest: list, seen_ids,
             found: dict, totals: dict) -> None:
    """Score what can be among the ``max_related`` best under the clear bar (step 5): ``rest``, then lower bands."""
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


def _fuzzy(strategy, book: Book, unmatched: list, stems: set) -> dict:
    """``Smart``'s fuzzy step: unmatched 5+ character tokens against the live title and tag tokens (``stems``)."""
    forms = spelled_forms(stems)
    touched: dict = {}  # id -> fuzzy matches, in prompt order
    for g, q in unmatched:
        best: dict = {}
        for t, similarity in fuzzy_stems(q, forms, stems, strategy.fuzzy_cutoff):
            tiers, _, ws = book.tiers(t)
            for points, members in tiers:
                if points == BODY:
                    continue
                for i in (ids_of_bits(members.bits) if members.bits is not None else members.ids):
                    p = FUZZY * points * ws * similarity / 100.0
                    if p > best.get(i, (0,))[0]:
                        best[i] = (p, FIELD[points], "fuzzy", t)
        for i, m in best.items():
            touched.setdefault(i, []).append((g, q, m))
    return touched
