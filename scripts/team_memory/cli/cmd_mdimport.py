"""``import --from-claude-md PATH`` and ``import --from-auto-memory [PATH]``: ``mdsource`` proposals, prepared and
written as ``transfer`` imports; one like an existing memory (``similar``) is left out unless ``--allow-similar``.

Claude Code (2.1.330) keeps a project's auto memory in ``<config dir>/projects/<key>/memory/``: the config dir
is ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``; the key is the repository root's path with every character but
ASCII letters and digits as ``-``, cut at 200 characters and given the client's short hash of the path.
"""
from __future__ import annotations

import json
import os
import struct
import sys
import textwrap

from ..base.config import load_config
from ..records.exposure import shown_name, shown_text, shown_value
from ..edits.transfer import import_records, prepare
from ..records.store import repo_root_of
from .cmd_write import best_similar, print_invalid, write_root
from .main import CliError
from .mdsource import proposals

MAX_AUTO_FILES = 200


def _java_hash36(text: str) -> str:
    """The client's short hash of a long path: a 32-bit string hash over UTF-16 units, base 36."""
    h, data = 0, text.encode("utf-16-le", "surrogatepass")
    for unit in struct.unpack(f"<{len(data) // 2}H", data):
        h = (h * 31 + unit) & 0xFFFFFFFF
    n, out = abs(h - (1 << 32) if h >= 1 << 31 else h), ""
    while True:
        n, r = divmod(n, 36)
        out = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + out
        if not n:
            return out


def project_key(project: str) -> str:
    """The folder name Claude Code gives a project under ``projects/``."""
    key = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in project)
    return key if len(key) <= 200 else f"{key[:200]}-{_java_hash36(project)}"


def auto_memory_folder(project: str) -> str:
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
    invalid = sum(1 for _, item, _ in rows if item.problems)
    blocked = bool(invalid) and not args.skip_invalid
    to_write = [item.record for _, item, similar in rows if not item.problems and not similar]
    results = []
    if not blocked and to_write:
        results = import_records(root, config, to_write, args.on_conflict, args.dry_run) if root else \
            [{"id": r["id"], "from_id": r["id"], "action": "created", "path": None} for r in to_write]
    report = _report(ctx, rows, iter(results), notes, blocked)
    if args.json:
        ctx.print_json(report)
    if blocked:
        raise CliError(f"{invalid} of {len(rows)} proposed memories are invalid; nothing was imported "
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
            entry.update(action="invalid", problems=[{"field": q.field, "message": q.message, "hint": q.hint}
                                                     for q in item.problems])
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
