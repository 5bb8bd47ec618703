"""Relevance: a memory met only by ordinary words says nothing about the prompt.

``ordinary.txt`` (next to this module) lists words common in any programming prompt
("test", "type", "null", "function", ...). A row whose every matched prompt word is
ordinary is dropped: "write a test for the date parser" meets "End-to-end tests run in
Playwright" only through ``test``, which says nothing about which memory the prompt needs.
The list is read once, and only when there are rows to judge.
"""
from __future__ import annotations

import os

from .weights import JOINED

_ORDINARY = None


def ordinary() -> frozenset:
    """The ordinary words (lower case; forms listed as they are written)."""
    global _ORDINARY
    if _ORDINARY is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ordinary.txt")
        try:
            with open(path, encoding="utf-8") as f:
                _ORDINARY = frozenset(w.strip().lower() for w in f if w.strip() and not w.startswith("#"))
        except OSError:
            _ORDINARY = frozenset()
    return _ORDINARY


def is_ordinary(word: str, words: frozenset) -> bool:
    w = word.lower()
    return w in words or w.rstrip("s") in words or (w + "s") in words or (w + "e") in words


def distinctive(matches: list) -> bool:
    """Whether some matched prompt word of a row (``(group, token, match)``) is not ordinary."""
    words = ordinary()
    for _, q, match in matches:
        if q[:1] == JOINED:
            continue
        if not is_ordinary(q, words) and not is_ordinary(str(match[3]), words):
            return True
    return False


def relevant(rows: list) -> list:
    """``rows`` (``(points, key, matches)``) without those met only by ordinary words."""
    return [row for row in rows if distinctive(row[2])] if rows else rows
