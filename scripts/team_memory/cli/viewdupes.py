"""Which active memories look like one memory twice (``doctor``'s and ``similar``'s rules), bounded: they compare every
pair, a page of 10,000 memories cannot, so candidates are sort neighbours (titles) and shared rare words (similar)."""
from __future__ import annotations

import re
from collections import Counter

from ..records import relpaths
from ..text.tokens import tokenize

NEAR_DUPLICATE = 0.9  # doctor's title similarity rule
NEIGHBOURS = 6  # titles each one is compared with, per sort order (see near_duplicates)
COMMON_TERM = 64  # a word, tag or file shared by more memories than this proposes no candidate
SELF_SHARE = 0.5  # each of two similar memories scores at least this share of its score against itself
_WORDS = re.compile(r"\w+")
SIMILAR_THRESHOLD = 3  # the prior plugin's candidate threshold, within one category
SHARED_FILE = 3  # both name the same file, folder or glob (as much as a shared tag)
COVERED_FILE = 2  # a folder or glob of one names a file of the other (as much as a title word)


def normalised_title(title) -> str:
    """A title as ``doctor`` compares it: its words, lower-cased (on a bounded slice)."""
    return " ".join(_WORDS.findall(title[:1000].lower())) if isinstance(title, str) else ""


def near_duplicates(titles: list) -> list:
    """Index pairs of ``(category, normalised title)`` at ``NEAR_DUPLICATE`` or more, among sort neighbours."""
    # a near-duplicate sorts close by one end or the other: neighbours in title and reversed-title order
    from difflib import SequenceMatcher
    by_cat: dict = {}
    for i, (cat, title) in enumerate(titles):
        if title:
            by_cat.setdefault(cat, []).append(i)
    pairs: set = set()
    for group in by_cat.values():
        for key in (lambda i: titles[i][1], lambda i: titles[i][1][::-1]):
            order = sorted(group, key=key)
            for a, i in enumerate(order):
                matcher = SequenceMatcher(None, "", titles[i][1])
                for j in order[a + 1:a + 1 + NEIGHBOURS]:
                    pair = (min(i, j), max(i, j))
                    if pair not in pairs:
                        matcher.set_seq1(titles[j][1])
                        if all(r() >= NEAR_DUPLICATE for r in (matcher.real_quick_ratio, matcher.quick_ratio,
                                                               matcher.ratio)):  # the cheap bounds first
                            pairs.add(pair)
    return sorted(pairs)


def similar_pairs(items: list) -> list:
    """``[(i, j, why)]`` of ``(category, entry, words, files)`` items ``similar`` names for each other."""
    # each must score SELF_SHARE of its score against itself: one shared tag is no duplicate
    postings: dict = {}
    for i, (cat, _, words, files) in enumerate(items):
        for term in set(words) | {"\0" + f for f in files}:
            postings.setdefault((cat, term), []).append(i)
    own = [score_entry(words, entry) + shared_files(files, files)[0] for _, entry, words, files in items]
    pairs = {}
    for i, (cat, entry, words, files) in enumerate(items):
        shared = Counter(j for term in set(words) | {"\0" + f for f in files}
                         for j in postings[(cat, term)] if j != i and len(postings[(cat, term)]) <= COMMON_TERM)
        for j, count in shared.items():
            if count < 2 or j < i:  # (a pair is judged once, from its first memory: the rule holds both ways)
                continue
            score, why = similarity(words, files, items[j][1], items[j][3])
            if score < SIMILAR_THRESHOLD or score < SELF_SHARE * own[i]:
                continue
            back = score_entry(items[j][2], entry) + shared_files(items[j][3], files)[0]
            if back >= SELF_SHARE * own[j]:
                pairs[(i, j)] = "; ".join(why)
    return sorted((i, j, why) for (i, j), why in pairs.items())


def similarity(words: set, files: list, entry: dict, old_files: list) -> tuple:
    """``(points, reasons)`` of an existing memory (``entry``, ``old_files``) for new ``words`` and ``files``."""
    parts: dict = {}
    points, reasons = shared_files(files, old_files)
    score = score_entry(words, entry, parts) + points
    common = sorted(set(parts["title"]) | set(parts["tags"]))
    return score, ([f"shares the words {', '.join(common)}"] if common else []) + reasons


def score_entry(prompt_words: set, entry: dict, parts: dict | None = None) -> int:
    """+2 a title word, +3 a tag, +1 an unmatched word of 4+ characters starting either (the prior plugin's rule)."""
    title_tokens, entry_tags = tokenize(entry["title"]), set(entry["tags"])
    exact_title, exact_tags = prompt_words & title_tokens, prompt_words & entry_tags
    prefixed = [pw for pw in prompt_words - (exact_title | exact_tags)
                if len(pw) >= 4 and any(t.startswith(pw) for t in title_tokens | entry_tags)]
    if parts is not None:
        parts.update(title=sorted(exact_title), tags=sorted(exact_tags), prefix=sorted(prefixed))
    return len(exact_title) * 2 + len(exact_tags) * 3 + len(prefixed)


def _covers(entry: str, other: str) -> bool:
    """Does ``entry`` (a folder or glob) name ``other`` (a file, or a folder: the files under it)?"""
    return entry != other and (relpaths.is_glob(entry) or entry.endswith("/")) and not relpaths.is_glob(other) \
        and relpaths.matches(entry, other.rstrip("/"))


def shared_files(new: list, old: list) -> tuple:
    """``(points, reasons)`` of related files: each new entry once, named by both or covered by a folder or glob."""
    points, reasons = 0, []
    for entry in new:
        if entry in old:
            points += SHARED_FILE
            reasons.append(f"shares {entry}")
            continue
        cover = next((o for o in old if _covers(o, entry) or _covers(entry, o)), None)
        if cover is not None:
            points += COVERED_FILE
            wide, narrow = (cover, entry) if _covers(cover, entry) else (entry, cover)
            reasons.append(f"{wide} covers {narrow}")
    return points, reasons
