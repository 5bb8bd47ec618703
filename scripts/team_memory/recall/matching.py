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

The tokens of every memory (``prepare_entry``) are kept by the machine cache; ``scoring`` computes
the scores over its ``Index``. rapidfuzz is loaded only when the fuzzy step runs
(``optional.import_optional``: the hook starts without ``site``).
"""
from __future__ import annotations

import math

from ..base.config import int_setting, quoted, section, warn
from ..text.features import SmartFeatures
from ..text.textnorm import joined_pairs, token_groups
from .abstention import (CORROBORATED_SHARE, EXPLAINED_FLOOR, best_matches, evidence, explained, rare_words,
                         strong_words)
from .relevance import DEFAULT_MIN_DISTINCT, DEFAULT_MIN_DISTINCT_TEAM, DEFAULT_NEAR_DISTINCT, asks_team, judge
from .weights import JOINED, PREFIX, match_parts, short_form_total

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
        self._query = None  # the prompt being scored, for ``shown`` (``relevance.judge``)
        self._asks_team = False  # whether the prompt asks about the team's own ways (``relevance.asks_team``)
        self.relevance = None  # what ``relevance.judge`` said of the last prompt (``search --explain``)

    def score(self, query, index) -> list:
        """``[(points, id, parts)]``: the memories of ``index`` (``derived.cache.Index``) shown for ``query``."""
        from .scoring import score_index
        self._query = query
        return score_index(self, query, index)

    # -- the prompt side ------------------------------------------------------------------------
    def query(self, prompt: str):
        """The prompt's tokens grouped by the word or run they came from: the tokens of one word count
        1, 1/2, 1/4... (``weights.matches_total``), so one word cannot outweigh several."""
        groups = token_groups(prompt, self.stop_words)
        self._asks_team = asks_team(prompt)
        if self.join_pairs:
            seen = {t for g in groups for t in g}
            groups += [[JOINED + t] for t in joined_pairs(prompt, self.stop_words) if t not in seen]
        return tuple(tuple(g) for g in groups)

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
        met by short forms may be (``related_fit``): ``scoring._related`` reads those bands itself."""
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
        after the choice, so a memory left out never lets a weaker one in).
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


def get_strategy(config: dict) -> Smart:
    """The configured match strategy, ready to score (``smart``; ``retrieval.match_strategy`` names it)."""
    from ..text.features import strategy_name
    strategy_name(config)  # an unknown name warns
    return Smart(config)
