"""Ranking: the store's memories for a prompt, best first, each one read and found active.

1. the strategy scores the index (``Smart.score``): which memories are clear hits and which are
   possibly related titles is decided there; sorted by score, then category priority;
2. the first ``DEEP_CHECK_LIMIT`` are read: a retired, archived, missing or unreadable memory is
   dropped; one updated within ``retrieval.recency_days`` (30) gets ``Smart.recency_bonus``; when the
   prompt asks for a date, a time, an amount, a count or a duration (``text.answershape``), one whose
   text holds one gets ``retrieval.answer_shape``; a decision whose own status says it is deprecated
   or superseded loses ``Smart.outdated_decision``; re-sorted (these only reorder);
3. every entry printed has been read and found active, whatever its rank; an index path outside
   its category folder is never followed or printed.
"""
from __future__ import annotations

from ..base import fastjson
from ..base.config import int_setting
from ..base.model import PRIORITY
from ..records.store import OUTDATED_DECISION, decision_status, read_bytes, record_status
from ..records.store import DAY_US, epoch_us, now_us
from ..text.answershape import asked_shape, holds_shape
from ..text.features import content_text
from .matching import get_strategy

DEEP_CHECK_LIMIT = 20
MAX_PROMPT_CHARS = 8000  # a 20 MB paste is matched on its first 8,000 characters


class Hit:
    """One ranked memory: its final score, the index entry, how the score was made, and ``pos``, the entry's
    place in the index (ties keep index order)."""

    __slots__ = ("score", "priority", "entry", "parts", "record", "checked", "pos")

    def __init__(self, score, priority, entry, parts, pos):
        self.score, self.priority, self.entry, self.parts, self.pos = score, priority, entry, parts, pos
        self.record = None
        self.checked = False

    def sort_key(self):
        return (self.related(), -self.score, self.priority)

    def full_key(self):
        return (self.related(), -self.score, self.priority, self.pos)

    def related(self) -> bool:
        """Shown by title only, after every clear hit (``Smart.shown``), whatever its recency bonus."""
        return self.parts.get("related", False) is True


def _deep_check(hit: Hit, memory_root: str, config: dict) -> bool:
    """Read the memory behind ``hit``; False if it must not be shown."""
    hit.checked = True
    from ..derived.index import resolve_entry_path  # for speed: only a hit read from its file needs it
    path = resolve_entry_path(memory_root, config, hit.entry)
    if path is None:
        return False
    try:  # never through a link, never a FIFO, bounded
        record = fastjson.loads(read_bytes(path)[0])
    except (OSError, ValueError):
        return False
    if not isinstance(record, dict) or record_status(record) != "active":
        return False
    hit.record = record
    return True


def scored_hits(strategy, query, index, exclude=None) -> list:
    """Every hit of ``index`` for ``query``, best first (index order on ties), ``exclude``'s paths left out."""
    hits = []
    for points, i, parts in strategy.score(query, index):
        entry = index.entry(i)
        if not (exclude and entry["path"] in exclude):
            hits.append(Hit(points, PRIORITY.get(entry["category"], 10), entry, parts, i))
    hits.sort(key=Hit.full_key)
    return hits


def rank(memory_root: str, config: dict, prompt: str, limit: int, index=None, now=None, strategy=None,
         exclude=None) -> list:
    """The top ``limit`` active memories for ``prompt``, best first, as ``Hit`` objects, from ``index``
    (else the store's, current). ``now``: an aware ``datetime`` (the evaluation's clock), else the time.
    ``exclude``: index paths never to return (memories this session has just been shown)."""
    strategy = strategy or get_strategy(config)
    query = strategy.query(prompt[:MAX_PROMPT_CHARS])
    if not query or limit <= 0:
        return []
    from ..derived.cache import CacheInvalid
    from ..derived.refresh import current_index
    try:
        hits = scored_hits(strategy, query, index or current_index(memory_root, config), exclude)
    except CacheInvalid:  # a damaged or forged cache line: ignored, rebuilt
        hits = scored_hits(strategy, query, current_index(memory_root, config, trust=False), exclude)
    shape = asked_shape(prompt[:MAX_PROMPT_CHARS]) if strategy.answer_shape else None
    return _finish(iter(hits), memory_root, config, limit, now, strategy.recency_bonus,
                   max(strategy.max_related, strategy.second_chance),
                   (shape, strategy.answer_shape) if shape else None, strategy.outdated_decision)


def _merged(first: list, rest, key):
    """``heapq.merge(first, rest, key=key)`` for a sorted list and a sorted stream (``first``
    wins ties), without importing ``heapq`` on every prompt that shows something."""
    i, n = 0, len(first)
    for item in rest:
        k = key(item)
        while i < n and key(first[i]) <= k:
            yield first[i]
            i += 1
        yield item
    yield from first[i:]


def _finish(stream, memory_root: str, config: dict, limit: int, now, bonus, most_related, shape, outdated) -> list:
    """Deep-check the first 20 hits (recency bonus; ``shape``: ``(shape, points)``, the answer-shape
    bonus; ``outdated``: points off a deprecated or superseded decision), re-sort, and keep ``limit``
    shown-safe ones, at most ``most_related`` of them marked related (``Smart.shown``)."""
    from itertools import islice
    now = now_us(now)
    days = int_setting(config, "retrieval", "recency_days", 30, 0, 3650)
    checked = []
    for hit in islice(stream, DEEP_CHECK_LIMIT):
        if not _deep_check(hit, memory_root, config):
            continue
        updated = epoch_us(hit.record.get("updated_at"))
        recent = updated is not None and (now - updated) // DAY_US <= days  # ``timedelta.days``, exactly
        hit.parts["recency"] = bonus if recent else 0
        hit.score += hit.parts["recency"]
        if shape is not None and holds_shape(shape[0], f"{hit.record.get('title')!s:.500}\n{content_text(hit.record)}"):
            hit.parts["answer_shape"] = shape[0]
            hit.score += shape[1]
        if outdated and decision_status(hit.record) in OUTDATED_DECISION:  # the current decision first
            hit.parts["outdated"] = -outdated
            hit.score -= outdated
        checked.append(hit)
    checked.sort(key=Hit.sort_key)
    # a stable merge: on equal keys the checked hits come first, as in sorted(checked + rest)
    ordered = _merged(checked, stream, Hit.sort_key)

    top = []
    related = 0
    for hit in ordered:
        if len(top) >= limit:
            break
        if hit.related() and related >= most_related:
            break  # the related hits come last: nothing after this one is shown
        if hit.checked or _deep_check(hit, memory_root, config):
            related += hit.related()
            hit.parts.setdefault("recency", 0)
            top.append(hit)
    return top
