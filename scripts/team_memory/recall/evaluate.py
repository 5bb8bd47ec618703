"""Retrieval evaluation: rank labelled prompts against a store and score what would be injected; and
``search --explain``'s near misses: memories a prompt scored but the hook would not inject, each with the reason
(the strategy's verdict named by the setting behind it, or the ``max_inject`` cut).

A folder holds ``store/.claude/memory/``, ``prompts.jsonl`` (``{"id", "prompt", "expected": [memory ids], "kind"}`` per
line; ``expected: []``: inject nothing) and ``meta.json`` (``{"now": ISO time}``). Each prompt is ranked as the hook
ranks it (no session dedupe) over an index built in memory; nothing is written. Metrics: ``hit@1``, ``recall@3``,
``recall@5``, ``MRR`` (over prompts expecting something); ``precision`` (``clear_precision``: clear hits only);
``silent``/``blocked`` (prompts expecting nothing: no block / one); ``empty``; ``lines``, ``bytes``, ``lines_answered``
(the hook's block per prompt). ``by_kind`` per prompt kind; ``split``: a hash-picked half (``dev``, ``holdout``).
"""
from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timezone

from ..base.config import deep_merge, load_config, max_inject
from ..base.model import MEMORY_REL
from ..derived.refresh import current_index, index_in_memory
from ..records.store import parse_time
from .block import format_block, sizes
from .matching import SUBJECT_MISSING, Smart, get_strategy
from .retrieve import MAX_PROMPT_CHARS, rank, read_record, scored_hits
from .weights import evidence, fuzzy_available, match_parts, ordinary_note, why_not

METRICS = ("hit@1", "recall@3", "recall@5", "mrr", "precision", "clear_precision", "silent", "blocked", "empty")
SPLITS = ("all", "dev", "holdout")
NEAR_MISSES = 5  # shown by search --explain


class EvalError(ValueError):
    """The evaluation folder is missing or malformed."""


def in_split(prompt_id: str, split: str) -> bool:
    half = int(hashlib.sha256(str(prompt_id).encode()).hexdigest(), 16) % 2
    return split == "all" or (half == 0) == (split == "dev")


