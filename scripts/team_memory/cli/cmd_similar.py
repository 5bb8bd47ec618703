"""``similar``: the existing memory a new one should update instead of duplicating (``viewdupes.similarity``)."""
from __future__ import annotations

import os

from ..base.cliname import cli_command
from ..base.model import CATEGORIES, display_name, topic_tags
from ..base.sanitize import clean_tag
from ..records.exposure import name_is_shown, shown_related, shown_text
from ..derived.index import entry_from_record
from ..edits.write import content_hash
from ..records import relpaths
from ..records.store import iter_records, project_root_of, record_status
from ..text.tokens import tokenize
from .main import CLI, CliError, add_command, flag, opt, related_args
from .viewdupes import SIMILAR_THRESHOLD, similarity


def register(subparsers, common) -> None:
    add_command(subparsers, common, "similar", cmd_similar,
                "find the existing memory a new one should update instead of duplicating",
                f"  {CLI} similar --category decision --title 'Use Redis for session storage' --tag redis\n"
                f"  {CLI} similar --category decision --title 'Session store' --related-file app/session.py\n"
                f"  {CLI} similar --category runbook --title 'pydantic import error' --json",
                opt("--category", "the new memory's category", required=True, choices=CATEGORIES),
                opt("--title", "the new memory's title", required=True),
                opt("--tag", "the new memory's tags (repeatable)", action="append", default=[]),
                opt("--related-file", "a file, folder or glob the new memory is about (repeatable); a memory about the "
                                      "same files counts as similar", action="append", default=[], metavar="PATH"),
                flag("--json", "print JSON (null when nothing is close)"))


def best_similar(memory_root: str, config: dict, category: str, title: str, tags=(), related=()) -> dict | None:
    """The active memory of ``category`` most like the new one (3+ points), or None; ``why`` says what it shares."""
    words = tokenize(title) | set(topic_tags(t for t in (clean_tag(tag) for tag in tags) if t))
    files = relpaths.usable(list(related))
    candidates = []
    for cat, path, record in iter_records(memory_root, config, category):
        if record_status(record) != "active" or not name_is_shown(os.path.basename(path)):
            continue
        entry = entry_from_record(memory_root, cat, path, record)
        entry = dict(entry, tags=topic_tags(entry["tags"]))  # where it came from is not what it is about
        if entry["title"] and entry["category"] == display_name(category):
            shown = shown_related(record.get("related_files")) if files else {}
            candidates.append((entry, [e for e, s in shown.items() if s == e]))  # never quotes a hidden entry
    candidates.sort(key=lambda c: (c[0]["title"].lower(), c[0]["path"]))  # the index's order: ties go to the first
    scored = [(similarity(words, files, entry, old_files), entry) for entry, old_files in candidates]
    (score, why), entry = max(scored, key=lambda s: s[0][0], default=((0, []), None))
    if score < SIMILAR_THRESHOLD:
        return None
    return {"id": os.path.basename(entry["path"])[:-5], "score": score, "category": category,
            "title": shown_text(entry["title"]), "path": entry["path"], "tags": entry["tags"],
            "why": [shown_text(w) for w in why],  # a reason quotes the memory's own related entries
            "hash": content_hash(os.path.join(project_root_of(memory_root), entry["path"]))}  # for --expect-hash


def cmd_similar(ctx) -> int:
    args = ctx.args
    try:
        memory_root = ctx.memory_root
    except CliError:
        memory_root = None  # no store yet: nothing can be similar (the first save creates it)
    if args.related_file:  # refused as update and save refuse it (an absolute path, .., .git)
        related_args(memory_root or os.getcwd(), args.related_file, check=True)
    best = memory_root and best_similar(memory_root, ctx.config, args.category, args.title, args.tag, args.related_file)
    if args.json:
        ctx.print_json(best)
    elif best:
        print(f"{best['score']:>3}  {best['id']}  {best['title']}  -> {best['path']}")
        if best["why"]:
            print(f"     why: {'; '.join(best['why'])}")
        print(f"     update it instead of adding a duplicate: {cli_command()} update {best['id']} ... "
              f"--expect-hash {best['hash']}")
    else:
        print("no similar memory: save a new one"
              + ("" if memory_root else " (no memory store yet: the first save creates it)"))
    return 0
