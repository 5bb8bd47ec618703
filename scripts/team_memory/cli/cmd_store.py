"""Read-side commands: ``rebuild``, ``list``, ``search``, ``show``."""
from __future__ import annotations

import os

from .main import CLI, CliError, UsageError, add_command
from ..derived.index import index_path
from ..derived.refresh import rebuild_index
from ..base.model import CATEGORIES, STATUSES
from ..recall.retrieve import MIN_PROMPT_CHARS
from ..recall.block import format_block, sizes
from ..recall.rank import rank
from ..recall.matching import get_strategy
from ..records.store import dump_memory, find_memory, iter_records, load_memory, NotARecord, project_root_of, record_status


def register(subparsers, common) -> None:
    p = add_command(subparsers, common, "rebuild", cmd_rebuild,
                    "rewrite index.md and the machine cache from the JSON files (atomically, under the store lock)",
                    f"  {CLI} rebuild\n  {CLI} rebuild --full\n"
                    f"  {CLI} rebuild --root ~/src/app")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--full", action="store_true",
                   help="re-read every memory file (default: every file is checked, and re-read only "
                        "when its size, time or inode changed since the cache was written)")

    p = add_command(subparsers, common, "list", cmd_list, "list memories, newest first",
                    f"  {CLI} list\n"
                    f"  {CLI} list --category decision --tag redis\n"
                    f"  {CLI} list --status retired --json")
    p.add_argument("--category", choices=CATEGORIES, help="only this category")
    p.add_argument("--tag", action="append", default=[], help="only memories with this tag (repeatable: all must match)")
    p.add_argument("--status", choices=STATUSES + ("all",), default="active", help="record status (default: active)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(subparsers, common, "search", cmd_search,
                    "rank memories for a prompt exactly as the UserPromptSubmit hook does (prompts under "
                    f"{MIN_PROMPT_CHARS} characters inject nothing, in both)",
                    f'  {CLI} search "fix pydantic import error in tests"\n'
                    f'  {CLI} search "where do we keep sessions" --explain   # also the near misses\n'
                    f'  {CLI} search "api auth policy" --json --limit 10')
    p.add_argument("prompt", help="the prompt text to match")
    p.add_argument("--limit", type=int, default=None, help="how many results (default: retrieval.max_inject)")
    p.add_argument("--explain", action="store_true",
                   help="show how each score was made, the prompt's ordinary and distinctive words, and the near "
                        "misses: their scores and the floor they missed (why the hook stayed silent)")
    p.add_argument("--block", action="store_true", help="print the exact <memory-context> block the hook would inject")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(subparsers, common, "show", cmd_show, "show one memory",
                    f"  {CLI} show use-pydantic-v2\n  {CLI} show use-pydantic-v2 --json\n"
                    f"  {CLI} show decision/use-pydantic-v2      # one of two files with the same id")
    p.add_argument("id", help="the memory id (its file name without .json), or category/id or the file's path "
                             "when two folders hold the same id")
    p.add_argument("--json", action="store_true",
                   help="print the stored record as JSON (secrets and private sections of hand-edited files hidden)")


def cmd_rebuild(ctx) -> int:
    count = rebuild_index(ctx.memory_root, ctx.config, full=ctx.args.full)
    if ctx.args.json:
        ctx.print_json({"index": index_path(ctx.memory_root), "entries": count})
    else:
        print(f"rebuilt {index_path(ctx.memory_root)}: {count} active memor{'y' if count == 1 else 'ies'}")
    return 0


def _summary(category: str, path: str, record: dict) -> dict:
    from ..records.exposure import shown_name, shown_tag, shown_text
    tags = record.get("tags") if isinstance(record.get("tags"), list) else []
    updated = record.get("updated_at")
    return {"id": shown_name(os.path.basename(path)[:-5]), "category": category,
            "title": shown_text(record.get("title")), "tags": [t for t in map(shown_tag, tags) if t],
            "status": shown_text(record_status(record)),
            "updated_at": shown_text(updated) if isinstance(updated, str) else "", "path": shown_name(path)}


def cmd_list(ctx) -> int:
    args = ctx.args
    rows = [row for row in (_summary(*item) for item in iter_records(ctx.memory_root, ctx.config))
            if args.category in (None, row["category"]) and args.status in ("all", row["status"])
            and all(t.lower() in row["tags"] for t in args.tag)]
    rows.sort(key=lambda r: (r["updated_at"], r["id"]), reverse=True)
    if args.json:
        ctx.print_json(rows)
        return 0
    if not rows:
        print("no memories match")
        return 0
    from ..base.sanitize import display, shown_path
    width = max(len(shown_path(r["id"])) for r in rows)
    for r in rows:
        status = "" if r["status"] == "active" else f" ({r['status']})"
        print(f"{display(r['updated_at'])[:10]:10}  {r['category']:15}  {ctx.color(shown_path(r['id']).ljust(width), '1')}"
              f"  {display(r['title'])}{status}")
    return 0


