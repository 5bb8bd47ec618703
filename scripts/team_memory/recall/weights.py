"""The ``smart`` strategy's weights, how matches add up to a score (``matching`` states the rule), and
when the evidence is enough to answer at all; rapidfuzz is loaded here on first use.

The best memory answers by any one of three ways (``Smart.confident``; the settings: docs/guide.md):
- **evidence** (``min_score``, ``min_evidence``): the best score x the root of the share of the prompt it
  explains: a rare tag asked about alone keeps its points, a word met by chance in a long one does not;
- **corroborated** (``min_corroborated``): two prompt words meet the best exactly and strongly (``strong_words``),
  it scores ``min_score`` and explains ``CORROBORATED_SHARE`` of the prompt;
- **explained** (``min_explained``): the best explains that share of the whole prompt (words the store never
  saw count against it), meets a rare word and scores ``EXPLAINED_FLOOR`` x ``min_score``: *pottery* answers
  "what did Maya say about pottery?" where most memories name Maya. A rare word is held by about the root of
  the store's size or fewer memories, so the shares read the same at any store size.
"""
from __future__ import annotations

import math

_fuzzy_modules = None  # (fuzz, process) once loaded; (None, None) when rapidfuzz is missing

TAG, TITLE, BODY = 3.0, 2.0, 1.3
PREFIX, FUZZY = 0.4, 0.7
SYNONYM = 0.7  # another name of one thing (``k8s`` for "kubernetes": ``textnorm.synonyms``); chosen on dev splits
IRREGULAR = 0.5  # another form of an irregular verb (``lost`` for "lose": ``textnorm.alternates``), an exact match at half
GROUP_DECAY = 0.5
JOINED = "+"  # marks a prompt token made of two words (``textnorm.joined_pairs``): exact matches only
JOINED_FACTOR = 0.5  # ... at half where the memory meets both words too (``metadata-database``): ``twice_met``
ADJACENT = 0.3  # neighbouring prompt words met exactly by one memory (``adjacency``)
BODY_COVERAGE, BODY_COVERAGE_MAX = 0.2, 0.4  # ``body_coverage`` (docs/retrieval-eval.md, round 4)
PREFIX_MIN = 4
FUZZY_MIN = 5
FUZZY_LIMIT = 3  # title/tag stems a prompt word may meet by the fuzzy step
MIN_WEIGHT = 0.1


def _rapidfuzz():
    """``(fuzz, process)`` from rapidfuzz, imported on first use; ``(None, None)`` without it."""
    global _fuzzy_modules
    if _fuzzy_modules is None:
        from ..base.optional import import_optional
        try:
            fuzz, process = import_optional("rapidfuzz.fuzz"), import_optional("rapidfuzz.process")
        except Exception:  # noqa: BLE001 - any import problem just means no fuzzy step
            fuzz = process = None
        _fuzzy_modules = (fuzz, process) if fuzz is not None and process is not None else (None, None)
    return _fuzzy_modules


def fuzzy_available() -> bool:
    return _rapidfuzz()[1] is not None


def add_fuzzy(matches: list, g: int, q: str, match: tuple) -> None:
    """Put a fuzzy ``match`` of prompt token ``q`` into ``matches``, replacing a weaker match of the same token."""
    for k, (g0, q0, m0) in enumerate(matches):
        if g0 == g and q0 == q:
            if match[0] > m0[0]:
                matches[k] = (g, q, match)
            return
    matches.append((g, q, match))


def fuzzy_stems(q: str, forms: list, stems, cutoff: float) -> list:
    """``[(stem, similarity)]``: the ``FUZZY_LIMIT`` stems whose best form in ``forms`` meets ``cutoff``, best first."""
    from ..text.fuzzycheck import stem_of
    fuzz, process = _rapidfuzz()
    best: dict = {}
    for form, similarity, _ in process.extract(q, forms, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None):
        stem = stem_of(form, stems)
        if similarity > best.get(stem, 0.0):
            best[stem] = similarity
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:FUZZY_LIMIT]


def idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def surface_weight(surface_df: int, n: int, weight: float) -> float:
    """The weight of a tag or title match: the IDF of the memories holding the token there (its best field)."""
    return max(weight, MIN_WEIGHT, idf(surface_df, n) / idf(1, n)) if surface_df else weight


def matches_total(matches: list) -> float:
    """Per prompt word its matches weighted 1, 1/2, 1/4..., plus ``adjacency`` and ``body_coverage``."""
    by_group: dict = {}
    twice = twice_met(matches)
    for g, q, match in matches:
        by_group.setdefault(g, []).append(match[0] * JOINED_FACTOR if q in twice else match[0])
    total = 0.0
    for points in by_group.values():
        points.sort(reverse=True)
        total += sum(p * GROUP_DECAY ** k for k, p in enumerate(points))
    return total + adjacency(matches) + body_coverage(matches)


def twice_met(matches: list) -> set:
    """The joined pairs (``+metadatadatabas``) whose memory also meets two prompt words inside them exactly."""
    if not any(q[:1] == JOINED for _, q, _ in matches):
        return set()
    plain = [(g, q) for g, q, match in matches if q[:1] != JOINED and match[2] == "exact"]
    return {q for _, q, _ in matches if q[:1] == JOINED and len({g for g, p in plain if p in q}) >= 2}


def short_form_total(matches: list) -> float:
    """A memory's score with each prefix match counted as the exact match it stands for (``Smart.related_fit``)."""
    return matches_total([(g, q, (m[0] / PREFIX, m[1], "exact", m[3]) if m[2] == "prefix" else m) for g, q, m in matches])


