"""A store's fixed vocabulary: categories (in priority order, which breaks score ties), folders, names, statuses."""
from __future__ import annotations

from .safefs import MEMORY_REL  # noqa: F401 - the memory root, relative to the project root (the store rule's)

SCHEMA_VERSION = "1.0"

CATEGORIES = ("decision", "constraint", "preference", "runbook", "tech_debt", "session_summary")

DEFAULT_FOLDERS = {"session_summary": "sessions", "decision": "decisions", "runbook": "runbooks",
                   "constraint": "constraints", "tech_debt": "tech-debt", "preference": "preferences"}

# DISPLAY name (as written in index.md) -> tie-break priority, lower first.
PRIORITY = {cat.upper(): rank for rank, cat in enumerate(CATEGORIES, start=1)}

STATUSES = ("active", "retired", "archived")

# Version of what the index and cache keep of a record for display: a cache of another version is rebuilt.
TEXT_POLICY = 2

INDEX_NAME = "index.md"
CONFIG_NAME = "memory-config.json"


def display_name(category: str) -> str:
    """``tech_debt`` -> ``TECH_DEBT`` (the index.md spelling)."""
    return category.upper()


def category_from_display(display: str) -> str | None:
    """``TECH_DEBT`` -> ``tech_debt``; None for anything unknown."""
    cat = display.lower()
    return cat if cat in DEFAULT_FOLDERS else None


# Tags an importer adds to say where a memory came from, not what it is about: they never count toward similarity.
PROVENANCE_TAGS = frozenset({"claude-md", "auto-memory"})


def topic_tags(tags) -> list:
    """``tags`` without the provenance tags (``PROVENANCE_TAGS``)."""
    return [tag for tag in tags if tag not in PROVENANCE_TAGS]
