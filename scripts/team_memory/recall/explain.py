"""``search --explain``'s near misses: memories a prompt scored but the hook would not inject, each with
the reason (the strategy's verdict named by the setting behind it, or the ``max_inject`` cut)."""
from __future__ import annotations

from ..derived.refresh import current_index
from .matching import SUBJECT_MISSING
from .rank import MAX_PROMPT_CHARS, read_record, scored_hits
from .relevance import ordinary_note, why_not
from .weights import evidence, match_parts

NEAR_MISSES = 5


def _without_floor(strategy):
    """A copy of ``strategy`` showing every memory the prompt meets (no fuzzy step), noting if the real one answers."""

    class Unfloored(type(strategy)):
        verdict = None

        def confident(self, best: float, reachable: float, *more) -> bool:
            self.verdict = (best, reachable, super().confident(best, reachable, *more))
            return True

        def bar(self, *_) -> float:  # and ``floor``: every memory met is scored and shown
            return 0.0

        floor = bar

        def shown(self, best: float, rows: list) -> list:
            strategy._query, strategy._asks_team = self._query, self._asks_team  # what the relevance rule
            strategy.shown(best, rows)  # judged, and why (``relevance.why_not``)
            self.relevance = strategy.relevance
            return [(total, key, match_parts(matches)) for total, key, matches in rows if total > 0]

    copy = Unfloored.__new__(Unfloored)
    copy.__dict__.update(strategy.__dict__)
    copy.min_relative = 0.0  # nothing is left unscored for being far under the best
    return copy


def _abstained(strategy, best: float, reachable: float) -> str:
    """Why the strategy showed nothing at all for a prompt whose best memory scored ``best``."""
    if best < min(strategy.min_score, strategy.lowest_best):
        return f"the best score {best:g} is under retrieval.min_score {strategy.min_score:g}: nothing is shown"
    others = " nor ".join(f"retrieval.{key}" for key in ("min_corroborated", "min_explained") if getattr(strategy, key))
    neither = f", and neither {others} applies" if " nor " in others else others and f", and {others} does not apply"
    return (f"the best match explains too little of the prompt (evidence {evidence(best, reachable):.2f} under "
            f"retrieval.min_evidence {strategy.min_evidence:g}{neither}): nothing is shown")


def _reason(strategy, score: float, best: float, shown: int, limit: int) -> str:
    """Why a memory the relevance rule kept and scoring ``score`` beside ``best`` was not among the ``shown``."""
    bar = strategy.bar(best)
    if score >= bar:
        if shown >= limit:
            return f"beyond the {limit} shown (retrieval.max_inject or --limit)"
        if score < strategy.clear_bar(best):
            return "possibly related, beyond the ones shown by title (retrieval.max_related)"
        return "not shown: retired, archived or unreadable (the hook checks each file)"
    if bar == strategy.min_score:
        setting = f"retrieval.min_score {strategy.min_score:g}"
    elif abs(bar - strategy.min_relative * best) < 1e-9:
        setting = f"retrieval.min_relative {strategy.min_relative:g} x the best {best:g}"
    elif abs(bar - strategy.min_related * best) < 1e-9:
        setting = f"retrieval.min_related {strategy.min_related:g} x the best {best:g} (titles only)"
    else:
        setting = f"retrieval.min_runner_up {strategy.min_runner_up:g} (or 0.9 x a smaller best)"
    return f"under {bar:g}, what a runner-up needs: {setting}"


def near_misses(memory_root: str, config: dict, prompt: str, strategy, hits: list, limit: int, notes: list) -> list:
    """``[(score, entry, parts, reason)]``: up to 5 scored memories not in ``hits``, best first (``notes``: lines)."""
    query = strategy.query(prompt[:MAX_PROMPT_CHARS])
    if not query:
        return []
    relaxed = _without_floor(strategy)
    index = current_index(memory_root, config)
    scored = scored_hits(relaxed, query, index, read=lambda entry: read_record(memory_root, config, entry))
    stranger = relaxed.stranger
    if stranger:  # scored as if the prompt named no one, to show what it would have met
        relaxed._subject = ""
        scored = scored_hits(relaxed, query, index)
    shown = {h.entry["path"] for h in hits}
    best = max((h.score for h in scored), default=0.0)
    verdict, report = relaxed.verdict, relaxed.relevance
    abstained = _abstained(strategy, verdict[0], verdict[1]) if verdict is not None and not verdict[2] else None
    if stranger:
        abstained = (f"the prompt is about {stranger}, a name no memory mentions, so about someone or something "
                     "else: nothing is shown (retrieval.unknown_names: false turns this off)")
    note = None if abstained else ordinary_note(report)
    if note:
        notes.append(note)
    if relaxed._subject and not stranger:
        notes.append(f"the question asks about {relaxed._subject}: a memory that does not name it counts at "
                     f"{SUBJECT_MISSING:g} of its points (retrieval.unknown_names: false turns this off)")
    missed = [hit for hit in scored if hit.entry["path"] not in shown][:NEAR_MISSES]
    return [(hit.score, hit.entry, hit.parts,
             abstained or why_not(report, hit.pos) or _reason(strategy, hit.score, best, len(hits), limit))
            for hit in missed]


def print_near_misses(misses: list, notes=()) -> None:
    from ..records.exposure import shown_name, shown_text
    for note in notes:
        print(shown_text(note))
    if not misses:
        print("near misses: none (no other memory shares a word with the prompt)")
        return
    print("near misses (scored, not injected; scores before the recency bonus):")
    for score, entry, parts, reason in misses:
        print(f"{score:>4g}  [{entry['category']}] {shown_text(entry['title'])} -> {shown_name(entry['path'])}")
        print(f"      {reason}")
        details = shown_text(", ".join(f"{k}: {v}" for k, v in parts.items() if v not in ([], 0, None, "")))
        if details:
            print(f"      {details}")

