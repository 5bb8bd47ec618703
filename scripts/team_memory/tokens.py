"""The seed tokenizer (``title_tags`` strategy): lowercase ASCII words of 3+ characters
that are not stop words.
"""
from __future__ import annotations

import re

STOP_WORDS = frozenset({
    "a", "an", "the", "is", "was", "are", "were", "be", "been", "being",
    "do", "does", "did", "have", "has", "had", "will", "would", "could",
    "can", "should", "may", "might", "shall", "must",
    "i", "you", "we", "they", "he", "she", "it", "me", "my", "your",
    "this", "that", "these", "those", "what", "which", "who", "whom",
    "how", "when", "where", "why", "if", "then", "else", "so",
    "and", "or", "but", "not", "no", "yes", "to", "of", "in", "on",
    "at", "for", "with", "from", "by", "about", "up", "out", "into",
    "just", "also", "very", "too", "let", "please", "help", "need",
    "want", "know", "think", "make", "like", "use", "get", "go", "see",
})

_TOKEN_RE = re.compile(r"[a-z0-9]+")


def tokenize(text: str, stop_words: frozenset = STOP_WORDS) -> set:
    """The set of meaningful tokens in ``text`` (seed rules)."""
    return {w for w in _TOKEN_RE.findall(text.lower()) if len(w) > 2 and w not in stop_words}
