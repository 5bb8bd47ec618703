"""``export`` and ``import``: JSON Lines (YAML with pyyaml), stores of the prior plugin (``edits.transfer``), and
with ``--from-claude-md``/``--from-auto-memory`` ``mdsource`` proposals (one like an existing memory is left out
unless ``--allow-similar``; ``auto_memory_folder`` finds the auto memory where Claude Code keeps it).
An import with any invalid record writes nothing unless ``--skip-invalid`` is given."""
from __future__ import annotations

import json
import os
import struct
import sys
import textwrap

from .main import CATEGORY_ONLY, CLI, CliError, UsageError, add_command, flag, opt, read_source
from .cmd_write import best_similar, print_invalid, problem_dicts, write_root
from ..base.config import load_config
from ..base.fsutil import atomic_write_text
from ..base.model import STATUSES
from ..records.exposure import shown_name, shown_text, shown_value
from ..records.store import repo_root_of
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
        for p in invalid:
            print_invalid(ctx, p.where, p.problems, sys.stderr)
        for r in results:
            if r["action"] == "renamed":
                print(f"renamed {r['from_id']} -> {r['id']} ({r['path']})")
            elif r["action"] == "skipped":
                print(f"skipped {r['id']}: the id is taken (--on-conflict replace or suffix to import it)")
        if not blocked:
            print(f"{'would import' if args.dry_run else 'imported'} {len(results) - counts['skipped']} of "
                  f"{len(prepared)} records ({counts['created']} new, {counts['replaced']} replaced, "
                  f"{counts['renamed']} renamed, {counts['skipped']} skipped, {len(invalid)} invalid)")
        if not blocked and (report["private_sections"] or report["secrets_redacted"]):
            print(f"  removed {report['private_sections']} private section(s), "
                  f"redacted {report['secrets_redacted']} secret(s)")
    if blocked:
        raise CliError(f"{len(invalid)} of {len(prepared)} records are invalid; nothing was imported "
                       "(fix them, or pass --skip-invalid to import the rest)")
    return 0


MAX_AUTO_FILES = 200


def _java_hash36(text: str) -> str:
    """The client's short hash of a long path: a 32-bit string hash over UTF-16 units, base 36."""
    h, data = 0, text.encode("utf-16-le", "surrogatepass")
    for unit in struct.unpack(f"<{len(data) // 2}H", data):
        h = (h * 31 + unit) & 0xFFFFFFFF
    n, out = abs(h - (1 << 32) if h >= 1 << 31 else h), ""
    while n or not out:
        n, r = divmod(n, 36)
        out = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + out
    return out


def project_key(project: str) -> str:
    """The folder name Claude Code gives a project under ``projects/``."""
    key = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in project)
    return key if len(key) <= 200 else f"{key[:200]}-{_java_hash36(project)}"


def auto_memory_folder(project: str) -> str:
    """The folder where Claude Code (2.1.330) keeps a project's auto memory."""
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(config_dir, "projects", project_key(project), "memory")


