"""Memory ids: readable ASCII slugs from titles (``Café`` -> ``cafe``), unique in the store."""
from __future__ import annotations

import os
import re
import unicodedata

from ..base.config import category_folders

SLUG_MAX_CHARS = 60  # ASCII: well within a file name's 255 bytes, with room for suffixes and temp names


def slugify(title: str) -> str:
    """A lowercase, hyphenated id from ``title``; never empty."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", title or "")).lower()
    chars = []
    for ch in text:
        if ch.isascii() and ch.isalnum():
            chars.append(ch)
        elif unicodedata.category(ch)[0] != "M":  # accents go, every other character separates words
            chars.append("-")
    slug = re.sub(r"-{2,}", "-", "".join(chars)).strip("-")
    if len(slug) > SLUG_MAX_CHARS:
        slug = slug[:SLUG_MAX_CHARS]
        if "-" in slug[SLUG_MAX_CHARS // 2:]:  # cut at a word boundary when one is near the end
            slug = slug[: slug.rindex("-")]
    if slug.strip("-"):
        return slug.strip("-")
    from ..base.state import sha256_hex
    return "memory-" + sha256_hex((title or "").encode("utf-8", "replace"))[:8]


def id_taken(memory_root: str, config: dict, memory_id: str) -> bool:
    """True if any category folder already holds ``<memory_id>.json``."""
    return any(os.path.lexists(os.path.join(memory_root, folder, f"{memory_id}.json"))
               for folder in category_folders(config).values())


def unique_id(memory_root: str, config: dict, base: str, planned=()) -> str:
    """``base``, ``base-2``, ``base-3``...: the first free in the store and not in ``planned`` (under the lock)."""
    memory_id, n = base, 1
    while memory_id in planned or id_taken(memory_root, config, memory_id):
        n += 1
        memory_id = f"{base}-{n}"
    return memory_id
