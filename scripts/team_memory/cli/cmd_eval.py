"""``eval``: retrieval quality on a labelled evaluation folder."""
from __future__ import annotations

import json
import os

from .main import JSON_OPT, CliError, UsageError, add_command, flag, opt
from ..base.config import TEMPLATES_DIR
from ..recall.evaluate import METRICS, SPLITS, EvalError, evaluate

DEFAULT_FOLDER = os.path.join(os.path.dirname(TEMPLATES_DIR), "tests", "eval")
LABELS = {"mrr": "MRR", "clear_precision": "precision (clear)", "silent": "silent stays silent",
          "blocked": "negatives w/ block", "empty": "empty (answerable)"}  # the others: the metric's own name
PER_PROMPT = (("injected_per_prompt", "injected per prompt"), ("lines", "lines per prompt"),
              ("bytes", "bytes per prompt"), ("lines_answered", "lines per answered"))


def register(subparsers, common) -> None:
    add_command(subparsers, common, "eval", cmd_eval,
                "measure retrieval on a labelled prompt set: hit@1, recall@3/5, MRR, precision, silence, "
                "negatives with a block, lines and bytes injected",
                "  python3 scripts/memory.py eval                       # the repository's tests/eval\n"
                "  python3 scripts/memory.py eval tests/eval --json\n"
                "  python3 scripts/memory.py eval --split holdout --no-fuzzy\n"
                "  python3 scripts/memory.py eval --set min_evidence=0 --set min_score=1   # other floors",
                opt("path", "folder with store/.claude/memory, prompts.jsonl and meta.json (default: tests/eval)",
                    nargs="?", default=DEFAULT_FOLDER),
                opt("--split", "all prompts, or the dev or holdout half", choices=SPLITS, default="all"),
                flag("--no-fuzzy", "skip the fuzzy (rapidfuzz) step"),
                opt("--set", "override a retrieval setting for this run (repeatable; VALUE is JSON, else text)",
                    action="append", default=[], metavar="KEY=VALUE", dest="settings"),
                flag("--results", "with --json: include each prompt's ranked ids"), JSON_OPT)


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _num(value) -> str:
    return "-" if value is None else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _kind_table(by_kind: dict, kinds: list, kwidth: int, cell_text) -> None:
    """One row per prompt kind: its count, then ``cell_text(metrics)`` for each strategy."""
    names = list(by_kind)
    for k in kinds:
        print(f"{k:{kwidth}} {by_kind[names[0]][k]['prompts']:4}" + "".join(cell_text(by_kind[n][k]).rjust(20)
                                                                            for n in names))


def parse_settings(items: list) -> dict:
    """``["min_score=1", "fuzzy=false"]`` -> ``{"min_score": 1, "fuzzy": False}`` (JSON values, else text)."""
    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set needs KEY=VALUE, got {item!r} (for example --set min_score=1)")
        try:
            out[key.strip()] = json.loads(raw)
        except ValueError:
            out[key.strip()] = raw
    return out


def cmd_eval(ctx) -> int:
    args = ctx.args
    if args.path == DEFAULT_FOLDER and not os.path.isdir(DEFAULT_FOLDER):
        raise CliError("eval measures retrieval on the labelled set in a team-memory checkout's tests/eval/, "
                       "which is not part of the drop-in install: run it from a checkout, or give a folder "
                       "with store/.claude/memory, prompts.jsonl and meta.json")
    settings = parse_settings(args.settings)
    try:
        report = evaluate(os.path.abspath(args.path), args.split, fuzzy=not args.no_fuzzy, retrieval=settings)
    except EvalError as exc:
        raise CliError(str(exc)) from None
    names = list(report["strategies"])
    if args.json:
        for data in report["strategies"].values() if not args.results else ():
            data.pop("results", None)
        return ctx.print_json(report)
    print(f"eval {args.path}: {report['memories']} memories, {report['prompts']} prompts "
          f"(split {report['split']}), now {report['now']}, fuzzy {'on' if report['fuzzy'] else 'off'}"
          + "".join(f", {k}={v}" for k, v in sorted(settings.items())) + "\n")
    width = max(12, *(len(n) for n in names))
    print(f"{'metric (%)':20}" + "".join(n.rjust(width) for n in names))
    for key, label, cell in [(m, LABELS.get(m, m), _pct) for m in METRICS] + [(k, label, _num) for k, label in PER_PROMPT]:
        print(f"{label:20}" + "".join(cell(report["strategies"][n]["overall"][key]).rjust(width) for n in names))
    by_kind = {n: report["strategies"][n]["by_kind"] for n in names}
    kinds = list(by_kind[names[0]])
    kwidth = max(6, *(len(k) for k in kinds))
    print(f"\nby kind: recall@3 / precision / silent stays silent (%)\n{'kind':{kwidth}}    n"
          + "".join(n.rjust(20) for n in names))
    _kind_table(by_kind, kinds, kwidth,
                lambda m: f"{_pct(m['recall@3'])} / {_pct(m['precision'])} / {_pct(m['silent'])}")
    first = by_kind[names[0]]
    negative = [k for k in kinds if first[k]["blocked"] is not None and first[k]["hit@1"] is None]
    if negative:
        print("\nnegatives with a block (%) / lines per prompt, by kind")
        _kind_table(by_kind, negative, kwidth, lambda m: f"{_pct(m['blocked'])} / {_num(m['lines'])}")
    return 0
