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

Relevance: a memory is shown only when it explains what is distinctive in the prompt. A word rare in the store can
still say nothing about which memory a prompt needs ("write a test for the date parser" meets "End-to-end tests run
in Playwright" on ``test``). So each prompt word is weighed by how ordinary it is in programming text
(``ordinary.txt``, ``scripts/make_ordinary.py``): its ``distinctness``. A memory's match on a word keeps
``ORDINARY_SHARE + (1 - ORDINARY_SHARE) x`` the distinctness of what it met of its points (its ``distinct`` points);
its ``cover`` is the share of the prompt's distinctness it explains. ``judge`` answers when the best's distinct
points x the root of its cover reach ``min_distinct`` (``min_distinct_team`` for a question about the team's own
ways); beside it, a memory needs ``near_distinct`` x the best's distinct points.
"""
from __future__ import annotations

import math
import os

from ..text.textnorm import fold

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


# -- relevance (the module docstring): which memories explain what is distinctive in the prompt
COMMON = 60  # a word within the commonest COMMON ranks is not distinctive at all
ORDINARY_SHARE = 0.2  # what a match on an ordinary word keeps of its points
LEAST_MASS = 0.8  # the least mass a prompt is judged over: ordinary words alone explain little
NUMBER = 0.5  # a number ("the oldest 10 files", ``3.10``) seldom says alone what a prompt is about
PART = 0.5  # a part of an identifier (``profile`` of ``user.profile``) says only so much about it; a CJK bigram all
QUALITY = {"exact": 1.0, "prefix": 0.7, "fuzzy": 0.85}  # how surely a match of that kind explains a word
PLAIN = 0.25  # ``search --explain`` names a word under this distinctness ordinary, one over 1 - PLAIN distinctive
# words by which a prompt asks about the team's own ways (English), and pairs of words
# ("rule" and "policy" are not: a CSS rule and an IAM policy are code)
TEAM_WORDS = frozenset({"we", "we're", "we've", "our", "ours", "us", "team", "allowed", "convention", "conventions",
                        "again", "supposed"})
TEAM_PAIRS = frozenset({("should", "i"), ("can", "i")})
QUESTION_WORDS = frozenset("how what why where when which who whose do does did is are was were can could should would "
                           "will may might must".split())
TEAM_SLICE = 2000  # the characters of a prompt ``asks_team`` and ``subject_name`` read
NAME_DISTINCT = 0.75  # a capitalized word past about the commonest 2,000 of programming text may be a name:
# "John", "Sam" and "Jon" are (man pages and docs hold them), "Python", "React", "Windows" are not
NAMES_TRIED = 8  # capitalized words looked up in ``ordinary.txt`` at most (each lookup reads the list's text)
ASKED = frozenset({"asked", "asks", "said", "says", "told", "tells", "wants", "wanted", "mentioned", "suggested",
                   "wrote", "thinks"})  # "Ana asked me about ...": Ana is who asked, not what the prompt is about

_RANKS = None


class Ranks:
    """word -> rank (1 = the commonest) in ``ordinary.txt``, found in the file's text (no table built)."""

    def __init__(self, text: str):
        body = text.find("\n", text.rfind("\n#") + 1) if text.startswith("#") else -1
        self.text = text[body:] if body >= 0 else "\n" + text
        self.size = self.text.count("\n") - 1
        self.seen: dict = {}

    def get(self, word: str):
        """The rank of ``word``; None when the list does not hold it."""
        if word not in self.seen:
            at = self.text.find("\n" + word + "\n") if word and "\n" not in word else -1
            self.seen[word] = self.text.count("\n", 0, at) + 1 if at >= 0 else None
        return self.seen[word]


def ranks() -> Ranks:
    """The ranks of ``ordinary.txt``; empty when it cannot be read."""
    global _RANKS
    if _RANKS is None:
        try:
            with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ordinary.txt"), encoding="utf-8") as f:
                _RANKS = Ranks(f.read())
        except OSError:
            _RANKS = Ranks("")
    return _RANKS


def asks_team(prompt: str) -> bool:
    """Whether the prompt asks about the team's own ways ("how do we ...", "should I ...", "in our middleware"):
    "our" anywhere, another team word in a question; "we should add X" is a task, not a question."""
    text, words = _lowered(prompt)
    if "our" in words or "ours" in words:  # the team's own things, asked about or worked on
        return True
    team = any(w in TEAM_WORDS for w in words) or any(p in TEAM_PAIRS for p in zip(words, words[1:]))
    return team and _question(text, words)


def _lowered(prompt: str) -> tuple:
    text = prompt[:TEAM_SLICE].lower().replace("\u2019", "'")
    return text, "".join(c if c.isalnum() or c == "'" else " " for c in text).split()


def _question(text: str, words: list) -> bool:  # a "?", a question word first, or "how" or "why"
    return "?" in text or (bool(words) and words[0].split("'")[0] in QUESTION_WORDS) or "how" in words or "why" in words


def subject_name(prompt: str, stop_words: frozenset) -> str:
    """The first name a question mentions ("When did **Elena** sign up?", "**Elena's** race number?"), or "": a
    capitalized word in a sentence or with ``'s``, not ordinary; not one who asked ("Elena asked me about ...")."""
    if not _question(*_lowered(prompt)):
        return ""
    words = "".join(c if c.isalnum() or c in "'_" else " " if c not in ".?!\n" else " . "
                    for c in prompt[:TEAM_SLICE].replace("\u2019", "'")).split()
    tried = 0
    for k, word in enumerate(words):
        name = word[:-2] if word.endswith("'s") else word.strip("'")
        first = k == 0 or words[k - 1] == "."
        if (len(name) >= 3 and name.isalpha() and name[0].isupper() and name[1:].islower() and name.isascii()
                and (not first or word.endswith("'s")) and name.lower() not in stop_words):
            tried += 1
            if tried > NAMES_TRIED:
                break
            asker = k + 1 < len(words) and words[k + 1].lower() in ASKED
            if distinctness(fold(name.lower()), ranks()) >= NAME_DISTINCT and not asker:
                return name
    return ""


def distinctness(token: str, table: Ranks) -> float:
    """0 for the ``COMMON`` commonest words, 1 past the list, the log of the rank between; ``NUMBER`` for digits."""
    if token.isdigit():
        return NUMBER
    rank = table.get(token)
    if rank is None:
        return 1.0
    if rank <= COMMON:
        return 0.0
    return min(1.0, math.log(rank / COMMON) / math.log((table.size + 1) / COMMON))


def named_by_path(head: str, token: str) -> bool:
    """Whether ``token`` is the file a path names (``pgbouncer`` of ``/usr/local/bin/pgbouncer``): what the path
    is about."""
    name = head.rsplit("/", 1)[-1].split(".", 1)[0] if "/" in head else ""
    return bool(name) and name.startswith(token)


def measure(query, matches: list, mass: dict, table: Ranks) -> tuple:
    """``(distinct points, cover)`` of one memory: see the module docstring."""
    out: dict = {}  # group number -> (share of that prompt word explained, distinct points)
    for g, q, match in matches:
        if g not in mass:
            continue
        part = mass[g] if q == query[g][0] or named_by_path(query[g][0], q) else (
            min(mass[g], distinctness(q, table)) * (PART if q.isascii() else 1.0))
        share = part * QUALITY.get(match[2], 1.0)
        points = match[0] * (ORDINARY_SHARE + (1.0 - ORDINARY_SHARE) * part)
        old = out.get(g, (0.0, 0.0))
        out[g] = (max(old[0], share), max(old[1], points))
    parts = out.values()
    return sum(p for _, p in parts), sum(s for s, _ in parts) / max(sum(mass.values()), LEAST_MASS)


def judge(query, rows: list, least: float, near: float, team: bool = False):
    """``(kept rows, report)``: ``rows`` (``(points, key, matches)``) less those far weaker than the best, or none when
    the best explains too little of the prompt's distinctive words; ``report``: why (``team``: a team question)."""
    if not rows or least <= 0 or query is None:
        return rows, None
    table = ranks()
    mass = {g: max(distinctness(t, table) for t in group) for g, group in enumerate(query)
            if group and group[0][:1] != JOINED}  # a prompt word's most distinctive token (joined pairs left out)
    measures = {key: measure(query, m, mass, table) for _, key, m in rows}
    proof = max(d * math.sqrt(max(0.0, c)) for d, c in measures.values())  # distinct points x the root of the cover
    bar = near * max(d for d, _ in measures.values())
    answered = proof >= least - 1e-9
    kept = [row for row in rows if answered and measures[row[1]][0] >= bar - 1e-9]
    return kept, {"measures": measures, "proof": proof, "answered": answered, "bar": bar, "least": least,
                  "near": near, "team": team, "ordinary": [query[g][0] for g, m in mass.items() if m < PLAIN],
                  "distinctive": [query[g][0] for g, m in mass.items() if m >= 1.0 - PLAIN]}


def why_not(report, key) -> str | None:
    """Why ``judge`` did not show ``key`` (for ``search --explain``); None if it was shown or not judged."""
    if not report or key not in report["measures"]:
        return None
    distinct, covered = report["measures"][key]
    if not report["answered"]:
        setting = "min_distinct_team (a question about the team's own ways)" if report["team"] else "min_distinct"
        return (f"the best memory explains too little of what is distinctive in the prompt: evidence "
                f"{report['proof']:.2f} (distinct points x the square root of the share of the prompt explained), "
                f"under retrieval.{setting} {report['least']:g}; this one: {distinct:.2f} distinct points, "
                f"covers {covered:.0%} of the prompt")
    if distinct < report["bar"] - 1e-9:
        return (f"{distinct:.2f} distinct points, under {report['bar']:.2f}: retrieval.near_distinct "
                f"{report['near']:g} x the best's (the best answers alone)")
    return None


def ordinary_note(report) -> str | None:
    """A line naming the prompt's ordinary and distinctive words, for ``search --explain``."""
    if not report:
        return None
    return (f"the prompt's ordinary words (common in programming text; a match on one keeps about "
            f"{ORDINARY_SHARE:g} of its points): {', '.join(report['ordinary'][:12]) or 'none'}; "
            f"its distinctive words: {', '.join(report['distinctive'][:12]) or 'none'}")