def load_folder(folder: str):
    """``(memory_root, prompts, now)`` of an evaluation folder."""
    memory_root = os.path.join(folder, "store", *MEMORY_REL)
    if not os.path.isdir(memory_root):
        raise EvalError(f"no store at {memory_root}")
    path, prompts = os.path.join(folder, "prompts.jsonl"), []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except ValueError as exc:
                    raise EvalError(f"{path}:{n}: not JSON ({exc})") from None
                if not (isinstance(item, dict) and isinstance(item.get("prompt"), str)
                        and isinstance(item.get("expected"), list)):
                    raise EvalError(f"{path}:{n}: needs a text 'prompt' and an 'expected' list")
                item.setdefault("id", f"line-{n}")
                item.setdefault("kind", "silent" if not item["expected"] else "other")
                prompts.append(item)
    except OSError as exc:
        raise EvalError(f"cannot read {path}: {exc}") from None
    now = datetime.now(timezone.utc)
    try:
        with open(os.path.join(folder, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
        if isinstance(meta, dict):
            now = parse_time(meta.get("now")) or now
    except (OSError, ValueError):
        pass
    return memory_root, prompts, now


def memory_id(entry: dict) -> str:
    return os.path.basename(entry["path"])[:-5]


def run(memory_root: str, config: dict, index, prompts: list, now) -> list:
    """``[{"id", "kind", "expected", "got"}]``: what the hook would inject for each prompt."""
    strategy = get_strategy(config)
    limit = max(max_inject(config), 1)
    budget, excerpt = sizes(config)
    out = []
    for p in prompts:
        hits = rank(memory_root, config, p["prompt"], limit, index, now=now, strategy=strategy)
        block = format_block(hits, config, budget, excerpt) if hits else ""
        out.append({"id": p["id"], "kind": p["kind"], "expected": list(p["expected"]),
                    "got": [memory_id(h.entry) for h in hits],
                    "related": [memory_id(h.entry) for h in hits if h.related()],
                    "lines": len(hits) if block else 0, "bytes": len(block.encode("utf-8"))})
    return out


def _mean(rows: list, value):  # None when there are no rows
    return sum(value(r) for r in rows) / len(rows) if rows else None


def metrics(results: list) -> dict:
    """The metrics of a list of results (see the module docstring); None where nothing applies."""
    answerable = [r for r in results if r["expected"]]
    out: dict = {"prompts": len(results),
                 "hit@1": _mean(answerable, lambda r: 1 if r["got"][:1] and r["got"][0] in r["expected"] else 0)}
    for k in (3, 5):
        out[f"recall@{k}"] = _mean(answerable, lambda r: len(set(r["got"][:k]) & set(r["expected"]))
                                   / len(set(r["expected"])))
    out["mrr"] = _mean(answerable, lambda r: next((1.0 / i for i, m in enumerate(r["got"], 1)
                                                   if m in r["expected"]), 0.0))
    injected = sum(len(r["got"]) for r in results)
    relevant = sum(len(set(r["got"]) & set(r["expected"])) for r in results)
    out["precision"] = relevant / injected if injected else None
    clear = [(set(r["got"]) - set(r.get("related", ())), set(r["expected"])) for r in results]
    shown_clear = sum(len(c) for c, _ in clear)
    out["clear_precision"] = sum(len(c & e) for c, e in clear) / shown_clear if shown_clear else None
    out["silent"] = _mean([r for r in results if not r["expected"]], lambda r: 0 if r["got"] else 1)
    out["blocked"] = None if out["silent"] is None else 1.0 - out["silent"]
    out["empty"] = _mean(answerable, lambda r: 0 if r["got"] else 1)
    out["injected_per_prompt"] = injected / len(results) if results else 0.0
    lines = [r.get("lines", len(r["got"])) for r in results]
    out["lines"] = sum(lines) / (len(results) or 1)
    out["bytes"] = sum(r.get("bytes", 0) for r in results) / (len(results) or 1)
    out["lines_answered"] = _mean([n for n in lines if n], int)
    return out


def evaluate(folder: str, split: str = "all", fuzzy: bool = True, retrieval=None) -> dict:
    """The report, overall and per prompt kind; ``fuzzy=False`` skips the fuzzy step, ``retrieval`` overrides settings."""
    memory_root, prompts, now = load_folder(folder)
    prompts = [p for p in prompts if in_split(p["id"], split)]
    if not prompts:
        raise EvalError(f"no prompts in {folder} (split {split})")
    config = load_config(memory_root)
    overrides = dict(retrieval or {}, **({} if fuzzy else {"fuzzy": False}))
    if overrides:
        config = deep_merge(config, {"retrieval": overrides})
    index = index_in_memory(memory_root, config)
    results = run(memory_root, config, index, prompts, now)
    kinds = sorted({p["kind"] for p in prompts})
    return {"folder": folder, "now": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "split": split,
            "settings": dict(retrieval or {}), "fuzzy": fuzzy and fuzzy_available(), "prompts": len(prompts),
            "memories": index.n, "strategies": {get_strategy(config).name: {
                "overall": metrics(results),
                "by_kind": {k: metrics([r for r in results if r["kind"] == k]) for k in kinds},
                "results": results,
            }}}


# -- search --explain's near misses
class Unfloored(Smart):
    """``strategy`` showing every memory the prompt meets (no fuzzy step), noting if the real one answers."""

    verdict = None

    def __init__(self, strategy):  # its settings and the prompt it was given, not read again
        self.__dict__.update(strategy.__dict__)
        self.real, self.min_relative = strategy, 0.0  # nothing is left unscored for being far under the best

    def confident(self, best: float, reachable: float, *more) -> bool:
        self.verdict = (best, reachable, super().confident(best, reachable, *more))
        return True

    def bar(self, *_) -> float:  # and ``floor``: every memory met is scored and shown
        return 0.0

    floor = bar

    def shown(self, best: float, rows: list) -> list:
        self.real._query = self._query  # what the relevance rule judged, and why (``weights.why_not``)
        self.real.shown(best, rows)
        self.relevance = self.real.relevance
        return [(total, key, match_parts(matches)) for total, key, matches in rows if total > 0]


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
    relaxed = Unfloored(strategy)
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

