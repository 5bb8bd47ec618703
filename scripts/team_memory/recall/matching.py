"""The ``smart`` match strategy: weighted token matching over title, tags and body.

For each prompt token (``textnorm.tokenize``) and each memory, the best of:

=====================  =====================================================
match                  points
=====================  =====================================================
tag, exact             ``TAG`` (3) x weight(token)
title, exact           ``TITLE`` (2) x weight(token); a part of a compound
                       tag (``current`` of ``sleep-current``) counts as title
body, exact            ``BODY`` (1.3) x weight(token)
prefix                 ``PREFIX`` (0.4) x the field's points, either direction:
                       the shorter token has 4+ characters and starts the other
                       (``auth`` meets ``authenticat`` and back)
irregular form         ``IRREGULAR`` (0.5) x the field's points, counted as exact:
                       another form of an irregular verb (``lose`` meets ``lost``,
                       ``bought`` meets ``buy``: ``text.wordforms``)
fuzzy (fallback)       ``FUZZY`` (0.7) x title/tag points x similarity
=====================  =====================================================

``weight(token)`` is an IDF within the store: ``idf(df) / idf(1)``, so a token
found in one memory weighs 1 and one found in half the store far less (never
under ``MIN_WEIGHT``). A tag or title match uses the IDF of the memories that
hold the token in their tags or title (``retrieval.field_idf``, on): a word that
is one memory's tag stays rare however many bodies mention it. A memory's score
is the sum over prompt words; the tokens of one word (an identifier's parts, a
CJK run's bigrams) count 1, 1/2, 1/4... in order of their points. The best two
neighbouring prompt words that both meet a memory exactly add ``ADJACENT`` (0.3) x
the smaller of their points (``adjacency``: a phrase of the prompt found in one
memory). Several prompt words met in one memory's content add ``BODY_COVERAGE`` (0.2)
x its body points for each word beyond the first, at most ``BODY_COVERAGE_MAX`` (0.4) x
(``body_coverage``): a question about a detail the content holds. Two neighbouring plain
words also count written as one, exact matches only
(``textnorm.joined_pairs``: ``sleep current`` meets the tag ``sleep-current``;
``retrieval.join_pairs``).

Whether to answer at all (``confident``): per prompt word, the most points any
memory gets from it; their sum is what the store could explain of the prompt.
The best memory must score ``retrieval.min_score`` (1.3) and its ``evidence``,
its score x the square root of the share of that sum it explains, must reach
``retrieval.min_evidence`` (1.9): a rare tag asked about alone answers, a common
word does not, and a rare word met by chance in a long prompt about something
else is scaled down. Two other ways may answer under that floor (``abstention``):
two strong words of the prompt in the best memory (``retrieval.min_corroborated``),
or a best memory that explains most of a short prompt (``retrieval.min_explained``).
Beside the best, a memory needs ``min_score``,
``retrieval.min_relative`` (0.6) x the best, and ``retrieval.min_runner_up`` (3)
points or ``TIE`` (0.9) x the best when the best has fewer (``clear_bar``). Under that bar, the
``retrieval.max_related`` (3) best memories that still reach ``retrieval.min_related`` (0.4) x
the best and the runner-up floor are returned marked ``related`` (``shown``): the block lists them
last, by title only, under "Possibly related". A memory met by short forms (``auth`` for its
``authentication``) is held to that floor with its prefix matches counted as the exact matches they
stand for (``related_fit``), so it is listed beside a memory that has the short form as a tag. When nothing is confident, ``retrieval.second_chance``
(0: off) may still show a few titles that way (``secondchance``). When the prompt asks for a date,
a time, an amount, a count or a duration, ``rank`` adds ``retrieval.answer_shape`` (1) points to the
shown memories whose text holds one (``text.answershape``): a reordering of what this returns.

The fuzzy step runs only when exact and prefix matching leave no confident best
and rapidfuzz is importable: prompt tokens of 5+ characters that matched nothing exactly
(nothing at all, or a prefix only: ``postgress`` starts ``postgr``) are compared with the
title and tag tokens and the words they were folded from (``fuzzycheck.spelled_forms``:
``validaiton`` is 90 from ``validation``, 82 from ``validat``; ``retrieval.fuzzy_cutoff``,
85; ``retrieval.fuzzy: false`` turns it off). A fuzzy match replaces a weaker prefix match
of the same token, adds to what the store could explain of the prompt (it is no longer an
unknown word), and a clear typo of a rare tag or title word counts as a rare word for the
``explained`` way (``abstention.rare_words``): "the pydnatic valdation is failing again"
answers, a near spelling of a word half the store carries does not.

Body tokens are derived when the machine cache is built (``upkeep`` hands each
record to ``prepare_entry``); the plain path reads them back from that cache
(``bodycache.load_bodies``), or from the JSON files when there is none.

With the cache, ``score_index`` gives the same hits from its postings alone:
every entry is filed under ``"<token> <field points>"`` for each of its tokens
(its best field), document frequencies are the postings' sizes, and prefixes
are key ranges. rapidfuzz is loaded only when the fuzzy step runs
(``optional.import_optional``: the hook starts without ``site``).
"""
from __future__ import annotations

