"""Body tokens: what a memory's content contributes to matching, derived once per index rebuild.

Reading every JSON file on every prompt would be slow, so the body tokens of
each active memory are derived when ``index.md`` is rebuilt, in the same
locked step, and written atomically beside it to
``<root>/.cache/body-tokens-v<N>.json`` (git-ignored; ``N`` is the tokenizer's
version, so a new tokenizer simply finds no cache and rebuilds it). The file
is ``{"version": N, "entries": {"<index path>": ["token", ...]}}``.

``derive_body_tokens`` is the one place that decides which text counts.
A missing or unreadable cache is never an error: readers get ``None`` and
match on titles and tags alone.
"""
from __future__ import annotations

import json
import os

from .fsutil import atomic_write_text, within
from .textnorm import TOKENIZER_VERSION, tokenize

CACHE_DIR = ".cache"
CACHE_NAME = f"body-tokens-v{TOKENIZER_VERSION}.json"
MAX_BODY_CHARS = 6000  # a huge record is matched on its first 6,000 characters of text


def cache_path(memory_root: str) -> str:
    return os.path.join(memory_root, CACHE_DIR, CACHE_NAME)


def _strings(value, out: list) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)


def body_text(record: dict) -> str:
    """The text of a record that is neither its title nor its tags: content values, file names, id."""
    parts: list = []
    _strings(record.get("content"), parts)
    _strings(record.get("related_files"), parts)
    if isinstance(record.get("id"), str):
        parts.append(record["id"])
    return "\n".join(parts)[:MAX_BODY_CHARS]


def derive_body_tokens(record: dict, stop_words: frozenset) -> list:
    """The sorted body tokens of one record (the one derivation function)."""
    return sorted(tokenize(body_text(record), stop_words))


def write_cache(memory_root: str, bodies: dict) -> None:
    """Write ``{index path: tokens}`` atomically; the caller holds the store lock."""
    os.makedirs(os.path.join(memory_root, CACHE_DIR), exist_ok=True)
    text = json.dumps({"version": TOKENIZER_VERSION, "entries": bodies}, ensure_ascii=False, sort_keys=True)
    atomic_write_text(cache_path(memory_root), text + "\n")


def load_cache(memory_root: str) -> dict | None:
    """``{index path: set of tokens}``, or None when the cache is missing, corrupt or of another version."""
    if not within(memory_root, cache_path(memory_root)):
        return None
    try:
        with open(cache_path(memory_root), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("version") != TOKENIZER_VERSION or not isinstance(data.get("entries"), dict):
        return None
    out = {}
    for path, tokens in data["entries"].items():
        if isinstance(path, str) and isinstance(tokens, list):
            out[path] = {t for t in tokens if isinstance(t, str)}
    return out


def cache_exists(memory_root: str) -> bool:
    return os.path.isfile(cache_path(memory_root))
