"""Read-side commands: ``rebuild``, ``list``, ``search``, ``show``; ``demo``: a store from ``templates/demo/`` in a
temporary folder, and what the real prompt hook injects for it; ``eval``: retrieval quality on a labelled folder."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from datetime import datetime, timedelta, timezone

from .main import CATEGORY_ONLY, CLI, JSON_OPT, RESULT_JSON, CliError, UsageError, add_command, flag, opt
from ..base.config import TEMPLATES_DIR, load_config, max_inject
from ..base.fsutil import atomic_write_text
from ..base.model import MEMORY_REL, STATUSES
from ..base.sanitize import display, shown_path
from ..derived.index import index_path
from ..derived.refresh import rebuild_index
from ..recall.block import format_block, sizes
from ..recall.evaluate import METRICS, SPLITS, EvalError, evaluate
from ..recall.matching import get_strategy
from ..recall.retrieve import MIN_PROMPT_CHARS, rank
from ..records.exposure import shown_name, shown_tag, shown_text, shown_value
from ..records.store import (NotARecord, dump_memory, find_memory, iter_memory_files, iter_records, load_memory,
                             project_root_of, record_status)

PLUGIN_ROOT = os.path.dirname(TEMPLATES_DIR)
DEMO_DIR = os.path.join(TEMPLATES_DIR, "demo")
DEMO_PROMPTS = (
    "fix pydantic import error in tests",
    "always prefer type hint convention",
    "what is the rate limit on the partner API?",
    "we should schedule the nightly cron job with celery",
    "write a haiku about autumn leaves",
)

# Why a built-in prompt gets nothing: the demo's one retired memory is about it.
RETIRED_NOTE = {DEMO_PROMPTS[3]: " -- the celery cron memory matches but is retired (superseded), "
                                 "and retired memories are never recalled"}
DEFAULT_FOLDER = os.path.join(PLUGIN_ROOT, "tests", "eval")
LABELS = {"mrr": "MRR", "clear_precision": "precision (clear)", "silent": "silent stays silent",
          "blocked": "negatives w/ block", "empty": "empty (answerable)"}  # the others: the metric's own name
PER_PROMPT = (("injected_per_prompt", "injected per prompt"), ("lines", "lines per prompt"),
              ("bytes", "bytes per prompt"), ("lines_answered", "lines per answered"))


def register(subparsers, common) -> None:
    add_command(subparsers, common, "rebuild", cmd_rebuild,
                "rewrite index.md and the machine cache from the JSON files (atomically, under the store lock)",
                f"  {CLI} rebuild\n  {CLI} rebuild --full\n  {CLI} rebuild --root ~/src/app", RESULT_JSON,
                flag("--full", "re-read every memory file (default: every file is checked, and re-read only when its "
                               "size, time or inode changed since the cache was written)"))
    add_command(subparsers, common, "list", cmd_list, "list memories, newest first",
                f"  {CLI} list\n  {CLI} list --category decision --tag redis\n  {CLI} list --status retired --json",
                CATEGORY_ONLY,
                opt("--tag", "only memories with this tag (repeatable: all must match)", action="append", default=[]),
                opt("--status", "record status (default: active)", choices=STATUSES + ("all",), default="active"),
                JSON_OPT)
    add_command(subparsers, common, "search", cmd_search,
                "rank memories for a prompt exactly as the UserPromptSubmit hook does (prompts under "
                f"{MIN_PROMPT_CHARS} characters inject nothing, in both)",
                f'  {CLI} search "fix pydantic import error in tests"\n'
                f'  {CLI} search "where do we keep sessions" --explain   # also the near misses\n'
                f'  {CLI} search "api auth policy" --json --limit 10',
                opt("prompt", "the prompt text to match"),
                opt("--limit", "how many results (default: retrieval.max_inject)", type=int),
                flag("--explain", "show how each score was made, the prompt's ordinary and distinctive words, and the "
                                  "near misses: their scores and the floor they missed (why the hook stayed silent)"),
                flag("--block", "print the exact <memory-context> block the hook would inject"), JSON_OPT)
    add_command(subparsers, common, "show", cmd_show, "show one memory",
                f"  {CLI} show use-pydantic-v2\n  {CLI} show use-pydantic-v2 --json\n"
                f"  {CLI} show decision/use-pydantic-v2      # one of two files with the same id",
                opt("id", "the memory id (its file name without .json), or category/id or the file's path when two "
                          "folders hold the same id"),
                flag("--json", "print the stored record as JSON (secrets and private sections of hand-edited files "
                               "hidden)"))
    add_command(subparsers, common, "demo", cmd_demo,
                "build a demo store in a temporary folder and show what the hook injects for a few prompts",
                f"  {CLI} demo\n"
                f'  {CLI} demo --prompt "how do we roll back a deploy?"\n'
                f"  {CLI} demo --keep /tmp/demo-project",
                opt("--prompt", "a prompt to try (repeatable; default: a built-in set)", action="append"),
                opt("--keep", "build the demo project in DIR and keep it (DIR must not exist)", metavar="DIR"))
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


def cmd_rebuild(ctx) -> int:
    count = rebuild_index(ctx.memory_root, ctx.config, full=ctx.args.full)
    if ctx.args.json:
        return ctx.print_json({"index": index_path(ctx.memory_root), "entries": count})
    print(f"rebuilt {index_path(ctx.memory_root)}: {count} active memor{'y' if count == 1 else 'ies'}")
    return 0


def _summary(category: str, path: str, record: dict) -> dict:
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
        return ctx.print_json(rows)
    if not rows:
        print("no memories match")
    width = max((len(shown_path(r["id"])) for r in rows), default=0)
    for r in rows:
        status = "" if r["status"] == "active" else f" ({r['status']})"
        print(f"{display(r['updated_at'])[:10]:10}  {r['category']:15}  {ctx.color(shown_path(r['id']).ljust(width), '1')}"
              f"  {display(r['title'])}{status}")
    return 0


def cmd_search(ctx) -> int:
    args = ctx.args
    limit = args.limit if args.limit is not None else max_inject(ctx.config)
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    length = len(args.prompt.strip())
    if length < MIN_PROMPT_CHARS:  # the hook's own minimum: short prompts ("ok", "yes") inject nothing
        if args.json:
            return ctx.print_json([])
        if not args.block:
            print(f"no memory matches: the hook injects nothing for a prompt under {MIN_PROMPT_CHARS} characters "
                  f"(this one has {length}); try a whole question, or: list --tag WORD")
        return 0
    hits = rank(ctx.memory_root, ctx.config, args.prompt, limit)
    if args.block:
        print(format_block(hits, ctx.config, *sizes(ctx.config)), end="")
        return 0
    if args.json:  # the index or cache may be a forged file: what it says is shown through the same rule
        return ctx.print_json([{"id": shown_name(os.path.basename(h.entry["path"])[:-5]), "score": h.score,
                                "category": h.entry["category"].lower(), "title": shown_text(h.entry["title"]),
                                "path": shown_name(h.entry["path"]),
                                "tags": sorted(filter(None, map(shown_tag, h.entry["tags"]))),
                                "parts": shown_value(h.parts)} for h in hits])
    if not hits:
        print("no memory matches")
    for h in hits:
        print(f"{ctx.color(f'{h.score:g}'.rjust(4), '1')}  [{h.entry['category']}] {shown_text(h.entry['title'])} "
              f"-> {shown_name(h.entry['path'])}")
        if args.explain:
            print("      " + ", ".join(f"{k}: {shown_text(v)}" for k, v in h.parts.items()
                                       if v not in ([], 0, None, "")))
    if args.explain:
        from ..recall.evaluate import near_misses, print_near_misses
        notes: list = []
        misses = near_misses(ctx.memory_root, ctx.config, args.prompt, get_strategy(ctx.config), hits, limit, notes)
        print_near_misses(misses, notes)
    return 0


def cmd_show(ctx) -> int:
    found = find_memory(ctx.memory_root, ctx.config, ctx.args.id)
    if found is None:
        raise CliError(f"no memory with id {ctx.args.id!r} (try: {CLI} list)")
    category, path = found
    try:
        raw = load_memory(path)
    except NotARecord as exc:
        raise CliError(f"{shown_name(path)}: {shown_text(exc)}") from None
    record = shown_value(raw)  # every string and key, at any depth: the file may be hand-edited
    if ctx.args.json:
        print(dump_memory(record), end="")
        return 0
    from ..edits.write import content_hash  # a heavy import that search does not need
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
        from ..derived.driftmarks import current_marks
        stale = current_marks(ctx.memory_root, ctx.config).get(
            os.path.relpath(path, project_root_of(ctx.memory_root)).replace(os.sep, "/"))
        if stale:  # its related files changed in git since its last update
            print(f"  stale: {shown_text(stale)}  (see: {CLI} review)")
    for state in ("retired", "archived"):
        if record.get(f"{state}_at") or record.get(f"{state}_reason"):
            print(f"  {state} {shown_text(record.get(f'{state}_at', '?'))}: "
                  f"{shown_text(record.get(f'{state}_reason') or '(no reason given)')}")
    if isinstance(record.get("content"), dict):
        for key, value in record["content"].items():
            _print_field(key, value)
    else:
        print(dump_memory(record), end="")
    if isinstance(record.get("changes"), list) and record["changes"]:
        print("  history:")
        for change in record["changes"]:
            parts = (change.get("date", "?"), change.get("summary", "")) if isinstance(change, dict) else (change,)
            print("    " + "  ".join(map(shown_text, parts)))
    return 0


def _print_field(key: str, value, indent: str = "  ") -> None:
    """One content field of a record already through ``shown_value``; each line through ``shown_text``."""
    if not isinstance(value, (list, dict)):
        print(f"{indent}{shown_text(key)}: {shown_text(value)}")
        return
    print(f"{indent}{shown_text(key)}:")
    for item in value.items() if isinstance(value, dict) else ():
        _print_field(*item, indent + "  ")
    for item in value if isinstance(value, list) else ():
        print(f"{indent}  - " + ("; ".join(f"{shown_text(k)}: {shown_text(v)}" for k, v in item.items())
                                if isinstance(item, dict) else shown_text(item)))


def build_demo_project(project: str) -> str:
    """Copy the demo memories into ``project/.claude/memory`` and index them; returns the memory root."""
    memory_root = os.path.join(project, *MEMORY_REL)
    shutil.copytree(DEMO_DIR, memory_root)
    # The pydantic runbook was "updated 4 days ago", as in the reference's worked example A.
    runbook = os.path.join(memory_root, "runbooks", "fix-pydantic-import.json")
    record = load_memory(runbook)
    record["updated_at"] = (datetime.now(timezone.utc) - timedelta(days=4)).strftime("%Y-%m-%dT%H:%M:%SZ")
    atomic_write_text(runbook, dump_memory(record))
    rebuild_index(memory_root, load_config(memory_root))
    from .install import ensure_gitignore
    ensure_gitignore(project)  # as a real project has: derived files stay out of git
    return memory_root


def cmd_demo(ctx) -> int:
    import subprocess
    prompts = ctx.args.prompt or list(DEMO_PROMPTS)
    project = os.path.abspath(ctx.args.keep) if ctx.args.keep else None
    if project and os.path.exists(project):
        raise CliError(f"{project} already exists; name a new folder for --keep")
    cleanup = None if project else tempfile.mkdtemp(prefix="team-memory-demo-")
    project = project or os.path.join(cleanup, "project")
    try:
        memory_root = build_demo_project(project)
        count = sum(1 for _ in iter_memory_files(memory_root, load_config(memory_root)))
        print(ctx.color(f"Demo store: {count} memories in {memory_root}", "1"))
        print("Each prompt below goes through the real UserPromptSubmit hook; its output is what Claude sees.\n")
        env = dict(os.environ, CLAUDE_PLUGIN_ROOT=PLUGIN_ROOT, CLAUDE_PROJECT_DIR=project)
        for prompt in prompts:
            print(ctx.color(f"> {prompt}", "36"))
            payload = {"session_id": "demo", "transcript_path": "", "cwd": project,
                       "hook_event_name": "UserPromptSubmit", "prompt": prompt}
            out = subprocess.run([sys.executable, os.path.join(PLUGIN_ROOT, "hooks", "user_prompt_submit.py")],
                                 input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=30).stdout
            print(out.rstrip() if out.strip() else "(nothing injected)" + RETIRED_NOTE.get(prompt, ""))
            print()
        if ctx.args.keep:
            print(f"Kept the demo project in {project}; try: {CLI} search "
                  f"\"where do we keep sessions\" --explain --root {project}")
    finally:
        if cleanup:
            shutil.rmtree(cleanup, ignore_errors=True)
    return 0


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
    rows = [(m, LABELS.get(m, m), _pct) for m in METRICS] + [(k, label, _num) for k, label in PER_PROMPT]
    for key, label, cell in rows:
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
