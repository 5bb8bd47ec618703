"""Retrieval evaluation: rank labelled prompts against a store and score what would be injected.

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
from ..derived.refresh import index_in_memory
from .matching import get_strategy
from .weights import fuzzy_available
from ..base.model import MEMORY_REL
from ..records.store import parse_time
from .block import format_block, sizes
from .rank import rank

METRICS = ("hit@1", "recall@3", "recall@5", "mrr", "precision", "clear_precision", "silent", "blocked", "empty")
SPLITS = ("all", "dev", "holdout")


class EvalError(ValueError):
    """The evaluation folder is missing or malformed."""


def load_prompts(path: str) -> list:
    prompts = []
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
    return prompts


def in_split(prompt_id: str, split: str) -> bool:
    half = int(hashlib.sha256(str(prompt_id).encode()).hexdigest(), 16) % 2
    return split == "all" or (half == 0) == (split == "dev")


def load_folder(folder: str):
    """``(memory_root, prompts, now)`` of an evaluation folder."""
    memory_root = os.path.join(folder, "store", *MEMORY_REL)
    if not os.path.isdir(memory_root):
        raise EvalError(f"no store at {memory_root}")
    prompts = load_prompts(os.path.join(folder, "prompts.jsonl"))
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
                    "related": [memory_id(h.entry) for h in hits if h.parts.get("related") is True],
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
