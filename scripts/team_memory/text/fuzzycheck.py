"""The fuzzy step's vocabulary and a cheap, exact pre-check before it runs.

The vocabulary is every title and tag token (a stem: ``validat``) and the words the stemmer
folded into it, spelled out (``spelled_forms``: ``validation``, ``validated``...): a typo
often stops the prompt's word from folding (``validaiton``, ``postgress``), and it is then
close to the written word, not to the stem (82 against ``validat``, 90 against
``validation``). Both paths derive the forms from the stems alone, so they agree.

The check needs no rapidfuzz: it bounds ``fuzz.ratio`` from lengths and shared characters,
so a prompt whose words cannot reach the cutoff against any title or tag token never
imports it (``matching.Smart`` and ``smartindex`` both ask here first).
"""
from __future__ import annotations

# What ``textnorm.fold`` takes off a word, put back: a stem's written forms for the fuzzy step.
ENDINGS = ("e", "s", "es", "ed", "ing", "ion", "ions", "ment")


def spelled_forms(stems) -> dict:
    """form -> stem: each stem and each stem + ``ENDINGS`` (the first stem in ``stems`` order wins a form)."""
    out: dict = {}
    for stem in stems:
        out.setdefault(stem, stem)
        if len(stem) >= 3 and stem.isascii() and stem.isalpha():
            for ending in ENDINGS:
                out.setdefault(stem + ending, stem)
    return out


def form_lengths(stem_length: int) -> list:
    """The lengths ``spelled_forms`` can give a stem of ``stem_length`` characters."""
    return [stem_length] + [stem_length + len(e) for e in ENDINGS]


def fuzzy_may_match(prompt_tokens, vocabulary, cutoff: float) -> bool:
    """False only when no token of ``vocabulary`` can reach ``cutoff`` against any prompt token.

    ``fuzz.ratio`` is ``200 x LCS / (len(q) + len(t))``, with the longest common subsequence
    at most the shorter length and at most the characters the two share (counted with
    multiplicity). When neither bound reaches the cutoff for any pair, ``process.extract``
    would return nothing, so the fuzzy step is skipped without importing rapidfuzz: the
    outcome is the same. A small margin keeps float rounding on the safe side (run it).
    """
    by_len: dict = {}
    for t in vocabulary:
        by_len.setdefault(len(t), []).append(t)
    return fuzzy_may_match_groups(prompt_tokens, by_len, cutoff)


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
                if common >= need:
                    return True
    return False
