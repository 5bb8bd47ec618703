"""The seed's tokenizer (``similar``'s title/tag points): lowercase ASCII words of 3+ characters, no stop words."""
from __future__ import annotations

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

# Every byte but ``[a-z0-9]`` becomes a space: after ``lower()`` and ASCII encoding (``?`` for the rest), text splits
# exactly as the seed's ``re.findall(r"[a-z0-9]+", text.lower())``, without ``re`` on the hook's path.
_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_TABLE = bytes(c if c in _KEEP else 32 for c in range(256))


def words(text: str) -> list:
    """The ``[a-z0-9]+`` runs of ``text.lower()``, in order."""
    return text.lower().encode("ascii", "replace").translate(_TABLE).decode("ascii").split()


def tokenize(text: str, stop_words: frozenset = STOP_WORDS) -> set:
    """The set of meaningful tokens in ``text`` (seed rules)."""
    return {w for w in words(text) if len(w) > 2 and w not in stop_words}
