#!/usr/bin/env python3
"""Build the fifth retrieval evaluation set, "Platform": real engineering text nobody on the team wrote.

The memories restate the decision records and operating notes of a public platform team's
repository (``alphagov/govuk-infrastructure``, MIT licence: see ``platform_world.py`` and
``tests/eval/README.md``), one memory per record or note, in the categories a team would file
them under; the questions are a teammate's, written for this set. Where the other four sets
are generated from invented worlds, this one checks that the defaults hold on text whose
vocabulary no one here chose. Deterministic: the same output every run.

Usage:
    python3 tests/eval/build_platform.py              # write tests/eval/platform/ (git-ignored)
    python3 tests/eval/build_platform.py --out DIR    # write DIR/{store,prompts.jsonl,meta.json}
    python3 scripts/memory.py eval tests/eval/platform --split holdout
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_wide import run, write_set  # noqa: E402  (the same writer and command line)
from platform_world import MEMORIES, QUESTIONS  # noqa: E402

DESCRIPTION = ("Platform: memories restating the public decision records and notes of alphagov/govuk-infrastructure "
               "(MIT); questions written for this set.")


def build(out: Path) -> dict:
    memories = []
    for memory_id, category, day, title, tags, content in MEMORIES:
        memories.append({"schema_version": "1.0", "category": category, "id": memory_id, "title": title,
                         "created_at": f"{day}T09:00:00Z", "updated_at": f"{day}T17:00:00Z", "tags": tags,
                         "record_status": "active", "content": content})
    prompts = [{"id": f"pl-{n:03d}", "kind": kind, "expected": expected, "prompt": question}
               for n, (kind, question, expected) in enumerate(QUESTIONS, 1)]
    return write_set(out, memories, prompts, DESCRIPTION)


def main(argv=None) -> int:
    return run(argv, __doc__, "platform", build)


if __name__ == "__main__":
    raise SystemExit(main())
