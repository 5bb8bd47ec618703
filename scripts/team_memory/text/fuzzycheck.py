"""The fuzzy step's vocabulary (title and tag stems and their written forms: a typo such as ``validaiton`` is
closer to ``validation`` than to ``validat``) and an exact pre-check, so rapidfuzz is imported only when it can match.
"""
from __future__ import annotations

# What ``textnorm.fold`` takes off a word, put back; not a lone ``e`` or ``s`` (``deploy`` + ``e`` meets ``employe``)
ENDINGS = ("es", "ed", "ing", "ion", "ions", "ment")


def spelled(stem: str) -> bool:
    """Whether ``stem`` gets written forms: an English word the stemmer folds (ASCII letters, 3+)."""
    return len(stem) >= 3 and stem.isascii() and stem.isalpha()


def spelled_forms(stems) -> list:
    """Every stem of ``stems`` and, for English ones, the stem + each of ``ENDINGS`` (repeats possible)."""
    words = [t for t in stems if spelled(t)]
    return list(stems) + [t + ending for ending in ENDINGS for t in words]


def forms_by_length(stems_by_length: dict, wanted) -> dict:
    """``spelled_forms`` of stems given as length -> stems, as length -> forms (only ``wanted`` lengths)."""
    out: dict = {}
    for length, stems in stems_by_length.items():
        if length in wanted:
            out.setdefault(length, []).extend(stems)
        words = None
        for ending in ENDINGS:
            if length + len(ending) in wanted:
                if words is None:
                    words = [t for t in stems if spelled(t)]
                out.setdefault(length + len(ending), []).extend(t + ending for t in words)
    return out


def stem_of(form: str, stems) -> str:
    """The stem ``form`` was spelled from: itself when it is one, else the stem it is + the shortest ending."""
    if form in stems:
        return form
    for ending in sorted(ENDINGS, key=len):
        if form.endswith(ending) and form[:-len(ending)] in stems and spelled(form[:-len(ending)]):
            return form[:-len(ending)]
    return form


def fuzzy_may_match(prompt_tokens, stems, cutoff: float) -> bool:
    """False only when no written form of ``stems`` can reach ``cutoff`` (``fuzz.ratio``: ``200 x LCS / (len(q) +
    len(t))``) against any prompt token. The LCS is at most the shorter length and the characters the two share; a
    pair within both bounds is compared exactly; only lengths that can reach are spelled (8 ms at 10,000 memories)."""
    stems_by_length: dict = {}
    for t in stems:
        stems_by_length.setdefault(len(t), []).append(t)
    c = (cutoff - 1e-6) / 200.0
    reach = {lf for lb in stems_by_length for lf in [lb] + [lb + len(e) for e in ENDINGS]
             if any(min(len(q), lf) >= c * (len(q) + lf) for q in prompt_tokens)}
    by_len = forms_by_length(stems_by_length, reach)
    for q in prompt_tokens:
        la = len(q)
        chars = set(q)
        drop = {ord(ch): None for ch in chars}
        drop[10] = "\n"
        counts = [(ch, q.count(ch)) for ch in chars]
        for lb, group in by_len.items():
            need = c * (la + lb)  # the common subsequence the cutoff asks for
            if min(la, lb) < need or not group:
                continue
            leftovers = "\n".join(group).translate(drop).split("\n")
            if lb - min(map(len, leftovers)) < need:  # no token has enough characters that occur in q
                continue
            for t, rest in zip(group, leftovers):
                if lb - len(rest) < need:
                    continue
                common = 0
                for ch, n in counts:
                    m = t.count(ch)
                    common += n if n < m else m
                if common >= need and (la * lb > LCS_CELLS or lcs_length(q, t) >= need):
                    return True
    return False


LCS_CELLS = 10_000  # longer pairs are taken as a possible match (the bound alone) rather than compared exactly


def lcs_length(a: str, b: str) -> int:
    """The length of the longest common subsequence of ``a`` and ``b``."""
    row = [0] * (len(b) + 1)
    for ch in a:
        prev_diag = 0
        for j, other in enumerate(b, 1):
            keep = row[j]
            row[j] = prev_diag + 1 if ch == other else (row[j] if row[j] > row[j - 1] else row[j - 1])
            prev_diag = keep
    return row[-1]
