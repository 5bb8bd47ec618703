"""Store upkeep: ``doctor``, ``gc``, ``stats``, ``review`` (memories whose related files changed in git since)."""
from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter

from .main import CLI, JSON_OPT, CliError, NoStore, UsageError, add_command, flag, opt, related_fix
from .doctor import examine, hook_python, repair, store_files, user_plugin_too
from ..base.model import CATEGORIES, STATUSES, display_name
from ..base.safefs import repo_root_of
from ..base.sanitize import shown_path
from ..edits.write import grace_days, purge_retired, retire_past_retention
from ..records.exposure import hide, hide_secrets, shown_message, shown_name, shown_tag, shown_text
from ..records.relpaths import is_glob
from ..records.store import iter_memory_files, iter_records, project_root_of, record_status

SHOWN_COMMITS = 10
JSON_COMMITS = 50
SUBJECT_CHARS = 100

REVIEW_EXAMPLES = f"""  {CLI} review
  {CLI} review --json
  {CLI} review --strict         # exit 1 while a memory is stale (for CI)
  {CLI} update use-redis-for-sessions --reviewed   # still right: clears its mark
  {CLI} retire use-redis-for-sessions --reason 'sessions moved to Postgres'

A memory is stale when a commit after its updated_at (and after the memory's own newest
commit) touched a file its related_files name, or when an entry names nothing any more.
Without git, or outside a repository, nothing is stale.

exit codes: 0 the list was made (stale memories or not), 1 an error, or with --strict
a stale memory, 2 a usage error."""


def register(subparsers, common) -> None:
    add_command(subparsers, common, "doctor", cmd_doctor,
                "check the store: links, stale index, invalid or quarantined files, duplicate ids, near-duplicate "
                "titles, leftover secrets, temp files, merge conflicts; and the Python the hooks start "
                "(a version manager's shim costs every hook call)",
                f"  {CLI} doctor\n  {CLI} doctor --fix          # rebuild the index, delete temp files, redact secrets\n"
                f"  {CLI} doctor --json",
                flag("--fix", "fix what is safe to fix (under the store lock)"),
                flag("--strict", "also fail on warnings (near-duplicate titles)"),
                opt("--temp-age", "report temp files at least this old (default 60: a younger one may belong to a live "
                                  "writer); 0 when you know no writer is running", type=float, default=60.0,
                    metavar="SECONDS"), JSON_OPT)
    add_command(subparsers, common, "gc", cmd_gc,
                "retire session summaries past categories.session_summary.max_retained (5), and delete memories "
                "retired longer ago than delete.grace_period_days (default 30)",
                f"  {CLI} gc --dry-run\n  {CLI} gc\n  {CLI} gc --older-than 90 --json",
                flag("--dry-run", "list what would be retired and deleted, change nothing"),
                opt("--older-than", "override delete.grace_period_days", type=int, metavar="DAYS"), JSON_OPT)
    add_command(subparsers, common, "stats", cmd_stats,
                "count memories per category and status, top tags, oldest and newest, store size",
                f"  {CLI} stats\n  {CLI} stats --json",
                opt("--top", "how many tags to list (default 10)", type=int, default=10), JSON_OPT)
    add_command(subparsers, common, "review", cmd_review,
                "list memories whose related files changed in git since they were last updated, with the commits "
                "since", REVIEW_EXAMPLES,
                flag("--json", 'print JSON: {"git", "head", "complete", "count", "stale": [{"id", "category", "title", '
                               '"path", "updated_at", "suffix", "changed", "missing", "commit_count", "commits": '
                               '[{"hash", "short", "date", "subject"}], "commands": {"reviewed", "update", '
                               '"retire"}}]}'),
                flag("--strict", "exit 1 when any memory is stale"))


def cmd_doctor(ctx) -> int:
    if ctx.args.temp_age < 0:
        raise UsageError("--temp-age must be 0 or more")
    try:
        root = ctx.memory_root
    except NoStore as exc:  # no store yet: the hooks' Python and the installs are checked all the same
        print(f"nothing to show: {hide_secrets(str(exc))}", file=sys.stderr)
        project = repo_root_of(os.getcwd()) or os.getcwd()
        return _doctor_report(ctx, hook_python() + user_plugin_too(project), "the hooks' Python and the installs")
    findings = examine(root, ctx.config, temp_min_age=ctx.args.temp_age) + hook_python()
    findings += user_plugin_too(project_root_of(root))
    if ctx.args.fix and any(f.fixable for f in findings):
        repair(root, ctx.config, findings)
    return _doctor_report(ctx, findings)


