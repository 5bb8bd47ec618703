"""``review``: the memories whose related files changed in git since they were last updated (``derived.driftmarks``),
with the commits since and the commands that settle each."""
from __future__ import annotations

import os

from .main import CLI, CliError, add_command

SHOWN_COMMITS = 10
JSON_COMMITS = 50
SUBJECT_CHARS = 100

HELP = "list memories whose related files changed in git since they were last updated, with the commits since"
EXAMPLES = f"""  {CLI} review
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
    p = add_command(subparsers, common, "review", cmd_review, HELP, EXAMPLES)
    p.add_argument("--json", action="store_true",
                   help='print JSON: {"git", "head", "complete", "count", "stale": [{"id", "category", "title", '
                        '"path", "updated_at", "suffix", "changed", "missing", "commit_count", "commits": '
                        '[{"hash", "short", "date", "subject"}], "commands": {"reviewed", "update", "retire"}}]}')
    p.add_argument("--strict", action="store_true", help="exit 1 when any memory is stale")


def _commands(ident: str, item) -> dict:
    """The commands that settle a stale memory. With entries that name nothing any more, "still
    right" keeps the others (``--related-file`` replaces the list; none left: ``--no-related-files``)."""
    import shlex
    ref = shlex.quote(ident)
    from ..records.exposure import hide
    kept = [e for e in item.entries if e not in item.missing]
    fix = "".join(f" --related-file {shlex.quote(e)}" for e in kept) if kept else " --no-related-files"
    reviewed = f"{CLI} update {ref} --reviewed" + (fix if item.missing else "")
    if any(hide(e) != e or item.shown.get(e, e) != e for e in kept):  # a hidden part is never quoted: edit the file
        reviewed = f"{CLI} edit {ref}"
    return {"reviewed": reviewed, "update": f"{CLI} edit {ref}", "retire": f"{CLI} retire {ref} --reason '...'"}


def item_dict(item) -> dict:
    from datetime import datetime, timezone
    from ..records.exposure import shown_name, shown_text
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
        _print(ctx, found, stale)
    if ctx.args.strict and stale:
        raise CliError(f"{len(stale)} stale memor{'y' if len(stale) == 1 else 'ies'}")
    return 0


def _print(ctx, found, stale: list) -> None:
    from ..base.model import display_name
    from ..base.sanitize import shown_path
    from ..records.relpaths import is_glob
    if not found.items:
        print(f"no memory names related files yet: nothing to review (set them with {CLI} update ID "
              "--related-file PATH)")
        return
    if not found.git:
        print("no git history to compare with (git is missing, this is not a repository, or it has no commit "
              "yet): nothing is marked")
        return
    if not stale:
        print(f"no stale memories ({len(found.items)} with related files checked)")
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
