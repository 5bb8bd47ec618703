"""``export`` and ``import``: JSON Lines (YAML with pyyaml), and stores of the prior plugin (``edits.transfer``).
An import with any invalid record writes nothing unless ``--skip-invalid`` is given."""
from __future__ import annotations

import sys

from .main import CATEGORY_ONLY, CLI, CliError, UsageError, add_command, flag, opt, read_source
from .cmd_write import print_invalid, problem_dicts, write_root
from ..base.config import load_config
from ..base.fsutil import atomic_write_text
from ..base.model import STATUSES
from ..edits.transfer import (CONFLICT_MODES, FORMATS, TransferError, claude_memory_entries, dumps, export_records,
                       format_for, import_records, loads, prepare)


FORMAT = opt("--format", "jsonl or yaml (default: from the file name, else jsonl)", choices=FORMATS)


def register(subparsers, common) -> None:
    add_command(subparsers, common, "export", cmd_export,
                "write memories as JSON Lines (one record per line), or YAML when pyyaml is installed",
                f"  {CLI} export > memories.jsonl\n"
                f"  {CLI} export --output backup.jsonl --status active --category decision\n"
                f"  {CLI} export --output memories.yaml        # YAML (needs pyyaml)",
                opt(("--output", "-o"), "write to FILE (default: stdout)", metavar="FILE"), FORMAT,
                opt("--status", "which memories (default: all)", choices=STATUSES + ("all",), default="all"),
                CATEGORY_ONLY)
    add_command(subparsers, common, "import", cmd_import,
                "add memories from JSON Lines or YAML, from a store of the prior plugin, or from what the "
                "team wrote for Claude (CLAUDE.md, rules files, Claude Code's auto memory); "
                "every record is validated first",
                f"  {CLI} import memories.jsonl\n"
                f"  {CLI} import backup.jsonl --on-conflict replace --json\n"
                f"  cat memories.jsonl | {CLI} import - --skip-invalid\n"
                f"  {CLI} import --from-claude-memory ~/src/old-project --dry-run\n"
                f"  {CLI} import --from-claude-md CLAUDE.md --dry-run      # see each proposed memory first\n"
                f"  {CLI} import --from-claude-md CLAUDE.md --from-claude-md .claude/rules/testing.md\n"
                f"  {CLI} import --from-auto-memory                       # this project's auto memory\n"
                f"  {CLI} import --from-auto-memory ~/.claude/projects/-src-app/memory --json",
                opt("source", "the file to read (- for stdin)", nargs="?", metavar="FILE|-"),
                opt("--from-claude-memory", "read a store written by the prior plugin (a project folder or its "
                                            ".claude/memory)", metavar="PATH"),
                opt("--from-claude-md", "read a Markdown file written for Claude (CLAUDE.md, CLAUDE.local.md, "
                                        ".claude/rules/*.md; repeat for several): one memory per bullet, paragraph or "
                                        "numbered list; the file is never changed", metavar="PATH", action="append"),
                opt("--from-auto-memory", "read Claude Code's auto memory (MEMORY.md and its topic files): this "
                                          "project's folder, or the folder PATH", metavar="PATH", nargs="?", const=""),
                flag("--allow-similar", "with --from-claude-md/--from-auto-memory: import a piece even when `similar` "
                                        "finds an existing memory like it (default: leave it out and name the memory)"),
                FORMAT, opt("--on-conflict", "when an id is taken: skip the record (default), replace the memory, or "
                                             "add a -2 suffix", choices=CONFLICT_MODES, default="skip"),
                flag("--skip-invalid", "import the valid records, report the others"),
                flag("--dry-run", "report what would happen, write nothing"),
                flag("--json", "print the report as JSON"))


def cmd_export(ctx) -> int:
    args = ctx.args
    fmt = format_for(args.output, args.format)
    records = export_records(ctx.memory_root, ctx.config, args.status, args.category)
    try:
        text = dumps(records, fmt)
    except TransferError as exc:
        raise CliError(str(exc)) from None
    if args.output and args.output != "-":
        try:
            atomic_write_text(args.output, text)
        except OSError as exc:
            raise CliError(f"cannot write {args.output}: {exc}") from None
        print(f"exported {len(records)} memories to {args.output} ({fmt})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_import(ctx) -> int:
    args = ctx.args
    if args.from_claude_md or args.from_auto_memory is not None:
        if args.source or args.from_claude_memory:
            raise UsageError("--from-claude-md and --from-auto-memory go together, without FILE or --from-claude-memory")
        from .cmd_mdimport import import_markdown
        return import_markdown(ctx)
    if args.from_claude_memory and args.source:
        raise UsageError("give either FILE or --from-claude-memory PATH, not both")
    if not (args.source or args.from_claude_memory):
        raise UsageError("give the FILE to import (- for stdin), or --from-claude-memory PATH")
    try:
        entries = claude_memory_entries(args.from_claude_memory) if args.from_claude_memory else \
            loads(read_source(args.source, "the import", limit=None), format_for(args.source, args.format))
    except TransferError as exc:
        raise CliError(str(exc)) from None
    root = write_root(ctx)
    config = load_config(root)
    prepared = prepare(entries, config)
    invalid, valid = [p for p in prepared if p.problems], [p for p in prepared if not p.problems]
    blocked = bool(invalid) and not args.skip_invalid
    results = [] if blocked else import_records(root, config, [p.record for p in valid], args.on_conflict, args.dry_run)
    counts = {a: sum(1 for r in results if r["action"] == a) for a in ("created", "replaced", "renamed", "skipped")}
    report = {"ok": not blocked, "dry_run": args.dry_run, "read": len(prepared), **counts,
              "invalid": [{"where": p.where, "problems": problem_dicts(p.problems)} for p in invalid],
              "private_sections": sum(p.private_sections for p in valid),
              "secrets_redacted": sum(p.secrets_redacted for p in valid), "memories": results}
    if args.json:
        ctx.print_json(report)
    else:
        _print_import(ctx, report, invalid)
    if blocked:
        raise CliError(f"{len(invalid)} of {len(prepared)} records are invalid; nothing was imported "
                       "(fix them, or pass --skip-invalid to import the rest)")
    return 0


def _print_import(ctx, report: dict, invalid: list) -> None:
    for p in invalid:
        print_invalid(ctx, p.where, p.problems, sys.stderr)
    for r in report["memories"]:
        if r["action"] == "renamed":
            print(f"renamed {r['from_id']} -> {r['id']} ({r['path']})")
        elif r["action"] == "skipped":
            print(f"skipped {r['id']}: the id is taken (--on-conflict replace or suffix to import it)")
    if report["ok"]:
        print(f"{'would import' if report['dry_run'] else 'imported'} {len(report['memories']) - report['skipped']} "
              f"of {report['read']} records ({report['created']} new, {report['replaced']} replaced, "
              f"{report['renamed']} renamed, {report['skipped']} skipped, {len(invalid)} invalid)")
    if report["ok"] and (report["private_sections"] or report["secrets_redacted"]):
        print(f"  removed {report['private_sections']} private section(s), "
              f"redacted {report['secrets_redacted']} secret(s)")
