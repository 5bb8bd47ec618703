#!/usr/bin/env python3
"""Measure the Stop-hook triage on the labelled transcripts: precision and recall per category.

Each ``*.jsonl`` in the fixture folder is read as the Stop hook reads a new
stretch (``transcript.read_transcript`` from offset 0) and judged by the real
scorer with the default configuration (``triage.triage``); the categories that
fire are compared with ``labels.json`` ({name: {"categories": [...]}}).

Cues were tuned on the *tuning* half only (sorted file names, even positions,
``heldout-*`` files excluded: they always belong to the held-out half);
figures are printed for the tuning half, the held-out half and all files.

    python3 scripts/triage_eval.py                 # the table
    python3 scripts/triage_eval.py --json          # the same figures as JSON
    python3 scripts/triage_eval.py --show-errors   # which files were misjudged
    python3 scripts/triage_eval.py --by-origin     # held-out split into the first files and heldout-*
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from team_memory.base.config import load_config  # noqa: E402
from team_memory.capture.transcript import read_transcript  # noqa: E402
from team_memory.capture.triage import triage  # noqa: E402

CATEGORIES = ("decision", "runbook", "constraint", "tech_debt", "preference", "session_summary")
DEFAULT_FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests", "fixtures", "transcripts")


def load_fixtures(folder: str) -> list:
    """``[(name, path, set of labelled categories)]`` sorted by name."""
    with open(os.path.join(folder, "labels.json"), encoding="utf-8") as f:
        labels = json.load(f)
    out = []
    for name in sorted(labels):
        path = os.path.join(folder, f"{name}.jsonl")
        if os.path.isfile(path):
            out.append((name, path, set(labels[name].get("categories", []))))
    return out


HELD_OUT_PREFIX = "heldout-"
TUNING_PREFIX = "tune-"


def split(fixtures: list, by_origin: bool = False) -> dict:
    """The fixed halves: files named ``heldout-*`` are always held out (they were added after the first
    tuning round and never tuned on), files named ``tune-*`` always tune (written to tune a later round);
    of the rest, even positions of the sorted names tune and odd positions are held out."""
    base = [f for f in fixtures if not f[0].startswith((HELD_OUT_PREFIX, TUNING_PREFIX))]
    extra = [f for f in fixtures if f[0].startswith(HELD_OUT_PREFIX)]
    tune = [f for f in fixtures if f[0].startswith(TUNING_PREFIX)]
    parts = {"tuning": base[0::2] + tune, "held-out": base[1::2] + extra, "all": fixtures}
    if by_origin:  # the held-out half of the first 49 files, and the files added later, apart
        parts = {"tuning": parts["tuning"], "held-out (first)": base[1::2], "held-out (added)": extra,
                 "held-out": parts["held-out"], "all": fixtures}
    return parts


def predict(path: str, config: dict) -> set:
    return {f.category for f in triage(read_transcript(path, 0).turns, config)}


def figures(results: list) -> dict:
    """category -> {tp, fp, fn, precision, recall} over ``[(name, truth, predicted)]``."""
    out = {}
    for cat in CATEGORIES:
        tp = sum(1 for _, t, p in results if cat in t and cat in p)
        fp = sum(1 for _, t, p in results if cat not in t and cat in p)
        fn = sum(1 for _, t, p in results if cat in t and cat not in p)
        out[cat] = {"tp": tp, "fp": fp, "fn": fn,
                    "precision": tp / (tp + fp) if tp + fp else 1.0,
                    "recall": tp / (tp + fn) if tp + fn else 1.0}
    return out


def evaluate(folder: str = DEFAULT_FIXTURES, config: dict | None = None, by_origin: bool = False) -> dict:
    """``{"tuning"|"held-out"|"all": {"files": n, "categories": figures, "errors": [...]}}``."""
    config = config if config is not None else load_config(None)
    fixtures = load_fixtures(folder)
    predicted = {name: predict(path, config) for name, path, _ in fixtures}
    report = {}
    for part, items in split(fixtures, by_origin).items():
        results = [(name, truth, predicted[name]) for name, _, truth in items]
        errors = [{"file": n, "missed": sorted(t - p), "extra": sorted(p - t)} for n, t, p in results if t != p]
        report[part] = {"files": len(items), "categories": figures(results), "errors": errors}
    return report


def format_table(report: dict) -> str:
    lines = ["| category | " + " | ".join(f"{part} P | {part} R" for part in report) + " |",
             "| --- | " + " | ".join("---: | ---:" for _ in report) + " |"]
    for cat in CATEGORIES:
        cells = []
        for part in report.values():
            fig = part["categories"][cat]
            cells += [f"{fig['precision']:.2f} ({fig['tp']}/{fig['tp'] + fig['fp']})",
                      f"{fig['recall']:.2f} ({fig['tp']}/{fig['tp'] + fig['fn']})"]
        lines.append(f"| {cat} | " + " | ".join(cells) + " |")
    lines.append("files: " + ", ".join(f"{name} {part['files']}" for name, part in report.items()))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", default=DEFAULT_FIXTURES, help="the folder of *.jsonl files and labels.json")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--show-errors", action="store_true", help="list the misjudged files")
    parser.add_argument("--by-origin", action="store_true",
                        help="also split the held-out half into the first files and the heldout-* files added later")
    args = parser.parse_args(argv)
    report = evaluate(args.fixtures, by_origin=args.by_origin)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(format_table(report))
    if args.show_errors:
        for err in report["all"]["errors"]:
            print(f"  {err['file']}: missed {err['missed']} extra {err['extra']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
