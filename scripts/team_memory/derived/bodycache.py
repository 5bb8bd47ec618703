"""Body tokens for the plain (uncached) path: what a memory's content contributes to ``smart``.

``features.derive_body_tokens`` is the one place that decides which text counts. The
tokens are derived when the machine cache is built or patched (``upkeep`` hands
each record to ``Smart.prepare_entry``) and live in that cache's entries, so
there is a single derived file beside ``index.md``. ``load_bodies`` gives the
plain (uncached) path the same tokens: from the cache when it was written by
``smart`` with the same stop words, else from the JSON files themselves.
"""
from __future__ import annotations

from ..text.textnorm import stop_words_for
from .cache import CacheInvalid, open_cache
from .index import build_entries


def cached_bodies(memory_root: str, strategy) -> dict | None:
    """``{index path: set of tokens}`` from the machine cache, or None when it holds none for ``strategy``.

    The cache must have been written by the same strategy (name and features version)
    with the same stop words; it is not checked for staleness here (the callers' index
    comes from the same upkeep).
    """
    cache = open_cache(memory_root)
    if cache is None:
        return None
    try:
        meta = cache.meta
        if (meta.get("strategy") != strategy.name
                or meta.get("strategy_version") != getattr(strategy, "cache_version", None)
                or not isinstance(meta.get("config"), dict)
                or stop_words_for(meta["config"]) != strategy.stop_words):
            return None
        out = {}
        for _, (entry, features, _, _) in cache.items():
            if entry is not None and isinstance(features, list) and len(features) == 3:
                out[entry["path"]] = set(features[2])
        return out
    except (CacheInvalid, OSError, ValueError, TypeError, KeyError, IndexError):
        return None
    finally:
        cache.close()


def load_bodies(memory_root: str, config: dict, strategy) -> dict:
    """``{index path: set of tokens}`` for every active memory: from the cache, else from the files."""
    got = cached_bodies(memory_root, strategy)
    if got is not None:
        return got
    bodies: dict = {}
    build_entries(memory_root, config, bodies)
    return {path: set(tokens) for path, tokens in bodies.items()}
