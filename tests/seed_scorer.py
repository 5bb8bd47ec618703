"""The prior plugin's scoring (its report's "seed"), kept as a baseline for the evaluation tests only: title
word +2, tag +3, prefix +1, category description up to +2, best first (priority, then index order, on ties).
The product ranks with ``recall.matching.Smart``; ``seed_results`` gives what the seed would have shown for
each prompt, in the shape ``recall.evaluate.metrics`` reads."""
from __future__ import annotations

import os

from team_memory.base.config import category_descriptions, category_enabled, load_config, max_inject
from team_memory.base.model import display_name
from team_memory.cli.viewdupes import score_entry
from team_memory.derived.index import entry_from_record
from team_memory.recall.evaluate import in_split, load_folder, memory_id
from team_memory.recall.retrieve import PRIORITY
from team_memory.records.store import record_status
from team_memory.text.tokens import tokenize


def build_entries(memory_root: str, config: dict, bodies: dict | None = None) -> list:
    """Index entries for every active memory of an enabled category, in index order.

    With ``bodies`` (a dict), also fills ``{entry path: body tokens}`` (see ``features.derive_body_tokens``).
    """
    from team_memory.records.exposure import name_is_shown
    from team_memory.records.store import iter_records
    if bodies is not None:
        from team_memory.text.features import derive_body_tokens
        from team_memory.text.textnorm import stop_words_for
        stop_words = stop_words_for(config)
    entries = []
    for category, path, record in iter_records(memory_root, config):
        if record_status(record) != "active" or not category_enabled(config, category):
            continue
        entry = entry_from_record(memory_root, category, path, record)
        if entry["title"] and name_is_shown(os.path.basename(path)):
            entries.append(entry)
            if bodies is not None:
                bodies[entry["path"]] = derive_body_tokens(record, stop_words)
    entries.sort(key=lambda e: (e["category"], e["title"].lower(), e["path"]))
    return entries


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


def seed_results(folder: str, split: str = "all") -> list:
    """``[{"id", "kind", "expected", "got"}]``: the seed's top ``max_inject`` memories for each prompt."""
    memory_root, prompts, _ = load_folder(folder)
    config = load_config(memory_root)
    entries = build_entries(memory_root, config)
    described = {display_name(cat): tokenize(desc) for cat, desc in category_descriptions(config).items()}
    limit = max(max_inject(config), 1)
    out = []
    for p in prompts:
        if not in_split(p["id"], split):
            continue
        words = tokenize(p["prompt"])
        scored = []
        for pos, entry in enumerate(entries):
            points = score_entry(words, entry) + score_description(words, described.get(entry["category"], set()))
            if points > 0:
                scored.append((-points, PRIORITY.get(entry["category"], 10), pos, entry))
        scored.sort(key=lambda row: row[:3])
        out.append({"id": p["id"], "kind": p["kind"], "expected": list(p["expected"]),
                    "got": [memory_id(row[3]) for row in scored[:limit]]})
    return out