import bisect
import math

from ..base.config import int_setting, quoted, section, warn
from ..text.features import SmartFeatures, strategy_name
from ..text.fuzzycheck import fuzzy_may_match, spelled_forms
from ..text.textnorm import joined_pairs, token_groups
from ..text.wordforms import alternates
from .abstention import (CORROBORATED_SHARE, EXPLAINED_FLOOR, best_matches, evidence, explained, rare_words,
                         strong_words, unknown_words)
from .relevance import DEFAULT_MIN_DISTINCT, DEFAULT_MIN_DISTINCT_TEAM, DEFAULT_NEAR_DISTINCT, asks_team, judge
from .secondchance import second_chance
from .weights import (BODY, FUZZY, FUZZY_MIN, IRREGULAR, JOINED, MIN_WEIGHT, PREFIX, PREFIX_MIN, TAG, TITLE, idf_weight,
                      match_parts, match_total, add_fuzzy, fuzzy_available, fuzzy_stems, short_form_total, surface_weight)

DEFAULT_MIN_SCORE = 1.3
DEFAULT_FUZZY_CUTOFF = 85
DEFAULT_MIN_RELATIVE = 0.6
DEFAULT_MIN_EVIDENCE = 1.9
DEFAULT_MIN_CORROBORATED = 1.3  # ``abstention.strong_words``: 0 turns that way of answering off
DEFAULT_MIN_EXPLAINED = 0.7  # ``abstention.explained``: 0 turns that way of answering off
DEFAULT_MIN_RUNNER_UP = 3.0
DEFAULT_MIN_RELATED = 0.4
DEFAULT_MAX_RELATED = 3  # possibly related memories shown by title after the clear hits
DEFAULT_ANSWER_SHAPE = 1.0  # a date for "when ...?", an amount for "how much ...?" (``text.answershape``)
TIE = 0.9  # a runner-up needs min_runner_up points, or TIE x the best when the best has fewer


def float_setting(config: dict, key: str, default: float, low: float, high: float) -> float:
    """A number in ``retrieval``, clamped; a bad value warns and gives ``default``."""
    raw = section(config, "retrieval").get(key, default)
    try:
        if isinstance(raw, bool):
            raise TypeError("boolean")
        value = float(raw)
        if math.isnan(value):
            raise ValueError("NaN")
    except (TypeError, ValueError, OverflowError):
        warn(f"invalid retrieval.{key} {quoted(raw)}; using default {default}")
        return default
    return max(low, min(high, value))


