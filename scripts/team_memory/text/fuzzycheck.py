"""The fuzzy step's vocabulary and a cheap, exact pre-check before it runs.

The vocabulary is every title and tag token (a stem: ``validat``) and the words the stemmer
folded into it, spelled out (``spelled_forms``: ``validation``, ``validated``...): a typo
often stops the prompt's word from folding (``validaiton``, ``postgress``), and it is then
close to the written word, not to the stem (82 against ``validat``, 90 against
``validation``). Both paths derive the forms from the stems alone, so they agree.

The check needs no rapidfuzz: it bounds ``fuzz.ratio`` from lengths and shared characters,
so a prompt whose words cannot reach the cutoff against any title or tag token never
imports it (``recall.matching`` asks here first).
"""
from __future__ import annotations

# What ``textnorm.fold`` takes off a word, put back: a stem's written forms for the fuzzy step. Not a
# lone ``e`` or ``s``: a form one letter longer than its stem adds little over the stem and invents words
# (``deploy`` + ``e`` is 86 from the prompt's ``employe``).
ENDINGS = ("es", "ed", "ing", "ion", "ions", "ment")


def spelled(stem: str) -> bool:
    """Whether ``stem`` gets written forms: an English word the stemmer folds (ASCII letters, 3+)."""
    return len(stem) >= 3 and stem.isascii() and stem.isalpha()


def spelled_forms(stems) -> list:
    """Every stem of ``stems`` and, for English ones, the stem + each of ``ENDINGS`` (repeats possible)."""
    words = [t for t in stems if spelled(t)]
    out = list(stems)
    for ending in ENDINGS:
        out.extend(t + ending for t in words)
    return out


def forms_by_length(stems_by_length: dict, wanted=None) -> dict:
    """``spelled_forms`` of stems given as length -> stems, as length -> forms (only ``wanted`` lengths)."""
    out: dict = {}
    for length, stems in stems_by_length.items():
        if wanted is None or length in wanted:
            out.setdefault(length, []).extend(stems)
        words = None
        for ending in ENDINGS:
            if wanted is None or length + len(ending) in wanted:
                if words is None:
                    words = [t for t in stems if spelled(t)]
                out.setdefault(length + len(ending), []).extend(t + ending for t in words)
    return out


def stem_of(form: str, stems) -> str:
    """The stem ``form`` was spelled from (``stems``: a set): itself when it is one, else the longest stem
    it is + an ending (the shortest ending first)."""
    if form in stems:
        return form
    for ending in sorted(ENDINGS, key=len):
        if form.endswith(ending) and form[:-len(ending)] in stems and spelled(form[:-len(ending)]):
            return form[:-len(ending)]
    return form


def form_lengths(stem_length: int) -> list:
    """The lengths ``spelled_forms`` can give a stem of ``stem_length`` characters."""
    return [stem_length] + [stem_length + len(e) for e in ENDINGS]


def fuzzy_may_match(prompt_tokens, stems, cutoff: float) -> bool:
    """False only when no written form of ``stems`` (``spelled_forms``) can reach ``cutoff`` against any
    prompt token.

    ``fuzz.ratio`` is ``200 x LCS / (len(q) + len(t))``, with the longest common subsequence
    at most the shorter length and at most the characters the two share (counted with
    multiplicity). A pair that passes both bounds is compared exactly (``lcs_length``). When
    no pair reaches the cutoff, ``process.extract`` would return nothing, so the fuzzy step
    is skipped without importing rapidfuzz: the outcome is the same. A small margin keeps
    float rounding on the safe side (run it). Only forms of a length that can reach some
    prompt token are spelled (at 10,000 memories: a third of them, 8 ms a prompt).
    """
    if not prompt_tokens:
        return False
    by_len: dict = {}
    for t in stems:
        by_len.setdefault(len(t), []).append(t)
    c = (cutoff - 1e-6) / 200.0
    reach = {lf for lb in by_len for lf in form_lengths(lb)
             if any(min(len(q), lf) >= c * (len(q) + lf) for q in prompt_tokens)}
    return fuzzy_may_match_groups(prompt_tokens, forms_by_length(by_len, reach), cutoff)


def fuzzy_may_match_groups(prompt_tokens, by_len: dict, cutoff: float) -> bool:
    """``fuzzy_may_match`` with the vocabulary given as length -> tokens of that length.

    Per prompt token and length, the tokens are joined and the prompt token's characters
    deleted from all of them at once: what is left of each is the part it cannot share, so
    only a token whose leftover is short enough is counted character by character.
    """
    c = (cutoff - 1e-6) / 200.0
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
    """The longest common subsequence of ``a`` and ``b``: ``fuzz.ratio`` is ``200 x`` it ``/ (len(a) + len(b))``.

    The character-count bound lets through words that share letters in another order (``lisbon``
    and a dozen stems' written forms); comparing exactly keeps such a prompt from importing rapidfuzz
    only to find nothing.
    """
    row = [0] * (len(b) + 1)
    for ch in a:
        prev_diag = 0
        for j, other in enumerate(b, 1):
            keep = row[j]
            row[j] = prev_diag + 1 if ch == other else (row[j] if row[j] > row[j - 1] else row[j - 1])
            prev_diag = keep
    return row[-1]
