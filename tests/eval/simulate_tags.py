#!/usr/bin/env python3
"""A copy of an evaluation set whose memories carry the tags a writer following the save guidance might add.

The save path (skill, ``/memory-save``, the Stop reminder) asks Claude for the words a teammate
would type later as tags: the error text's key words, the command or tool, other names for the
thing. No model runs here, so this simulates the part a writer can take from the memory itself:
each active memory gains up to ``--per-memory`` (default 3) words of its own content, the rarest in
the store first, that its title and tags do not hold (no digits-only words, no stop words, at most 12
tags in all). The questions are never read, so nothing of them leaks into the store; synonyms a
writer would know and the content does not hold are out of reach of this simulation.

    python3 tests/eval/simulate_tags.py tests/eval/talk /tmp/talk-tagged
    python3 scripts/memory.py eval /tmp/talk-tagged --split dev --strategy smart

``--words-from dev`` simulates the other half of the guidance, a writer who guesses the words a
teammate will use: each memory a dev-half question expects gains that question's words it lacks
(up to 12 tags), as if the writer had foreseen them. Only the holdout half may be measured on such a
copy (its questions were never read); it is a bound on what foreseen words give, not a forecast.

    python3 tests/eval/simulate_tags.py tests/eval/talk /tmp/talk-foreseen --per-memory 0 --words-from dev
    python3 scripts/memory.py eval /tmp/talk-foreseen --split holdout --strategy smart

The copy is written to OUT (replaced); the set itself is never changed, and the default figures in
docs/retrieval-eval.md never use a copy.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from team_memory.records.recordspec import MAX_TAG_CHARS, MAX_TAGS  # noqa: E402
from team_memory.text.features import content_text  # noqa: E402
from team_memory.text.textnorm import STOP_WORDS, fold, tokenize  # noqa: E402


def words(text: str) -> list:
    """Lowercase letter-and-digit words of 3+ characters, not stop words, not digits only, in order."""
    out, cur = [], []
    for ch in text.lower() + " ":
        if ch.isalnum() and ch.isascii():
            cur.append(ch)
        elif cur:
            word = "".join(cur)
            cur = []
            if len(word) >= 3 and not word.isdigit() and word not in STOP_WORDS and len(word) <= MAX_TAG_CHARS:
                out.append(word)
    return out


def foreseen(folder: Path, split: str) -> dict:
    """memory id -> the words of the ``split`` half's questions that expect it, in order."""
    from team_memory.recall.evaluate import in_split
    asked = [json.loads(line) for line in (folder / "prompts.jsonl").read_text(encoding="utf-8").splitlines()]
    asked = [p for p in asked if in_split(p["id"], split)]
    # a word in more than COMMON of the half's questions is their phrasing ("sprint", "reasoning"), which
    # no writer would tag; what is left names the thing asked about
    df = Counter(w for p in asked for w in set(words(p["prompt"])))
    out: dict = {}
    for prompt in asked:
        for memory_id in prompt["expected"]:
            out.setdefault(memory_id, []).extend(w for w in words(prompt["prompt"]) if df[w] <= COMMON * len(asked))
    return out


COMMON = 0.02


def simulate(folder: Path, out: Path, per_memory: int, words_from: str = "") -> int:
    """Write the tagged copy of ``folder`` to ``out``; returns the number of tags added."""
    asked = foreseen(folder, words_from) if words_from else {}
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(folder, out, ignore=shutil.ignore_patterns("index.md", ".cache"))
    files = sorted((out / "store" / ".claude" / "memory").glob("*/*.json"))
    records = {}
    for path in files:
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("record_status", "active") == "active":
            records[path] = record
    df = Counter()
    for record in records.values():
        df.update({fold(w) for w in words(content_text(record))})
    added = 0
    for path, record in records.items():
        tags = list(record.get("tags") or [])
        have = tokenize(record.get("title", "") + " " + " ".join(tags))
        seen, picks = set(), []
        for word in words(content_text(record)):
            stem = fold(word)
            if stem in have or stem in seen:
                continue
            seen.add(stem)
            picks.append((df[stem], len(picks), word))
        for _, _, word in sorted(picks)[:max(0, min(per_memory, MAX_TAGS - len(tags)))]:
            tags.append(word)
            added += 1
        for word in asked.get(record.get("id"), ()):
            stem = fold(word)
            if len(tags) < MAX_TAGS and stem not in have and word not in tags:
                have.add(stem)
                tags.append(word)
                added += 1
        record["tags"] = tags
        path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return added


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="an evaluation set: store/.claude/memory, prompts.jsonl, meta.json")
    parser.add_argument("out", type=Path, help="where to write the tagged copy (replaced)")
    parser.add_argument("--per-memory", type=int, default=3, help="content words added as tags per memory (3)")
    parser.add_argument("--words-from", choices=["dev"], default="",
                        help="also add the dev half's question words to the memories they expect (measure holdout only)")
    args = parser.parse_args(argv)
    added = simulate(args.folder, args.out, args.per_memory, args.words_from)
    print(f"wrote {args.out}: {added} tags added")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
