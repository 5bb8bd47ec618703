"""``search --explain``'s near misses: the memories a prompt scored but the hook would not inject, each
with its score and the reason (the floor it missed, read from the strategy, or the ``max_inject`` cut)."""
from __future__ import annotations

from .index import current_entries
from .retrieve import MAX_PROMPT_CHARS, plain_hits

NEAR_MISSES = 5


def _without_floor(strategy):
    """A copy of ``strategy`` that returns every memory it scores (floors computed, not applied)."""
    if not hasattr(strategy, "floor"):
        return strategy  # title_tags has no floor: every positive score is a hit already

    class Unfloored(type(strategy)):
        def floor(self, best: float) -> float:
            return 0.0

    copy = Unfloored.__new__(Unfloored)
    copy.__dict__.update(strategy.__dict__)
    copy._entries = None
    return copy


def near_misses(memory_root: str, config: dict, prompt: str, strategy, hits: list, limit: int) -> list:
    """``[(score, entry, parts, reason)]``: up to 5 scored memories not among ``hits``, best first."""
    query = strategy.query(prompt[:MAX_PROMPT_CHARS])
    if not query:
        return []
    entries = current_entries(memory_root, config)
    scored = list(plain_hits(memory_root, _without_floor(strategy), query, entries))
    shown = {h.entry["path"] for h in hits}
    best = max((h.score for h in scored), default=0.0)
    bar = strategy.floor(best) if hasattr(strategy, "floor") else 0.0
    out = []
    for hit in scored:
        if hit.entry["path"] in shown:
            continue
        if hit.score < bar:  # the strategy's own floor decides; the message names the setting behind it
            if hit.score < getattr(strategy, "min_score", 0.0):
                reason = f"under retrieval.min_score {strategy.min_score:g}"
            elif hasattr(strategy, "min_relative"):
                reason = f"under retrieval.min_relative {strategy.min_relative:g} x best {best:g} = {bar:g}"
            else:
                reason = f"under the floor {bar:g}"
        elif len(hits) >= limit:
            reason = f"beyond the {limit} shown (retrieval.max_inject or --limit)"
        else:
            reason = "not shown: retired, archived or unreadable (the hook checks each file)"
        out.append((hit.score, hit.entry, hit.parts, reason))
        if len(out) >= NEAR_MISSES:
            break
    return out


def print_near_misses(ctx, misses: list) -> None:
    if not misses:
        print("near misses: none (no other memory shares a word with the prompt)")
        return
    print("near misses (scored, not injected; scores before the recency bonus):")
    for score, entry, parts, reason in misses:
        print(f"{score:>4g}  [{entry['category']}] {entry['title']} -> {entry['path']}")
        print(f"      {reason}")
        details = ", ".join(f"{k}: {v}" for k, v in parts.items() if v not in ([], 0, None, ""))
        if details:
            print(f"      {details}")

