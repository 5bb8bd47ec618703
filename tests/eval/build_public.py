#!/usr/bin/env python3
"""Build the two-sided "public" evaluation sets: real engineering stores, their questions, ordinary prompts.

Each store restates the public decision records, runbooks and contributing docs of one real project
(``public_world.py``, and ``platform_world.py`` for Platform); its questions are a teammate's, written
for the set. Every set also holds the ordinary prompts of ``ordinary_prompts.json`` (real commit
subjects of other public repositories turned into requests, and DevGPT conversation titles), which no
memory answers (``expected: []``). An ordinary prompt that shares a word with the store's tags or
domain words is of kind ``same_domain``, the others are ``ordinary``, so ``memory.py eval`` reports the
share of each that got a block.

Sets (one folder each under ``--out``): one per store; ``mixed`` (every store in one, like a team whose
memory holds several projects); and four where every answer is missing (kind ``someone_else``), like
LoCoMo's questions asked of the next conversation's store: ``someone-else`` (Lakeside,
``build_talk.py``, split in two: the questions about Maya and Jon asked of Ana's and Priya's memories),
``other-names`` and ``common-names`` (Lakeside's questions about the same friends renamed, asked of the whole
store)
and ``wrong-store`` (Lakeside's questions asked of the Pebbleworks store, ``build_chat.py``). The
dev/holdout split is the eval's own (a hash of the prompt id: ``recall/evaluate.py`` ``in_split``), so
a prompt falls in the same half in every set. ``fresh`` (``fresh_world.py``: ministryofjustice/cloud-platform)
is a sixth store written after the scorer's rules were chosen, built as its own set only, outside ``stores()``
and ``mixed``, so the other sets stay as they were. Deterministic: the same output every run. See
``tests/eval/README.md`` ("Public sets").

Usage:
    python3 tests/eval/build_public.py                  # write tests/eval/public/<set>/ (git-ignored)
    python3 tests/eval/build_public.py --out DIR
    python3 scripts/memory.py eval tests/eval/public/mixed --split dev
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_wide import NOW, write_set  # noqa: E402  (the same writer and clock)
import fresh_world  # noqa: E402
import platform_world  # noqa: E402
import public_world  # noqa: E402

# Tag words too general to make a prompt "same domain" (they name no project's subject).
GENERAL = {"adr", "api", "build", "code", "config", "data", "docs", "documentation", "module", "process", "release",
           "review", "style", "test", "tests", "testing", "tooling", "naming", "security", "types", "version"}


def stores() -> dict:
    """``{name: (description, memories, questions, domain words)}``; memories ``(id, category, date, title,
    tags, content)``, questions ``(kind, prompt, [ids])`` (the unrelated prompts of a world are left out: the ordinary
    prompts stand for them)."""
    out = {"platform": ("alphagov/govuk-infrastructure (MIT): a platform team's decision records and notes",
                        platform_world.MEMORIES, [q for q in platform_world.QUESTIONS if q[2]],
                        public_world.PLATFORM_DOMAIN)}
    out.update(public_world.STORES)
    return out


def ordinary_prompts() -> list:
    return json.loads((HERE / "ordinary_prompts.json").read_text(encoding="utf-8"))["prompts"]


def words(text: str) -> set:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) >= 3}


def domain_words(memories: list, extra=()) -> set:
    """The store's tag words (tags split on ``-``) and ``extra`` (the world's hand-picked words naming
    its subject), minus the general ones."""
    out = set(extra)
    for memory in memories:
        for tag in memory[4]:
            out |= words(tag.replace("-", " "))
    return out - GENERAL


def shares_domain(prompt: str, domain: set) -> bool:
    """True when a word of ``prompt`` is a domain word, or one with a plural/verb ending (``clusters``)."""
    for w in words(prompt):
        if w in domain or any(w.startswith(d) and len(w) - len(d) <= 3 for d in domain if len(d) >= 4):
            return True
    return False


def record(memory_id: str, category: str, day: str, title: str, tags: list, content: dict) -> dict:
    return {"schema_version": "1.0", "category": category, "id": memory_id, "title": title,
            "created_at": f"{day}T09:00:00Z", "updated_at": f"{day}T17:00:00Z", "tags": list(tags),
            "record_status": "active", "content": content}


def prompts_for(name: str, memories: list, questions: list, ordinary: list, extra=()) -> list:
    domain = domain_words(memories, extra)
    out = [{"id": f"{name}-{n:03d}", "kind": kind, "expected": list(expected), "prompt": question}
           for n, (kind, question, expected) in enumerate(questions, 1)]
    for item in ordinary:
        kind = "same_domain" if shares_domain(item["prompt"], domain) else "ordinary"
        out.append({"id": item["id"], "kind": kind, "expected": [], "prompt": item["prompt"]})
    return out


def build(out: Path) -> dict:
    ordinary = ordinary_prompts()
    counts = {}
    all_memories, all_questions, all_domain = [], [], set()
    for name, (description, memories, questions, extra) in stores().items():
        records = [record(*m) for m in memories]
        all_domain |= set(extra)
        counts[name] = write_set(out / name, records, prompts_for(name, memories, questions, ordinary, extra),
                                 f"{name}: memories restating {description}; questions written for this set; "
                                 "ordinary prompts from ordinary_prompts.json")
        # in the mixed store every id carries its store's name, so two projects' ids never meet
        all_memories += [(f"{name}-{m[0]}", *m[1:]) for m in memories]
        all_questions += [(f"{name}-{n:03d}", kind, q, [f"{name}-{e}" for e in expected])
                          for n, (kind, q, expected) in enumerate(questions, 1)]
    # the same ids as in each store's own set: a question falls in the same half in both
    mixed = [{"id": qid, "kind": kind, "expected": expected, "prompt": q} for qid, kind, q, expected in all_questions]
    mixed += prompts_for("mixed", all_memories, [], ordinary, all_domain)
    counts["mixed"] = write_set(out / "mixed", [record(*m) for m in all_memories], mixed,
                                "mixed: every public store in one (" + ", ".join(stores()) + ")")
    return counts


def build_fresh(out: Path) -> dict:
    """The sixth store, ``fresh`` (``fresh_world.py``), as its own set: not in ``stores()``, so ``mixed`` and the
    other sets are unchanged by it."""
    memories = fresh_world.FRESH
    prompts = prompts_for("fresh", memories, fresh_world.FRESH_QUESTIONS, ordinary_prompts(), fresh_world.FRESH_DOMAIN)
    return {"fresh": write_set(out / "fresh", [record(*m) for m in memories], prompts,
                               "fresh: memories restating ministryofjustice/cloud-platform (MIT): a platform team's "
                               "decision records and runbooks, written after the scorer's rules were chosen; "
                               "questions written for this set; ordinary prompts from ordinary_prompts.json")}


def _lakeside(tmp: Path) -> tuple:
    """``(memories by id, answerable questions)`` of the Lakeside set, built into ``tmp``."""
    import build_talk
    build_talk.build(tmp)
    memories = {}
    for path in (tmp / "store" / ".claude" / "memory").rglob("*.json"):
        rec = json.loads(path.read_text(encoding="utf-8"))
        memories[rec["id"]] = (path, rec)
    lines = (tmp / "prompts.jsonl").read_text(encoding="utf-8").splitlines()
    return memories, [q for q in map(json.loads, filter(str.strip, lines)) if q["expected"]]


def _write_negatives(out: Path, prompts: list, description: str) -> None:
    (out / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in prompts), encoding="utf-8")
    (out / "meta.json").write_text(json.dumps({"now": NOW, "description": description}) + "\n", encoding="utf-8")


OTHER_NAMES = {"Maya": "Elena", "Jon": "Lukas", "Ana": "Rosa", "Priya": "Ingrid"}  # no Lakeside memory names these
COMMON_NAMES = {"Maya": "James", "Jon": "Andrew", "Ana": "Dave", "Priya": "Evan"}  # nor these, common in programming text


def build_someone_else(out: Path) -> dict:
    """Questions about someone the store does not know, every answer missing (kind ``someone_else``).

    ``someone-else``: Lakeside split in two conversations: the store keeps the memories whose first tag
    is Ana or Priya, the questions are those about Maya and Jon (whose memories are left out).
    ``other-names``: Lakeside's questions with Maya, Jon, Ana and Priya renamed (``OTHER_NAMES``), asked of the
    whole Lakeside store: the same topics, about people it never names. ``common-names``: the same with names
    that man pages and docs also hold (``COMMON_NAMES``: James, Andrew, Dave, Evan).
    ``wrong-store``: all of Lakeside's questions asked of the Pebbleworks store (another group's chat).
    """
    import build_chat
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        memories, questions = _lakeside(Path(tmp))
        kept = {mid for mid, (_, rec) in memories.items() if rec["tags"] and rec["tags"][0] in ("ana", "priya")}
        target = out / "someone-else"
        if (target / "store").exists():
            shutil.rmtree(target / "store")
        for mid in sorted(kept):
            path, rec = memories[mid]
            dest = target / "store" / path.relative_to(Path(tmp) / "store")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(json.dumps(rec, indent=2) + "\n", encoding="utf-8")
        asked = [{"id": q["id"], "kind": "someone_else", "expected": [], "prompt": q["prompt"]} for q in questions
                 if q["id"].startswith(("t-maya-", "t-jon-")) and not set(q["expected"]) & kept]
        _write_negatives(target, asked, "someone-else: Lakeside's questions about Maya and Jon asked of the store "
                         "of Ana's and Priya's memories (every answer missing)")
        counts["someone-else"] = {"memories": len(kept), "prompts": len(asked), "silent": len(asked)}
        for name, others in (("other-names", OTHER_NAMES), ("common-names", COMMON_NAMES)):
            target = out / name
            if (target / "store").exists():
                shutil.rmtree(target / "store")
            shutil.copytree(Path(tmp) / "store", target / "store")
            asked = []
            for q in questions:
                renamed = re.sub(r"\b(Maya|Jon|Ana|Priya)\b", lambda m: others[m.group(1)], q["prompt"])
                if renamed != q["prompt"]:
                    asked.append({"id": q["id"], "kind": "someone_else", "expected": [], "prompt": renamed})
            _write_negatives(target, asked, f"{name}: Lakeside's questions with each friend renamed to someone the "
                             "store never names, asked of the whole store (every answer missing)")
            counts[name] = {"memories": len(memories), "prompts": len(asked), "silent": len(asked)}
    target = out / "wrong-store"
    build_chat.build(target)
    asked = [{"id": q["id"], "kind": "someone_else", "expected": [], "prompt": q["prompt"]} for q in questions]
    _write_negatives(target, asked, "wrong-store: Lakeside's questions asked of the Pebbleworks store")
    memories_n = sum(1 for _ in (target / "store" / ".claude" / "memory").rglob("*.json"))
    counts["wrong-store"] = {"memories": memories_n, "prompts": len(asked), "silent": len(asked)}
    return counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "public"), help="output folder (default: tests/eval/public)")
    args = parser.parse_args(argv)
    counts = build(Path(args.out))
    counts.update(build_fresh(Path(args.out)))
    counts.update(build_someone_else(Path(args.out)))
    for name, c in counts.items():
        print(f"{name}: {c['memories']} memories, {c['prompts']} prompts ({c['silent']} that no memory answers)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
