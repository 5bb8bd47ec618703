"""The prior plugin's scoring (its report's "seed"), kept as a baseline for the evaluation: title word +2,
tag +3, prefix +1, category description up to +2. The product ranks with ``recall.matching.Smart``;
``evaluate(..., baselines=[SeedScorer])`` ranks beside it, and ``rank(..., strategy=SeedScorer(config))``
alone."""
from __future__ import annotations

from team_memory.base.config import category_descriptions
from team_memory.base.model import display_name
from team_memory.cli.cmd_similar import score_entry
from team_memory.text.tokens import tokenize


def score_description(prompt_words: set, description_tokens: set) -> int:
    """Category-description points: +1 exact, +0.5 prefix, truncated, capped at 2."""
    if not description_tokens or not prompt_words:
        return 0
    exact = prompt_words & description_tokens
    score = float(len(exact))
    for pw in prompt_words - exact:
        if len(pw) >= 4 and any(dt.startswith(pw) for dt in description_tokens):
            score += 0.5
    return min(2, int(score))


class SeedScorer:
    """The seed's exact scoring, as a strategy the ranking takes (``prepare``, ``score_all``)."""

    name = "title_tags"

    def __init__(self, config: dict):
        self.desc_tokens = {display_name(cat): tokenize(desc) for cat, desc in category_descriptions(config).items()}

    def query(self, prompt: str):
        return tokenize(prompt)

    def prepare(self, memory_root, entries: list, bodies=None) -> None:
        pass

    def score(self, prompt_words, entry: dict):
        parts: dict = {}
        points = score_entry(prompt_words, entry, parts)
        desc = score_description(prompt_words, self.desc_tokens.get(entry["category"], set()))
        parts["description"] = desc
        return points + desc, parts

    def score_all(self, prompt_words, entries: list) -> list:
        out = []
        for entry in entries:
            points, parts = self.score(prompt_words, entry)
            if points > 0:
                out.append((points, entry, parts))
        return out
