"""The UserPromptSubmit handler: prompt in, ``<memory-context>`` block out, and the ranking it shows.

Find the store, make the derived files current (never waiting), rank, hold back what the session was
just shown (``block.Recall``), format (``block``). A store with no cache and over ``COLD_FILES`` memory files
is built by a detached process: reading them all in the hook could outlast the client's time-out.

Ranking: the strategy scores the index (``Smart.score``: clear hits, possibly related titles); the first
``DEEP_CHECK_LIMIT`` hits are read (retired, archived, missing or unreadable: dropped) and reordered by the recency and
answer-shape bonuses (``text.answershape``) and an outdated decision's penalty; an index path outside its category
folder is not followed.
"""
from __future__ import annotations

import os

from ..base.config import category_folders, load_config, max_inject, number_setting, warn
from ..base.model import PRIORITY
from ..base.safefs import read_object
from ..records.hookio import enabled_store, session_of
from ..records.store import DAY_US, OUTDATED_DECISION, decision_status, epoch_us, now_us, record_status
from ..text.answershape import asked_shape, holds_shape
from ..text.features import content_text
from .block import Hit, Recall, format_block, sizes, window as dedupe_window
from .matching import get_strategy

MIN_PROMPT_CHARS = 10
COLD_FILES = 2000  # about a second of reading on a 2-core machine; 10,000 took 5 s (docs/benchmarks.md)
DEEP_CHECK_LIMIT = 20
RECENCY_BONUS = 0.5
OUTDATED_POINTS = 1.0  # off a deprecated or superseded decision that is still active
MAX_PROMPT_CHARS = 8000  # a 20 MB paste is matched on its first 8,000 characters


def _deep_check(hit: Hit, memory_root: str, config: dict) -> bool:
    """Read the memory behind ``hit``; False if it must not be shown."""
    hit.checked = True
    record = read_record(memory_root, config, hit.entry)
    active = record is not None and record_status(record) == "active"
    hit.record = record if active else None
    return active


def read_record(memory_root: str, config: dict, entry: dict):
    """The JSON object behind an index entry, or None (outside its folder, unreadable, not an object)."""
    from ..derived.index import resolve_entry_path  # for speed: only a hit read from its file needs it
    path = resolve_entry_path(memory_root, config, entry)
    return None if path is None else read_object(path)  # never through a link, never a FIFO, bounded


def scored_hits(strategy, query, index, exclude=None, read=None) -> list:
    """Every hit of ``index`` for ``query``, best first (index order on ties), ``exclude``'s paths left out
    (``read``: index entry -> record, ``Smart.score``)."""
    hits = []
    for points, i, parts in strategy.score(query, index, read):
        entry = index.entry(i)
        if not (exclude and entry["path"] in exclude):
            hits.append(Hit(points, PRIORITY.get(entry["category"], 10), entry, parts, i))
    hits.sort(key=lambda hit: (*hit.sort_key(), hit.pos))
    return hits


def rank(memory_root: str, config: dict, prompt: str, limit: int, index=None, now=None, strategy=None,
         exclude=None) -> list:
    """The top ``limit`` active ``Hit``s for ``prompt``, best first, from ``index`` (else the store's); ``now``: an
    aware ``datetime`` (the evaluation's clock); ``exclude``: index paths left out."""
    strategy = strategy or get_strategy(config)
    query = strategy.query(prompt[:MAX_PROMPT_CHARS])
    if not query or limit <= 0:
        return []
    from ..derived.cache import CacheInvalid
    from ..derived.refresh import current_index

    def read(entry: dict):
        return read_record(memory_root, config, entry)

    try:
        hits = scored_hits(strategy, query, index or current_index(memory_root, config), exclude, read)
    except CacheInvalid:  # a damaged or forged cache line: ignored, rebuilt
        hits = scored_hits(strategy, query, current_index(memory_root, config, trust=False), exclude, read)
    shape = asked_shape(prompt[:MAX_PROMPT_CHARS]) if strategy.answer_shape else None
    return _finish(hits, memory_root, config, limit, now, strategy, shape)