def cmd_search(ctx) -> int:
    from ..base.config import max_inject
    args = ctx.args
    limit = args.limit if args.limit is not None else max_inject(ctx.config)
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    length = len(args.prompt.strip())
    if length < MIN_PROMPT_CHARS:  # the hook's own minimum: short prompts ("ok", "yes") inject nothing
        if args.json:
            ctx.print_json([])
        elif not args.block:
            print(f"no memory matches: the hook injects nothing for a prompt under {MIN_PROMPT_CHARS} characters "
                  f"(this one has {length}); try a whole question, or: list --tag WORD")
        return 0
    hits = rank(ctx.memory_root, ctx.config, args.prompt, limit)
    if args.block:
        print(format_block(hits, ctx.config, *sizes(ctx.config)), end="")
        return 0
    from ..records.exposure import shown_name, shown_tag, shown_text, shown_value
    if args.json:  # the index or cache may be a forged file: what it says is shown through the same rule
        ctx.print_json([{"id": shown_name(os.path.basename(h.entry["path"])[:-5]), "score": h.score,
                         "category": h.entry["category"].lower(), "title": shown_text(h.entry["title"]),
                         "path": shown_name(h.entry["path"]),
                         "tags": sorted(filter(None, map(shown_tag, h.entry["tags"]))),
                         "parts": shown_value(h.parts)} for h in hits])
        return 0
    if not hits:
        print("no memory matches")
    for h in hits:
        print(f"{ctx.color(f'{h.score:g}'.rjust(4), '1')}  [{h.entry['category']}] {shown_text(h.entry['title'])} "
              f"-> {shown_name(h.entry['path'])}")
        if args.explain:
            print("      " + ", ".join(f"{k}: {shown_text(v)}" for k, v in h.parts.items()
                                       if v not in ([], 0, None, "")))
    if args.explain:
        from ..recall.explain import near_misses, print_near_misses
        notes: list = []
        misses = near_misses(ctx.memory_root, ctx.config, args.prompt, get_strategy(ctx.config), hits, limit, notes)
        print_near_misses(misses, notes)
    return 0


def cmd_show(ctx) -> int:
    found = find_memory(ctx.memory_root, ctx.config, ctx.args.id)
    if found is None:
        raise CliError(f"no memory with id {ctx.args.id!r} (try: {CLI} list)")
    category, path = found
    from ..records.exposure import shown_name, shown_tag, shown_text, shown_value
    try:
        raw = load_memory(path)
    except NotARecord as exc:
        raise CliError(f"{shown_name(path)}: {shown_text(exc)}") from None
    record = shown_value(raw)  # every string and key, at any depth: the file may be hand-edited
    if ctx.args.json:
        print(dump_memory(record), end="")
        return 0
    from ..edits.write import content_hash
    print(ctx.color(shown_text(record["title"]), "1"))
    print(f"  {category} · {shown_text(record_status(raw))} · updated {shown_text(record.get('updated_at', '?'))} "
          f"· {shown_name(path)}")
    print(f"  hash: {content_hash(path)[:12]}  (for: update {shown_name(os.path.basename(path)[:-5])} "
          "--expect-hash ...)")
    if isinstance(raw.get("tags"), list) and raw["tags"]:
        print(f"  tags: {', '.join(t for t in map(shown_tag, raw['tags']) if t)}")
    if record.get("confidence") is not None:
        print(f"  confidence: {shown_text(record['confidence'])}")
    if isinstance(record.get("related_files"), list) and record["related_files"]:
        print(f"  related files: {', '.join(map(shown_text, record['related_files']))}")
        from ..derived.driftmarks import current_marks  # the stale mark: its files changed in git since
        key = os.path.relpath(path, project_root_of(ctx.memory_root)).replace(os.sep, "/")
        try:
            stale = current_marks(ctx.memory_root, ctx.config).get(key, "")
        except OSError:
            stale = ""
        if stale:
            print(f"  stale: {shown_text(stale)}  (see: {CLI} review)")
    for state in ("retired", "archived"):
        if record.get(f"{state}_at") or record.get(f"{state}_reason"):
            print(f"  {state} {shown_text(record.get(f'{state}_at', '?'))}: "
                  f"{shown_text(record.get(f'{state}_reason') or '(no reason given)')}")
    content = record.get("content")
    if isinstance(content, dict):
        for key, value in content.items():
            _print_field(key, value)
    else:
        print(dump_memory(record), end="")
    if isinstance(record.get("changes"), list) and record["changes"]:
        print("  history:")
        for change in record["changes"]:
            if isinstance(change, dict):
                print(f"    {shown_text(change.get('date', '?'))}  {shown_text(change.get('summary', ''))}")
            else:
                print(f"    {shown_text(change)}")
    return 0


def _print_field(key: str, value, indent: str = "  ") -> None:
    """One content field of a record already through ``shown_value``; each line through ``shown_text``."""
    from ..records.exposure import shown_text
    if isinstance(value, list):
        print(f"{indent}{shown_text(key)}:")
        for item in value:
            if isinstance(item, dict):
                print(f"{indent}  - " + "; ".join(f"{shown_text(k)}: {shown_text(v)}" for k, v in item.items()))
            else:
                print(f"{indent}  - {shown_text(item)}")
    elif isinstance(value, dict):
        print(f"{indent}{shown_text(key)}:")
        for k, v in value.items():
            _print_field(k, v, indent + "  ")
    else:
        print(f"{indent}{shown_text(key)}: {shown_text(value)}")