class Smart(SmartFeatures):
    """Any-language tokens, two-way prefixes, IDF weights, body at a lower weight, fuzzy fallback, a floor.

    What it stores per memory in the cache (``prepare_entry``, ``index_keys``) is declared by
    ``features.SmartFeatures``.
    """

    recency_bonus = 0.5
    outdated_decision = 1.0  # points off a deprecated or superseded decision that is still active (``rank``)
    excerpts = True  # a clear winner's key content goes into the block

    def __init__(self, config: dict):
        super().__init__(config)  # stop_words, compound_parts
        self.config = config
        self.min_score = float_setting(config, "min_score", DEFAULT_MIN_SCORE, 0.0, 1000.0)
        self.min_relative = float_setting(config, "min_relative", DEFAULT_MIN_RELATIVE, 0.0, 1.0)
        self.min_evidence = float_setting(config, "min_evidence", DEFAULT_MIN_EVIDENCE, 0.0, 1000.0)
        self.min_corroborated = float_setting(config, "min_corroborated", DEFAULT_MIN_CORROBORATED, 0.0, 1000.0)
        self.min_explained = float_setting(config, "min_explained", DEFAULT_MIN_EXPLAINED, 0.0, 1.0)
        self.min_runner_up = float_setting(config, "min_runner_up", DEFAULT_MIN_RUNNER_UP, 0.0, 1000.0)
        self.min_related = float_setting(config, "min_related", DEFAULT_MIN_RELATED, 0.0, 1.0)
        self.max_related = int_setting(config, "retrieval", "max_related", DEFAULT_MAX_RELATED, 0, 20)
        self.second_chance = int_setting(config, "retrieval", "second_chance", 0, 0, 5)  # ``secondchance``
        # points for a memory that holds the shape of answer the prompt asks for (``rank._finish``)
        self.answer_shape = float_setting(config, "answer_shape", DEFAULT_ANSWER_SHAPE, 0.0, 100.0)
        self.fuzzy_cutoff = float_setting(config, "fuzzy_cutoff", DEFAULT_FUZZY_CUTOFF, 50.0, 100.0)
        # rapidfuzz is imported when the fuzzy step first runs, not here (see ``_rapidfuzz``)
        self.use_fuzzy = section(config, "retrieval").get("fuzzy", True) is not False
        self.field_idf = section(config, "retrieval").get("field_idf", True) is not False
        self.join_pairs = section(config, "retrieval").get("join_pairs", True) is not False
        # how much of the prompt's distinctive words a shown memory explains (``relevance``)
        self.min_distinct = float_setting(config, "min_distinct", DEFAULT_MIN_DISTINCT, 0.0, 1000.0)
        self.near_distinct = float_setting(config, "near_distinct", DEFAULT_NEAR_DISTINCT, 0.0, 1.0)
        self.min_distinct_team = float_setting(config, "min_distinct_team", DEFAULT_MIN_DISTINCT_TEAM, 0.0, 1000.0)
        self._asks_team = False  # whether the prompt asks about the team's own ways (``relevance.asks_team``)
        self._entries = None
        self._query = None  # the prompt being scored, for ``shown`` (``relevance.judge``)

    # -- the store side, built once per entry list -------------------------------------------
    def prepare(self, memory_root: str | None, entries: list, bodies: dict | None = None) -> None:
        """Build the inverted index of ``entries``; body tokens from ``bodies`` or the derived cache."""
        if self._entries is entries:
            return
        if bodies is None and memory_root is not None:
            from ..derived.bodycache import load_bodies  # for speed: the plain path only (no cache)
            bodies = load_bodies(memory_root, self.config, self)
        bodies = bodies or {}
        postings: dict = {}  # token -> {entry index: field points}
        surface: dict = {}   # token -> {entry index: field name} for title/tag tokens (the fuzzy vocabulary)
        for i, entry in enumerate(entries):
            tags, title = self._surface_tokens(entry)
            fields = ((TAG, "tags", tags), (TITLE, "title", title), (BODY, "body", set(bodies.get(entry["path"], ()))))
            for points, field, tokens in fields:
                for token in tokens:
                    slot = postings.setdefault(token, {})
                    if points > slot.get(i, (0, ""))[0]:
                        slot[i] = (points, field)
                    if field != "body":
                        surface.setdefault(token, set()).add(i)
        n = len(entries)
        top = idf_weight(1, n)
        self.weights = {t: max(MIN_WEIGHT, idf_weight(len(p), n) / top) for t, p in postings.items()}
        # a tag or title match weighs by how few memories carry the token in their tags or title
        self.surface_weights = {t: surface_weight(sum(1 for v in p.values() if v[0] > BODY), n, self.weights[t])
                                for t, p in postings.items()} if self.field_idf else self.weights
        self.postings = postings
        self.vocab = sorted(postings)
        self.surface = sorted(surface)
        self.index_of = {id(e): i for i, e in enumerate(entries)}
        self._entries = entries

    def score_index(self, query, index) -> list:
        """``[(points, id, parts)]``: ``score_all`` over the cache's live entries, from its postings alone."""
        from .smartindex import score_index  # for speed: the plain path (no cache) never loads it
        self._query = query
        return score_index(self, query, index)

    # -- the prompt side ------------------------------------------------------------------------
    def query(self, prompt: str):
        """The prompt's tokens grouped by the word or run they came from (see ``score_all``)."""
        groups = token_groups(prompt, self.stop_words)
        self._asks_team = asks_team(prompt)
        if self.join_pairs:
            seen = {t for g in groups for t in g}
            groups += [[JOINED + t] for t in joined_pairs(prompt, self.stop_words) if t not in seen]
        return tuple(tuple(g) for g in groups)

    def _prefix_targets(self, q: str) -> list:
        """Index tokens that start with ``q`` or that ``q`` starts with (the shorter one 4+ characters)."""
        out = []
        if len(q) >= PREFIX_MIN:
            lo = bisect.bisect_right(self.vocab, q)
            while lo < len(self.vocab) and self.vocab[lo].startswith(q):
                out.append(self.vocab[lo])
                lo += 1
        for k in range(PREFIX_MIN, len(q)):
            if q[:k] in self.postings:
                out.append(q[:k])
        return out

    def _match(self, q: str) -> dict:
        """entry index -> (points, field, kind, target) for the best match of one prompt token."""
        best: dict = {}
        joined = q[:1] == JOINED
        if joined:
            q = q[1:]
        for i, (points, field) in self.postings.get(q, {}).items():
            best[i] = (points * self._weight(q, points), field, "exact", q)
        for t in () if joined else self._prefix_targets(q):
            for i, (points, field) in self.postings[t].items():
                p = PREFIX * points * self._weight(t, points)
                if p > best.get(i, (0,))[0]:
                    best[i] = (p, field, "prefix", t)
        for t in () if joined else alternates(q):  # "lose" meets "lost", at IRREGULAR x its points
            for i, (points, field) in self.postings.get(t, {}).items():
                p = IRREGULAR * points * self._weight(t, points)
                if p > best.get(i, (0,))[0]:
                    best[i] = (p, field, "exact", t)
        return best

    def _weight(self, token: str, points: float) -> float:
        return self.surface_weights[token] if points > BODY else self.weights[token]

    def _fuzzy_forms(self) -> tuple:
        """``(forms, stems)``: the title and tag stems' written forms (``fuzzycheck``) and the stems as a set."""
        if getattr(self, "_forms_of", None) is not self.surface:
            self._forms, self._forms_of = (spelled_forms(self.surface), set(self.surface)), self.surface
        return self._forms

    def _fuzzy(self, q: str) -> dict:
        best: dict = {}
        forms, stems = self._fuzzy_forms()
        for t, similarity in fuzzy_stems(q, forms, stems, self.fuzzy_cutoff):
            w = self.surface_weights[t]
            for i, (points, field) in self.postings[t].items():
                if field == "body":
                    continue
                p = FUZZY * points * w * similarity / 100.0
                if p > best.get(i, (0,))[0]:
                    best[i] = (p, field, "fuzzy", t)
        return best

    def score_all(self, query, entries: list) -> list:
        """``[(points, entry, parts)]`` for every memory at or above the floor.

        Tokens from one prompt word (an identifier's whole and parts, a CJK run's
        bigrams) share: per memory, the group's best match counts in full, the
        next half, the next a quarter..., so one word cannot outweigh several.
        """
        self.prepare(None, entries)
        self._query = query
        found: dict = {}  # entry index -> [(group number, token, match)]
        unmatched = []  # tokens the fuzzy step may try: no match at all, or by prefix only
        reach: dict = {}  # group number -> the most points any memory gets from it
        for g, group in enumerate(query):
            for q in group:
                best = self._match(q)
                if not any(m[2] == "exact" for m in best.values()):
                    unmatched.append((g, q))
                if not best:
                    continue
                reach[g] = max(reach.get(g, 0.0), max(m[0] for m in best.values()))
                for i, match in best.items():
                    found.setdefault(i, []).append((g, q, match))
        reachable = sum(reach.values())
        unknown = unknown_words(query, reach)
        totals = {i: match_total(m) for i, m in found.items()}
        if (self.use_fuzzy and unmatched and not self.confident(max(totals.values(), default=0.0), reachable, unknown,
                                                                totals, found, len(entries))
                and fuzzy_may_match([q for _, q in unmatched if len(q) >= FUZZY_MIN and q[:1] != JOINED],
                                    self._fuzzy_forms()[0], self.fuzzy_cutoff)
                and fuzzy_available()):
            for g, q in unmatched:
                if len(q) < FUZZY_MIN or q[:1] == JOINED:
                    continue
                for i, match in self._fuzzy(q).items():
                    add_fuzzy(found.setdefault(i, []), g, q, match)
                    reach[g] = max(reach.get(g, 0.0), match[0])  # a typo the store explains is not unknown
            totals = {i: match_total(m) for i, m in found.items()}
            reachable, unknown = sum(reach.values()), unknown_words(query, reach)
        best = max(totals.values(), default=0.0)
        if not self.confident(best, reachable, unknown, totals, found, len(entries)):
            return second_chance(self, [(round(t, 2), entries[i], found[i]) for i, t in totals.items()])
        return self.shown(best, [(round(total, 2), entries[i], found[i]) for i, total in totals.items()])

    def confident(self, best: float, reachable: float, unknown: int = 0, totals=None, found=None, n: int = 0) -> bool:
        """Whether the best memory is evidence enough to answer at all (``abstention``): its ``evidence``
        reaches ``min_evidence``; or two strong words corroborate it (``min_corroborated``); or it
        ``explained`` ``min_explained`` of the prompt with a rare word.

        ``totals`` and ``found`` (key -> score, key -> matches) let the other ways see the best's matches;
        ``n`` is the number of memories scored.
        """
        if best < self.lowest_best() - 1e-9:
            return False
        proof = evidence(best, reachable)
        if best >= self.min_score and proof >= self.min_evidence - 1e-9:
            return True
        if totals is None:
            return False
        share = explained(best, reachable, unknown)
        tops = best_matches(totals, found, best)  # the matches of every memory scoring ``best``
        if (self.min_corroborated > 0 and best >= self.min_score and proof >= self.min_corroborated - 1e-9
                and share >= CORROBORATED_SHARE - 1e-9 and any(strong_words(m, n) >= 2 for m in tops)):
            return True
        return (self.min_explained > 0 and best >= EXPLAINED_FLOOR * self.min_score
                and share >= self.min_explained - 1e-9 and any(rare_words(m) for m in tops))

    def floor(self) -> float:
        """No best or clear hit is under this: a best under ``lowest_best`` is not ``confident``, a
        runner-up is under ``bar`` (``clear_bar`` only grows with the best). A possibly related memory
        met by short forms may be (``related_fit``): ``smartindex._related`` reads those bands itself."""
        return min(self.clear_bar(self.lowest_best()), self.runner_up_floor())

    def lowest_best(self) -> float:
        """The least score a best memory answers with, by the ways switched on (``confident``)."""
        ways = [max(self.min_score, self.min_evidence)]  # evidence is never more than the best score
        if self.min_corroborated > 0:
            ways.append(max(self.min_score, self.min_corroborated))
        if self.min_explained > 0:
            ways.append(EXPLAINED_FLOOR * self.min_score)
        return min(ways)

    def runner_up_floor(self) -> float:
        """No memory under this is shown beside a best of ``min_evidence`` or more, nor as possibly related."""
        return max(self.min_score, min(self.min_runner_up, TIE * self.min_evidence))

    def clear_bar(self, best: float) -> float:
        """The points a memory needs to be shown as a clear hit beside a best of ``best`` (the best itself
        is one, even under ``min_score`` when it answers the ``explained`` way)."""
        return min(best, max(self.min_score, min(self.min_runner_up, TIE * best), self.min_relative * best))

    def bar(self, best: float) -> float:
        """The points a memory needs to be shown at all beside a best of ``best``: a clear hit, or a
        possibly related one (``runner_up_floor`` and ``retrieval.min_related`` x the best)."""
        clear = self.clear_bar(best)
        return min(clear, max(self.runner_up_floor(), self.min_related * best)) if self.max_related else clear

    def related_floor(self, best: float) -> float:
        """The least a possibly related memory scores beside a best of ``best``: ``bar``, or for one met by
        short forms (``related_fit``) ``retrieval.min_related`` x the best (never under ``min_score`` x ``PREFIX``)."""
        bar = self.bar(best)
        return min(bar, max(self.min_score * PREFIX, self.min_related * best)) if self.max_related else bar

    def related_fit(self, total: float, matches: list, best: float) -> bool:
        """Whether a memory under the clear bar may be shown as possibly related: it reaches ``bar``, or
        ``related_floor`` with its prefix matches counted as the exact ones they stand for reaching ``bar``
        (``weights.short_form_total``): "auth policy" meets ``authentication`` as surely as ``auth``,
        only at ``PREFIX`` x the points, which the runner-up floor alone would never let through."""
        low = self.bar(best)
        return total >= low or (total >= self.related_floor(best) - 1e-9 and short_form_total(matches) >= low - 1e-9)

    def shown(self, best: float, rows: list) -> list:
        """``[(points, key, parts)]`` of ``rows`` (``(rounded points, key, matches)``) that are shown.

        The clear hits (``clear_bar``), then the memories under it but at ``bar``: the
        ``retrieval.max_related`` best of them (ties kept), marked ``related`` (shown by title). Of
        those, the ones that explain the prompt's distinctive words (``relevance.judge``; judged
        after the choice, so a memory left out never lets a weaker one in, on any path).
        """
        best = round(best, 2)  # as ``rows`` are: a best answering under ``min_score`` is its own clear bar
        high = self.clear_bar(best)
        fits = [(t, key, m) for t, key, m in rows if t > 0 and (t >= high or self.related_fit(t, m, best))]
        related = sorted((t for t, _, _ in fits if t < high), reverse=True)
        cut = related[min(len(related), self.max_related) - 1] if related else high
        chosen = [(t, key, m) for t, key, m in fits if t >= high or t >= cut]
        least = min(self.min_distinct, self.min_distinct_team) if self._asks_team else self.min_distinct
        chosen, self.relevance = judge(self._query, chosen, least, self.near_distinct)
        if self.relevance is not None:
            self.relevance["team"] = self._asks_team
        out = []
        for total, key, matches in chosen:
            parts = match_parts(matches)
            if total < high:
                parts["related"] = True
            out.append((total, key, parts))
        return out

    def score(self, query, entry: dict):
        """One entry's points and parts (for callers that score entries one by one)."""
        for points, e, parts in self.score_all(query, [entry] if self._entries is None else self._entries):
            if e is entry:
                return points, parts
        return 0, {}


STRATEGIES = {"smart": Smart}  # the names ``retrieval.match_strategy`` takes (``features.FEATURES``)


def get_strategy(config: dict, name: str | None = None):
    """The strategy named in ``retrieval.match_strategy`` (or ``name``), ready to score."""
    return STRATEGIES[strategy_name(config, name)](config)