def _finish(hits: list, memory_root: str, config: dict, limit: int, now, strategy, shape) -> list:
    """Deep-check the first hits, add their bonuses (``shape``: asked for), re-sort, keep ``limit`` of them."""
    most_related = max(strategy.max_related, strategy.second_chance)
    now = now_us(now)
    days = number_setting(config, "retrieval", "recency_days", 30, 0, 3650)
    checked = []
    for hit in hits[:DEEP_CHECK_LIMIT]:
        if not _deep_check(hit, memory_root, config):
            continue
        updated = epoch_us(hit.record.get("updated_at"))
        recent = updated is not None and (now - updated) // DAY_US <= days  # ``timedelta.days``, exactly
        hit.parts["recency"] = RECENCY_BONUS if recent else 0
        hit.score += hit.parts["recency"]
        if shape and holds_shape(shape, f"{hit.record.get('title')!s:.500}\n{content_text(hit.record)}"):
            hit.parts["answer_shape"] = shape
            hit.score += strategy.answer_shape
        if decision_status(hit.record) in OUTDATED_DECISION:  # the current decision first
            hit.parts["outdated"] = -OUTDATED_POINTS
            hit.score -= OUTDATED_POINTS
        checked.append(hit)
    ordered = sorted(checked + hits[DEEP_CHECK_LIMIT:], key=Hit.sort_key)  # stable: on ties the checked first

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


def command_arguments(prompt: str) -> str:
    """``prompt`` without a leading ``/name`` or ``/plugin:name`` (a path stays): a slash command is matched by
    its arguments only, or its name would match memories about the command's own words."""
    text = prompt.lstrip()
    name = text[1:].split(None, 1)[0] if text[:1] == "/" and text[1:2].strip() else ""
    if not name or not all(c.isalnum() or c in "-_:." for c in name):
        return prompt
    return text[1 + len(name):].strip()


def context_for_prompt(payload: dict) -> str | None:
    """UserPromptSubmit handler: the block to inject, or None for nothing."""
    raw = next((v for v in (payload.get("prompt"), payload.get("user_prompt")) if isinstance(v, str) and v), "")
    prompt = command_arguments(raw)
    if len(raw.strip()) < MIN_PROMPT_CHARS or not prompt.strip():
        return None
    store = enabled_store(payload)
    limit = max_inject(store[1]) if store is not None else 0
    return _recall(payload, prompt, *store, limit) if limit else None


def _recall(payload: dict, prompt: str, memory_root: str, config: dict, limit: int):
    """The block for the prompt, or None; what it shows is held back from the next prompts (``block.Recall``)."""
    from ..derived.refresh import current_index
    if cold(memory_root, config):
        from ..derived.drift import hand_over
        hand_over(memory_root, __name__, "build_in_background")  # at most one at a time (its start gate)
        warn(f"no memories recalled: this store's first index (over {COLD_FILES:,} memories) is being built "
             "in the background; recall resumes once it is done")
        return None
    index = current_index(memory_root, config)
    if not index.n:
        return None
    session, n = session_of(payload), dedupe_window(config)
    recall = Recall(memory_root, session, n) if session else None  # n == 0 holds nothing back, still marks
    hits = rank(memory_root, config, prompt, limit, index, exclude=recall.shown if recall else None)
    marks = None
    if hits:  # only a block that shows something reads the stale marks (one small file)
        from ..derived.drift import marks_for
        marks = marks_for(memory_root, [(h.entry["path"], h.record) for h in hits])
    block = format_block(hits, config, *sizes(config), marks) or None
    if recall is not None:
        try:
            recall.save([h.entry["path"] for h in hits] if block else [])
        except OSError as exc:  # state is a nicety: never lose the block over it
            warn(f"could not save recall state: {exc}")
    return block


def cold(memory_root: str, config: dict) -> bool:
    """Whether the store has no machine cache yet and more than ``COLD_FILES`` memory files."""
    from ..derived.cache import cache_path
    if os.path.lexists(cache_path(memory_root)):
        return False
    count = 0
    for folder in set(category_folders(config).values()):
        path = os.path.join(memory_root, folder)
        try:
            if os.path.islink(path):
                continue  # never followed (``derived.index``)
            with os.scandir(path) as entries:
                count += sum(1 for entry in entries if entry.name.endswith(".json"))
        except OSError:
            continue
        if count > COLD_FILES:
            return True
    return False


def build_in_background(memory_root: str) -> int:
    """What a cold prompt hands over (``derived.drift.hand_over``): the index built under the store lock."""
    from ..derived.refresh import rebuild_index
    try:
        rebuild_index(memory_root, load_config(memory_root), full=False)
    except OSError:
        return 1
    return 0