def _doctor_report(ctx, findings: list, checked: str = "") -> int:
    """Each finding, then one summary line (``checked``: what was checked when there is no store)."""
    remaining = [f for f in findings if not f.fixed and (not f.warning or ctx.args.strict)]
    if ctx.args.json:
        ctx.print_json({"ok": not remaining, "findings": [f.to_dict() for f in findings]})
        return 1 if remaining else 0
    for f in findings:
        label = ctx.color(*(("fixed  ", "32") if f.fixed else ("warning", "33") if f.warning else ("problem", "31")))
        print(f"{label}  {f.kind:14}  {shown_name(f.path)}: {shown_message(f.message)}")
        if not f.fixed:
            print(f"{'':9}  {'':14}  fix: {shown_message(f.fix)}")
    fixable = sum(1 for f in remaining if f.fixable)
    warned = sum(1 for f in findings if f.warning and not f.fixed)
    summary = (f"{len(remaining)} problem(s) remain" if remaining else
               f"no problems; {warned} warning(s) above" if warned else "the store is healthy")
    if checked:
        summary = f"{checked}: {summary if remaining or warned else 'nothing to fix'}"
    if fixable and not ctx.args.fix:
        summary += f"; {fixable} can be fixed with: {CLI} doctor --fix"
    print(summary)
    return 1 if remaining else 0


def cmd_gc(ctx) -> int:
    args = ctx.args
    config = dict(ctx.config)
    if args.older_than is not None:
        if args.older_than < 0:
            raise UsageError("--older-than must be 0 or more days")
        config["delete"] = dict(config.get("delete") if isinstance(config.get("delete"), dict) else {},
                                grace_period_days=args.older_than)
    sessions = [shown_name(i) for i in retire_past_retention(ctx.memory_root, config, dry_run=args.dry_run)]
    items = [dict(item, id=shown_name(item["id"]), path=shown_name(item["path"]), title=shown_text(item["title"]))
             for item in purge_retired(ctx.memory_root, config, dry_run=args.dry_run)]
    if args.json:
        return ctx.print_json({"dry_run": args.dry_run, "grace_period_days": grace_days(config), "deleted": items,
                               "retired_sessions": sessions})
    if sessions:
        print(f"{'would retire' if args.dry_run else 'retired'} {len(sessions)} older session summar"
              f"{'y' if len(sessions) == 1 else 'ies'} (categories.session_summary.max_retained): {', '.join(sessions)}")
    verb = "would delete" if args.dry_run else "deleted"
    for item in items:
        print(f"{verb} {item['id']} (retired {item['days']} days ago) -> {item['path']}")
    print(f"{verb} {len(items)} memor{'y' if len(items) == 1 else 'ies'} retired more than "
          f"{grace_days(config)} days ago")
    return 0


def store_stats(memory_root: str, config: dict, top: int) -> dict:
    per_category = {c: {s: 0 for s in STATUSES} for c in CATEGORIES}
    tags: Counter = Counter()
    dated, records = [], list(iter_records(memory_root, config))
    for category, path, record in records:
        status = record_status(record)
        if status in STATUSES:
            per_category[category][status] += 1
        if status == "active" and isinstance(record.get("tags"), list):
            tags.update(filter(None, map(shown_tag, record["tags"])))  # hidden before cleaning, as recall lists them
        if isinstance(record.get("created_at"), str):
            dated.append((record["created_at"], os.path.basename(path)[:-5], record["title"]))
    sizes = []
    for path in store_files(memory_root):
        with contextlib.suppress(OSError):
            sizes.append(os.lstat(path).st_size)  # a link's own size, never its target's
    dated.sort()
    ends = [{"id": shown_name(ident), "title": shown_text(title), "created_at": shown_text(created)}
            for created, ident, title in dated[:1] + dated[-1:]] or [None, None]  # the oldest and the newest
    by_status = {s: sum(c[s] for c in per_category.values()) for s in STATUSES}
    from ..derived.driftmarks import current_marks
    return {"store": memory_root, "total": sum(by_status.values()), "by_status": by_status,
            "by_category": per_category,
            "top_tags": [{"tag": t, "count": n} for t, n in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))[:top]],
            "oldest": ends[0], "newest": ends[1],
            "memory_files": sum(1 for _ in iter_memory_files(memory_root, config)),
            "store_files": len(sizes), "store_bytes": sum(sizes),
            "stale": len(current_marks(memory_root, config, records))}  # changed in git since (see: review)


def cmd_stats(ctx) -> int:
    if ctx.args.top < 0:
        raise UsageError("--top must be 0 or more")
    stats = store_stats(ctx.memory_root, ctx.config, ctx.args.top)
    if ctx.args.json:
        return ctx.print_json(stats)
    print(f"{stats['total']} memories in {os.path.relpath(ctx.memory_root, project_root_of(ctx.memory_root))} "
          f"({', '.join(f'{n} {s}' for s, n in stats['by_status'].items())}); "
          f"{stats['store_files']} files, {stats['store_bytes'] / 1024:.1f} KiB")
    print(f"  {'category':16}" + "".join(f"{s:>10}" for s in STATUSES))
    for category, counts in stats["by_category"].items():
        print(f"  {category:16}" + "".join(f"{counts[s]:>10}" for s in STATUSES))
    print(f"  stale: {stats['stale']}" + (f" (files they are about changed in git since; see: {CLI} review)"
                                         if stats["stale"] else ""))
    if stats["top_tags"]:
        print("  top tags: " + ", ".join(f"{t['tag']} ({t['count']})" for t in stats["top_tags"]))
    for which in ("oldest", "newest"):
        if stats[which]:
            print(f"  {which}: {stats[which]['created_at'][:10]}  {stats[which]['id']}  {stats[which]['title']}")
    return 0


