"""What recall derives from each memory: its tag, title and body tokens (stored by the machine cache);
``SmartFeatures`` holds the settings that shape them (``recall.matching.Smart`` builds on it)."""
from __future__ import annotations

from ..base.config import quoted, section, warn
from .textnorm import stop_words_for, tokenize

DEFAULT_STRATEGY = "smart"
MAX_BODY_CHARS = 6000  # a huge record is matched on its first 6,000 characters of text


def _strings(value):
    """Every string in ``value``, at any depth of lists and dict values, in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, dict)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _strings(item)


def body_text(record: dict) -> str:
    """The text of a record that is neither its title nor its tags: content values, file names, id."""
    ident = record["id"] if isinstance(record.get("id"), str) else None
    return "\n".join(_strings([record.get("content"), record.get("related_files"), ident]))[:MAX_BODY_CHARS]


def content_text(record: dict) -> str:
    """The text of a record's content values alone (what ``answershape`` reads for an answer)."""
    return "\n".join(_strings(record.get("content")))[:MAX_BODY_CHARS]


def derive_body_tokens(record: dict, stop_words: frozenset) -> list:
    """The sorted body tokens of one record: the one place that decides what its body is."""
    return sorted(tokenize(body_text(record), stop_words))


class SmartFeatures:
    """``smart``: tag, title and body tokens of any script; a part of a compound tag counts as a title word."""

    name = "smart"

    def __init__(self, config: dict):
        self.stop_words = stop_words_for(config)
        self.compound_parts = section(config, "retrieval").get("compound_parts", True) is not False

    def prepare_entry(self, entry: dict, record: dict | None = None) -> list:
        """``[tag tokens, title tokens, body tokens]`` (sorted lists) of one memory."""
        tags, title = self.surface_tokens(entry)
        body = derive_body_tokens(record, self.stop_words) if isinstance(record, dict) else []
        return [sorted(tags), sorted(title), body]

    def surface_tokens(self, entry: dict) -> tuple:
        """``(tag tokens, title tokens)``; a compound tag's part (``current`` of ``sleep-current``) is a title word."""
        tags, title = set(), set(tokenize(entry["title"], self.stop_words))
        for tag in entry["tags"] or ():
            tokens = tokenize(tag, self.stop_words)
            for token in tokens:
                if self.compound_parts and any(token != other and token in other for other in tokens):
                    title.add(token)
                else:
                    tags.add(token)
        return tags, title - tags


FEATURES = {"smart": SmartFeatures}


def strategy_name(config: dict) -> str:
    """The strategy ``retrieval.match_strategy`` names; an unknown one warns and gives the default."""
    name = section(config, "retrieval").get("match_strategy", DEFAULT_STRATEGY)
    if isinstance(name, str) and name in FEATURES:
        return name
    warn(f"unknown retrieval.match_strategy {quoted(name)}; using {DEFAULT_STRATEGY!r}")
    return DEFAULT_STRATEGY
