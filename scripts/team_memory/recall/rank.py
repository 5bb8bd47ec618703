"""Ranking: the store's memories for a prompt, best first, each one read and found active.

Pipeline (the prior plugin's, with its gaps closed):

1. text pass: every index entry scored by the configured strategy; only > 0 kept;
   sorted by score, then category priority;
2. deep check of the top 20: the JSON file is read, a retired, archived,
   missing or unreadable memory is dropped, one updated within
   ``retrieval.recency_days`` (30) gets the strategy's recency bonus (``smart``: +0.5), and,
   when the prompt asks for a date, a time, an amount, a count or a duration
   (``text.answershape``), one whose text holds such a thing gets ``retrieval.answer_shape``
   (``smart``: +1), and a decision whose own status says it is deprecated or superseded
   (``records.store.decision_status``) loses ``Smart.outdated_decision`` (1); re-sorted. These
   only reorder what the strategy returned: which memories are clear hits and which are
   possibly related titles is decided before;
3. every entry that is about to be printed has been read and found active,
   whatever its rank (the prior plugin printed unchecked entries past the top 20);
   an index path outside its category folder is never followed or printed.
"""
from __future__ import annotations

from ..base import fastjson
from ..base.config import int_setting
from ..base.model import CATEGORIES, PRIORITY, display_name
from ..records.store import OUTDATED_DECISION, decision_status, read_bytes, record_status
from ..records.times import DAY_US, epoch_us, now_us
from ..text.answershape import asked_shape, holds_shape
from ..text.features import content_text
from .matching import get_strategy

DEEP_CHECK_LIMIT = 20
MAX_PROMPT_CHARS = 8000  # a 20 MB paste is matched on its first 8,000 characters


class Hit:
    """One ranked memory: its final score, the index entry, and how the score was made.

    ``pos`` is the entry's place in the index (ties keep index order); ``line`` is its
    ready-made ``<memory-context>`` line when it came from the cache.
    """

    __slots__ = ("score", "priority", "entry", "parts", "record", "checked", "pos", "line")

    def __init__(self, score, priority, entry, parts, pos=0, line=None):
        self.score, self.priority, self.entry, self.parts = score, priority, entry, parts
        self.pos, self.line = pos, line
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


def plain_hits(memory_root, strategy, query, entries: list, exclude=None):
    """Every entry scored from the index entries, hits only, best first (index order on ties)."""
    strategy.prepare(memory_root, entries)
    pos_of = {id(e): pos for pos, e in enumerate(entries)}
    hits = []
    for points, entry, parts in strategy.score_all(query, entries):
        if exclude and entry["path"] in exclude:
            continue
        hits.append(Hit(points, PRIORITY.get(entry["category"], 10), entry, parts, pos_of[id(entry)]))
    hits.sort(key=Hit.full_key)
    return iter(hits)


def cached_hits(strategy, query, cache, exclude=None):
    """The same hits, in the same order, from the cache: the strategy scores from the postings in one
    pass (``score_index``); a hit is read from the cache only when it is used."""
    from ..derived.cache import DEAD
    pos_of, ocat = cache.pos, cache.ocat
    rows, explained = [], {}
    for points, ident, parts in strategy.score_index(query, cache):
        pos = pos_of[ident]
        if pos != DEAD:
            rows.append((-points, PRIORITY.get(display_name(CATEGORIES[ocat[pos]]), 10)
                         if ocat[pos] < len(CATEGORIES) else 10, pos, ident))
            explained[ident] = (points, parts)
    rows.sort()
    for _, priority, pos, ident in rows:
        entry, _, _, line = cache.item(ident)
        if entry is None or (exclude and entry["path"] in exclude):
            continue
        points, parts = explained[ident]
        yield Hit(points, priority, entry, dict(parts), pos, line)


def rank(memory_root: str, config: dict, prompt: str, limit: int, entries: list | None = None,
         now=None, strategy=None, exclude=None, cache=None) -> list:
    """The top ``limit`` active memories for ``prompt``, best first, as ``Hit`` objects.

    Scores ``entries`` when given, else the store's machine cache (``cache``, or the
    store's own when the configured strategy can use one), else the index on disk.
    Every path gives the same hits in the same order. ``now``: an aware ``datetime`` (the
    evaluation's clock), else the time. ``exclude``: index paths never
    to return (memories this session has just been shown).
    """
    own = strategy is None
    strategy = strategy or get_strategy(config)
    query = strategy.query(prompt[:MAX_PROMPT_CHARS])
    if not query or limit <= 0:
        return []
    opened = None
    if entries is None and cache is None and own:
        from ..derived.freshcache import fresh_cache
        cache = opened = fresh_cache(memory_root, config, strategy)
    try:
        if entries is None and cache is None:
            from ..derived.refresh import current_entries  # the plain path only: a cache needs none
            entries = current_entries(memory_root, config)
        if entries is not None:
            stream = plain_hits(memory_root, strategy, query, entries, exclude)
        else:
            stream = cached_hits(strategy, query, cache, exclude)
        shape_bonus = getattr(strategy, "answer_shape", 0)
        shape = asked_shape(prompt[:MAX_PROMPT_CHARS]) if shape_bonus else None
        return _finish(stream, memory_root, config, limit, now, getattr(strategy, "recency_bonus", 1),
                       max(getattr(strategy, "max_related", 0), getattr(strategy, "second_chance", 0)),
                       (shape, shape_bonus) if shape else None, getattr(strategy, "outdated_decision", 0))
    finally:
        if opened is not None:
            opened.close()


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


def _finish(stream, memory_root: str, config: dict, limit: int, now, bonus=1, most_related=0, shape=None,
            outdated=0) -> list:
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
