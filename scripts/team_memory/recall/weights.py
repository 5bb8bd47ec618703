"""The ``smart`` strategy's weights and how matches add up to a score (``matching`` states the rule);
rapidfuzz is loaded here on first use."""
from __future__ import annotations

import math

_fuzzy_modules = None  # (fuzz, process) once loaded; (None, None) when rapidfuzz is missing

TAG, TITLE, BODY = 3.0, 2.0, 1.3
PREFIX, FUZZY = 0.4, 0.7
IRREGULAR = 0.5  # another form of an irregular verb (``lost`` for "lose": ``text.wordforms``), an exact match at half
GROUP_DECAY = 0.5
JOINED = "+"  # marks a prompt token made of two words (``textnorm.joined_pairs``): exact matches only
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
    """``[(stem, similarity)]``: the ``FUZZY_LIMIT`` stems whose best written form in ``forms``
    (``fuzzycheck.spelled_forms``) reaches ``cutoff`` against ``q``, best first (ties by stem)."""
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
    if not surface_df:
        return weight
    return max(weight, MIN_WEIGHT, idf(surface_df, n) / idf(1, n))


def matches_total(matches: list) -> float:
    """A memory's score: per prompt word, its matches sorted, weighted 1, 1/2, 1/4..., plus
    ``adjacency`` and ``body_coverage``."""
    by_group: dict = {}
    for g, _, match in matches:
        by_group.setdefault(g, []).append(match[0])
    total = 0.0
    for points in by_group.values():
        points.sort(reverse=True)
        total += sum(p * GROUP_DECAY ** k for k, p in enumerate(points))
    return total + adjacency(matches) + body_coverage(matches)


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
    if len(words) < 2:
        return 0.0
    return points * min(BODY_COVERAGE_MAX, BODY_COVERAGE * (len(words) - 1))


def adjacency(matches: list) -> float:
    """``ADJACENT`` x the smaller points of the best two neighbouring prompt words met exactly (``read replica``)."""
    exact: dict = {}
    for g, q, match in matches:
        if match[2] == "exact" and q[:1] != JOINED and match[0] > exact.get(g, 0.0):
            exact[g] = match[0]
    return ADJACENT * max((min(p, exact[g + 1]) for g, p in exact.items() if g + 1 in exact), default=0.0)


def match_parts(matches: list) -> dict:
    """How a score was made: ``{"tags": [...], "title": [...], "body": [...], "prefix": [...], "fuzzy": [...]}``."""
    parts: dict = {"tags": [], "title": [], "body": [], "prefix": [], "fuzzy": []}
    for _, q, (points, field, kind, target) in matches:
        if kind == "exact":
            parts[field].append(target)
        else:
            parts[kind].append(f"{q}~{target} ({field})")
    return {k: sorted(v) for k, v in parts.items()}