def _commands(ident: str, item) -> dict:
    """The commands that settle a stale memory; "still right" drops the entries that name nothing any more."""
    import shlex
    ref = shlex.quote(ident)
    kept = [e for e in item.entries if e not in item.missing]
    reviewed = f"{CLI} update {ref} --reviewed" + (related_fix(kept) if item.missing else "")
    if any(hide(e) != e or item.shown.get(e, e) != e for e in kept):  # a hidden part is never quoted: edit the file
        reviewed = f"{CLI} edit {ref}"
    return {"reviewed": reviewed, "update": f"{CLI} edit {ref}", "retire": f"{CLI} retire {ref} --reason '...'"}


def item_dict(item) -> dict:
    from datetime import datetime, timezone
    ident = shown_name(os.path.basename(item.path)[:-5])
    commits = [{"hash": c.hash, "short": c.hash[:7],
                "date": datetime.fromtimestamp(c.time, timezone.utc).strftime("%Y-%m-%d"),
                "subject": shown_text(c.subject, SUBJECT_CHARS)} for c in item.commits[:JSON_COMMITS]]
    return {"id": ident, "category": item.category, "title": shown_text(item.title),
            "path": shown_name(item.path), "updated_at": shown_text(item.updated), "suffix": item.suffix(),
            "changed": [shown_name(item.shown.get(p, p)) for p in item.changed],
            "missing": [shown_name(item.shown.get(m, m)) for m in item.missing],
            "commit_count": len(item.commits), "commits": commits, "commands": _commands(ident, item)}


def cmd_review(ctx) -> int:
    from ..derived.driftmarks import refresh_marks
    found = refresh_marks(ctx.memory_root, ctx.config, force=True)
    stale = [item_dict(i) for i in found.stale]
    if ctx.args.json:
        ctx.print_json({"git": found.git, "head": found.head, "complete": found.complete,
                        "count": len(stale), "stale": stale})
    else:
        _print_review(ctx, found, stale)
    if ctx.args.strict and stale:
        raise CliError(f"{len(stale)} stale memor{'y' if len(stale) == 1 else 'ies'}")
    return 0


def _print_review(ctx, found, stale: list) -> None:
    nothing = (f"no memory names related files yet: nothing to review (set them with {CLI} update ID "
               "--related-file PATH)" if not found.items else
               "no git history to compare with (git is missing, this is not a repository, or it has no commit "
               "yet): nothing is marked" if not found.git else
               f"no stale memories ({len(found.items)} with related files checked)" if not stale else "")
    if nothing:
        print(nothing)
        return
    why = ", or ".join(text for text, present in (
        ("files they are about changed in git since they were last updated", any(i["commit_count"] for i in stale)),
        ("they name related files that do not exist", any(i["missing"] for i in stale))) if present)
    print(f"{len(stale)} stale memor{'y' if len(stale) == 1 else 'ies'} (oldest change first): {why}")
    if not found.complete:
        print("  (the history or the file list was cut short by a bound: counts may be low)")
    for raw, item in zip(found.stale, stale):  # what an entry is (a glob, a folder) is read from the raw entry
        print()
        print(f"{ctx.color(item['title'], '1')}  [{display_name(item['category'])}]")
        print(f"  {shown_path(item['path'])}, updated {item['updated_at'][:10]}")
        for entry, shown in zip(raw.missing, item["missing"]):
            print(f"  {shown_path(shown)}: " + ("matches no tracked file" if entry.endswith("/") or is_glob(entry)
                                                else "no longer exists" if shown in item["changed"]
                                                else "no such file"))  # (never there, or gone before)
        if item["commit_count"]:
            changed = ", ".join(shown_path(p) for p in item["changed"][:3]) + \
                (f" and {len(item['changed']) - 3} more" if len(item["changed"]) > 3 else "")
            n = item["commit_count"]
            print(f"  {changed} changed since: {n} commit{'' if n == 1 else 's'}")
            for commit in item["commits"][:SHOWN_COMMITS]:
                print(f"    {commit['short']}  {commit['date']}  {commit['subject']}")
            if n > SHOWN_COMMITS:
                print(f"    ... and {n - SHOWN_COMMITS} more (git log -- {shown_path(item['changed'][0])})")
        for label, key in (("still right:", "reviewed"), ("needs changes:", "update"), ("no longer true:", "retire")):
            print(f"  {label:15} {item['commands'][key]}")