def auto_memory_files(folder: str) -> list:
    """``MEMORY.md`` first, then the other ``.md`` files, by name; regular files only."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    files = sorted((n for n in names if n.lower().endswith(".md") and not n.startswith(".")),
                   key=lambda n: (n != "MEMORY.md", n))
    return [os.path.join(folder, n) for n in files[:MAX_AUTO_FILES]]


def _shown(path: str) -> str:
    """A source path as the report names it: relative to the working folder when inside it."""
    rel = os.path.relpath(os.path.abspath(path))
    return shown_name(path if rel.startswith("..") else rel.replace(os.sep, "/"))


def _sources(args) -> list:
    """``[(path, shown name, source tag, is MEMORY.md)]`` to read; ``CliError`` for a folder with nothing to read."""
    out = [(path, _shown(path), "claude-md", False) for path in args.from_claude_md or []]
    if args.from_auto_memory is not None:
        folder = args.from_auto_memory
        if not folder:
            start = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
            project = repo_root_of(start) or os.path.abspath(start)
            folder = auto_memory_folder(project)
            if not os.path.isdir(folder) and project != os.path.abspath(start):
                folder = auto_memory_folder(os.path.abspath(start))
        folder = os.path.expanduser(folder)
        files = auto_memory_files(folder)
        if not files:
            raise CliError(f"no auto memory at {shown_name(folder)}: no MEMORY.md or other .md file there "
                           "(Claude Code writes it once auto memory has saved something; name another folder "
                           "with --from-auto-memory PATH)")
        out += [(path, "auto memory " + shown_name(os.path.basename(path)), "auto-memory",
                 os.path.basename(path) == "MEMORY.md") for path in files]
    return out


def import_markdown(ctx) -> int:
    from .mdsource import proposals  # (the Markdown reader: only this import needs it)
    args = ctx.args
    sources = _sources(args)
    try:
        root = ctx.memory_root
    except CliError:
        root = None
    found, notes, config = [], [], load_config(root)
    for path, shown, tag, index in sources:  # every source read before anything is written
        try:
            items, more = proposals(path, config, tag, shown, index)
        except (OSError, ValueError) as exc:  # (an UnsafePath is an OSError)
            raise CliError(f"cannot read {shown}: {exc}") from None
        found += items
        notes += more
    if root is None and not args.dry_run:
        root = write_root(ctx)  # a dry run never starts a store
    config = load_config(root)
    prepared = prepare([(f"{p.source}:{p.lines}", p.record) for p in found], config)
    rows = []  # (proposal, prepared item, the id of an existing memory like it)
    for proposal, item in zip(found, prepared):
        record, similar = item.record, None
        if root and not item.problems and not args.allow_similar:
            best = best_similar(root, config, record["category"], record["title"], record.get("tags", ()))
            similar = best["id"] if best and best["id"] != record["id"] else None
        rows.append((proposal, item, similar))
    blocked = any(item.problems for _, item, _ in rows) and not args.skip_invalid
    to_write = [item.record for _, item, similar in rows if not item.problems and not similar]
    results = []
    if not blocked and to_write:
        results = import_records(root, config, to_write, args.on_conflict, args.dry_run) if root else \
            [{"id": r["id"], "from_id": r["id"], "action": "created", "path": None} for r in to_write]
    report = _report(ctx, rows, iter(results), notes, blocked)
    if args.json:
        ctx.print_json(report)
    if blocked:
        raise CliError(f"{report['invalid']} of {len(rows)} proposed memories are invalid; nothing was imported "
                       "(fix the source, or pass --skip-invalid to import the rest)")
    return 0


def _report(ctx, rows, results, notes, blocked) -> dict:
    """The import's report, printed for a person as it is built unless ``--json``."""
    dry_run, say = ctx.args.dry_run, not ctx.args.json
    for note in notes if say else ():
        print(f"note: {note}", file=sys.stderr)
    memories = []
    for proposal, item, similar in rows:
        where, record = f"{proposal.source}:{proposal.lines}", item.record
        entry = {"source": proposal.source, "lines": proposal.lines, "category_from": proposal.why}
        memories.append(entry)
        if item.problems:
            entry.update(action="invalid", problems=problem_dicts(item.problems))
            if say:
                print_invalid(ctx, where, item.problems, sys.stderr)
            continue
        result = None if similar else next(results, None)
        if similar:
            entry.update(action="similar", similar_to=similar, record=record)
        elif result:
            entry.update(action=result["action"], id=result["id"], path=result["path"], record=record)
        else:
            entry.update(action="not imported", record=record)
        if say and dry_run:
            print(f"{where}  {record['category']}  {shown_text(record['title'])}  (category from {proposal.why})")
            print(f"    id: {shown_name(record['id'])}   tags: {', '.join(shown_text(t) for t in record['tags'])}")
            print(textwrap.indent(json.dumps(shown_value(record["content"]), indent=2, ensure_ascii=False), "    "))
        if say and similar:
            print(f"left out {where}: like the existing memory {similar} (update that one, or pass --allow-similar)")
    n = {a: sum(1 for m in memories if m["action"] == a)
         for a in ("created", "replaced", "renamed", "skipped", "similar", "invalid")}
    report = {"ok": not blocked, "dry_run": dry_run, "read": len(rows), **n,
              "private_sections": sum(item.private_sections for _, item, _ in rows),
              "secrets_redacted": sum(item.secrets_redacted for _, item, _ in rows),
              "notes": notes, "memories": memories}
    if say and not blocked:
        print(f"{'would import' if dry_run else 'imported'} {n['created'] + n['replaced'] + n['renamed']} of "
              f"{len(rows)} proposed memories ({n['created']} new, {n['replaced']} replaced, {n['renamed']} "
              f"renamed, {n['skipped']} already there, {n['similar']} like an existing one, {n['invalid']} invalid)")
        if n["skipped"]:
            print(f"  {n['skipped']} already there (same id: imported before); --on-conflict replace rewrites them")
        if report["private_sections"] or report["secrets_redacted"]:
            print(f"  removed {report['private_sections']} private section(s), "
                  f"redacted {report['secrets_redacted']} secret(s)")
    held = [m for m in memories if m["action"] in ("created", "replaced", "renamed", "skipped")]
    if say and held and not dry_run:
        print("source lines now held as memories (shorten the source if you like: recall brings them back "
              "when a prompt needs them):")
        for m in held:
            print(f"  {m['source']}:{m['lines']}  -> {m['id']}")
    return report