def body_coverage(matches: list) -> float:
    """Body points x ``BODY_COVERAGE`` per prompt word met in the body beyond the first (at most
    ``BODY_COVERAGE_MAX``): one content word is often met by chance, three in one memory seldom."""
    words, points = set(), 0.0
    for g, _, match in matches:
        if match[1] == "body":
            words.add(g)
            points += match[0]
    return points * min(BODY_COVERAGE_MAX, BODY_COVERAGE * (len(words) - 1)) if len(words) > 1 else 0.0


def adjacency(matches: list) -> float:
    """``ADJACENT`` x the smaller points of the best two neighbouring prompt words met exactly (``read replica``)."""
    exact: dict = {}
    for g, q, match in matches:
        if match[2] == "exact" and q[:1] != JOINED and match[0] > exact.get(g, 0.0):
            exact[g] = match[0]
    return ADJACENT * max((min(p, exact[g + 1]) for g, p in exact.items() if g + 1 in exact), default=0.0)


def match_parts(matches: list) -> dict:
    """How a score was made: ``{"tags": [...], "title": [...], "body": [...], "prefix": [...], ...}``."""
    parts: dict = {"tags": [], "title": [], "body": [], "prefix": [], "fuzzy": [], "synonym": []}
    for _, q, (points, field, kind, target) in matches:
        if kind == "exact":
            parts[field].append(target)
        else:
            parts[kind].append(f"{q}~{target} ({field})")
    return {k: sorted(v) for k, v in parts.items()}


# -- when ``smart`` answers at all (``Smart.confident``, the module docstring) --------------------------
COMMON_SHARE = 0.5  # a tag or title word held by half the store or more is common, never strong
CORROBORATED_SHARE = 0.35  # the share of the whole prompt (``explained``) two corroborating words must explain
RARE = 0.5  # the IDF weight (``idf(df) / idf(1)``) of a rare word
MIN_RARE_WORDS = 2  # ``second_chance``
EXPLAINED_FLOOR = 0.75  # the ``explained`` way answers from this share of ``retrieval.min_score`` (0.98 points)
UNKNOWN = BODY  # a prompt word the store has never seen counts as a rare body word left unexplained
FIELD_POINTS = {"tags": TAG, "title": TITLE, "body": BODY}
# ``rare_words``: what a match's points were scaled by
KIND_FACTOR = {"exact": 1.0, "prefix": PREFIX, "fuzzy": FUZZY, "synonym": SYNONYM}


def evidence(best: float, reachable: float) -> float:
    """The best score x the root of the share of the prompt it explains (``reachable``: per word, the most points)."""
    return best * math.sqrt(min(1.0, best / reachable)) if best > 0 and reachable > 0 else 0.0


def explained(best: float, reachable: float, unknown: int) -> float:
    """``best`` over what the store could explain plus ``UNKNOWN`` points per word it has never seen (0..1)."""
    whole = reachable + UNKNOWN * unknown
    return min(1.0, best / whole) if best > 0 and whole > 0 else 0.0


def unknown_words(query, reach: dict) -> int:
    """How many of the prompt's words (not the joined pairs) no memory meets at all."""
    return sum(1 for g, group in enumerate(query) if g not in reach and group and group[0][:1] != JOINED)


def rare_words(matches: list) -> int:
    """How many distinct prompt words meet the memory with weight >= ``RARE`` (a fuzzy match's points hold
    its similarity too: only a clear typo of a rare word counts)."""
    return len({g for g, q, (points, field, kind, _) in matches  # points: the base below x the token's weight
                if q[:1] != JOINED and kind in KIND_FACTOR and field in FIELD_POINTS
                and points >= RARE * (FIELD_POINTS[field] * KIND_FACTOR[kind]) - 1e-9})


def strong_weights(n: int) -> dict:
    """field -> the least weight of a strong match in ``n`` memories: a share of the store, so the same at any size."""
    surface = idf(COMMON_SHARE * n, n) / idf(1, max(n, 1))
    return {"tags": surface, "title": surface, "body": RARE}


def strong_words(matches: list, n: int) -> int:
    """How many distinct prompt words (not joined pairs) meet the memory exactly and strongly."""
    least = strong_weights(n)
    return len({g for g, q, (points, field, kind, _) in matches
                if kind == "exact" and q[:1] != JOINED and field in least
                and points >= FIELD_POINTS[field] * least[field] - 1e-9})


def second_chance(strategy, rows: list) -> list:
    """When nothing is ``Smart.confident``: the ``retrieval.second_chance`` best of ``rows`` as possibly related if
    the best is one; each needs ``min_score``, ``min_relative`` x the best and ``MIN_RARE_WORDS`` rare words."""
    wanted = strategy.second_chance
    if not wanted or not rows:
        return []
    best = max(total for total, _, _ in rows)
    least = max(strategy.min_score, strategy.min_relative * best)
    fit = [(total, key, matches) for total, key, matches in rows
           if total >= least and rare_words(matches) >= MIN_RARE_WORDS]
    if not fit or max(total for total, _, _ in fit) < best:
        return []  # the best itself must qualify
    cut = nth_best([total for total, _, _ in fit], wanted, best)
    return with_parts([row for row in fit if row[0] >= cut], math.inf)


def nth_best(scores: list, n: int, default: float) -> float:
    """The ``n``-th best of ``scores`` (the least when fewer; ``default`` when none): ties with it are kept too."""
    return sorted(scores, reverse=True)[min(len(scores), n) - 1] if scores else default


def with_parts(rows: list, clear: float) -> list:
    """``[(points, key, parts)]`` of ``rows`` (``(points, key, matches)``), those under ``clear`` marked ``related``."""
    out = []
    for total, key, matches in rows:
        parts = match_parts(matches)
        if total < clear:
            parts["related"] = True
        out.append((total, key, parts))
    return out
