"""Write-side commands (errors: exit 1, nothing written), ``similar``, ``edit`` (its loop: ``edits.editing``); ``add``
without its flags asks on a terminal for each ``recordspec.CONTENT`` field, on stderr (input ending: a ``CliError``)."""
from __future__ import annotations

import json
import os
import re
import sys
import textwrap

from .main import (CLI, RESULT_JSON, CliError, NoStore, UsageError, add_command, flag, group, opt, read_source,
                   related_args, related_fix)
from ..base.config import load_config
from ..base.fsutil import atomic_write_text
from .viewdupes import SIMILAR_THRESHOLD, similarity
from ..base.cliname import cli_command
from ..base.model import CATEGORIES, CONFIG_NAME, MEMORY_REL, display_name, topic_tags
from ..base.safefs import check_store
from ..base.sanitize import clean_tag, shown_path
from ..derived.index import entry_from_record
from ..edits.editing import RECOVERY_DAYS, EditAborted, edit_session
from ..edits.write import WriteError, content_hash, create_memory, sessions_past_retention, set_status, update_memory
from ..records.exposure import name_is_shown, shown_message, shown_name, shown_related, shown_text
from ..records.privacy import PrivateTagError
from ..records.relpaths import is_glob, usable
from ..records.store import find_memory, iter_memory_files, iter_records, load_memory, project_root_of, \
    record_status, repo_root_of
from ..records.recordspec import CONTENT
from ..records.validate import ValidationError, check_file, format_problems, is_date
from ..text.tokens import tokenize


RELATED_HELP = ("a file (app/session.py), folder (app/) or glob ('billing/**/*.sql') this memory is about, "
                "relative to the repository root (repeat for more)")
ID = opt("id", "the memory id; when two folders hold the same id, name one as category/id (decision/use-redis) or "
               "by its path (.claude/memory/decisions/use-redis.json)")
CONFIDENCE = opt("--confidence", "how sure this is, 0 to 1", type=float)
FORCE = flag("--force", "create even if a memory with this id was retired < 24 h ago")


def _content_opts(what: str = "the content object") -> tuple:
    return group(opt("--content-json", f"{what}, as JSON text", metavar="JSON"),
                 opt("--content-file", f"{what}, from a JSON file", metavar="FILE"),
                 opt("stdin", f"read {what} as JSON from stdin", nargs="?", choices=["-"]))


def register(subparsers, common) -> None:
    add_command(subparsers, common, "add", cmd_add,
                "create a memory from options (content as JSON); on a terminal, asks for what is missing",
                f"  {CLI} add                   # on a terminal: asks for the category, title, tags and fields\n"
                f"  {CLI} add --category decision --title 'Use Redis for sessions' --tag redis --tag sessions \\\n"
                """      --content-json '{"status": "accepted", "context": "...", "decision": "...", "rationale": ["..."]}'\n"""
                f"  {CLI} add --category runbook --title 'Fix flaky login test' --tag tests --content-file steps.json\n"
                f"  echo '{{...}}' | {CLI} add --category preference --title 'Tabs in Makefiles' --tag make -\n"
                f"  {CLI} add --category constraint --title 'Keep the retry loop' --tag billing "
                "--related-file billing/export.py --related-file 'billing/**/*.sql' --content-file rule.json",
                opt("--category", "the memory's category (asked on a terminal)", choices=CATEGORIES),
                opt("--title", "a short title, 1-120 characters (asked on a terminal)"),
                opt("--tag", "a lowercase tag (repeat: 1 to 12)", action="append", default=[]), _content_opts(),
                opt("--related-file", RELATED_HELP, action="append", metavar="PATH"), CONFIDENCE, FORCE, RESULT_JSON)
    add_command(subparsers, common, "save", cmd_save, "create a memory from a whole JSON record (how Claude saves)",
                f"""  {CLI} save --record '{{"category": "decision", "title": "Use Valkey for sessions", "tags": ["valkey"], "related_files": ["app/session.py"], "content": {{...}}}}'\n"""
                f"  {CLI} save --input record.json\n"
                f"""  echo '{{"category": "preference", "title": "...", "tags": ["x"], "content": {{...}}}}' | {CLI} save --input - --json""",
                group(opt("--record", "the record as one JSON argument (in single quotes; an apostrophe inside it "
                                      "as '\\'')", metavar="JSON"),
                      opt("--input", "the record as JSON, from a file or - for stdin", metavar="FILE|-"),
                      required=True),
                FORCE, RESULT_JSON)
    add_command(subparsers, common, "update", cmd_update, "change a memory's title, tags or content keys",
                f"  {CLI} update use-redis-for-sessions --tag redis --tag sessions --tag cache\n"
                f"""  {CLI} update session-2026-02 --content-json '{{"next_actions": ["ship it"]}}' --summary 'next steps'\n"""
                f"  {CLI} update use-redis-for-sessions --title 'Use Valkey for sessions' --expect-hash $(sha256sum FILE | cut -c1-64)\n"
                f"  {CLI} update use-redis-for-sessions --related-file app/session.py --related-file app/cache/   # replaces them\n"
                f"  {CLI} update use-redis-for-sessions --no-related-files   # removes them all\n"
                f"  {CLI} update use-redis-for-sessions --reviewed   # still right after its files changed (see: review)",
                ID, opt("--title", "the new title"),
                opt("--tag", "the new tags (repeat; replaces all tags)", action="append"),
                _content_opts("content keys to replace (null removes an optional key)"),
                group(opt("--related-file", RELATED_HELP + "; replaces all of them", action="append", metavar="PATH"),
                      flag("--no-related-files", "remove every related file")),
                CONFIDENCE,
                opt("--expect-hash", "refuse if the file's SHA-256 is no longer H (at least 12 hex digits)",
                    metavar="H"),
                flag("--reviewed", "the memory was checked against its related files and is still right: moves "
                                   "updated_at (clearing its stale mark, see: review) even with no other change"),
                opt("--summary", "what changed and why (kept in the memory's changes)"), RESULT_JSON)
    for verb, help_text, needs in (("retire", "retire a memory that is no longer true (kept, never recalled)", True),
                                   ("archive", "archive a memory that is still true but no longer useful", True),
                                   ("restore", "bring a retired memory back", False),
                                   ("unarchive", "bring an archived memory back", False)):
        example = f"  {CLI} {verb} use-celery-beat-for-cron" + (" --reason 'moved to the platform scheduler'" if needs else "")
        add_command(subparsers, common, verb, cmd_status, help_text, example, ID,
                    opt("--reason", "why" + ("" if needs else " (optional)"), required=needs),
                    RESULT_JSON).set_defaults(verb=verb)
    add_command(subparsers, common, "validate", cmd_validate,
                "check memory files against the schema (all files when no PATH is given)",
                f"  {CLI} validate\n  {CLI} validate .claude/memory/decisions/use-redis-for-sessions.json --json",
                opt("paths", "memory files or folders", nargs="*", metavar="PATH"),
                flag("--json", "print the results as JSON"))
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
    add_command(subparsers, common, "edit", cmd_edit,
                "edit a memory's JSON in $EDITOR (then $VISUAL, then vi); validated on save, never lost",
                f"  {CLI} edit use-redis-for-sessions\n"
                f"  EDITOR='code --wait' {CLI} edit use-redis-for-sessions\n"
                f"  {CLI} edit use-redis-for-sessions --from "
                "~/.local/state/team-memory/recovery/use-redis-for-sessions.X.json",
                opt("id", "the memory id, or category/id or the file's path (one of two files with one id); a broken "
                          "file (bad JSON, not UTF-8, invalid) opens as raw text, saved once it validates"),
                opt("--from", "start from this text (a recovery file) instead of the stored memory", dest="from_file",
                    metavar="FILE"), RESULT_JSON)


def _parse_json(text: str, where: str, source: str | None = None):
    """``text`` as JSON, read from ``source`` (a file, ``-``: stdin) when it is given."""
    if source is not None:
        text = read_source(source, where)
        where += " (stdin)" if source == "-" else f" {source}"
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CliError(f"{where} is not valid JSON: {exc}") from None


def _content_of(args):
    if args.content_json is not None:
        return _parse_json(args.content_json, "--content-json")
    if args.content_file or args.stdin:
        return _parse_json("", "--content-file" if args.content_file else "content", args.content_file or "-")


STORE_GITIGNORE = "# team-memory: derived and local files; commit the JSON memories\nindex.md\n.lock\n"


def write_root(ctx) -> str:
    """The store to write to; started (never through a linked .claude, with a .gitignore naming the derived files)
    where ``--root`` names a project folder without one, or the repository has none yet."""
    try:
        return ctx.memory_root
    except NoStore:
        root = getattr(ctx.args, "root", None)
        if root and not os.path.isdir(root):
            raise
        here = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        project = os.path.abspath(root) if root else repo_root_of(here)
        if project is None:
            raise CliError(f"nothing was saved: {shown_path(here)} is not inside a git repository and has no memory "
                           "store (.claude/memory); run inside a repository (git init makes one) or pass --root "
                           "PROJECT-FOLDER") from None
    nested = os.path.join(project, *MEMORY_REL)
    check_store(nested)
    os.makedirs(nested, exist_ok=True)
    ignore = os.path.join(nested, ".gitignore")
    if not os.path.lexists(ignore):
        atomic_write_text(ignore, STORE_GITIGNORE)
    print(f"created the memory store {nested} (commit it to share the memories with your team)", file=sys.stderr)
    ctx.memory_root = nested
    return nested


def problem_dicts(problems) -> list:
    return [{"field": shown_message(p.field), "message": shown_message(p.message), "hint": shown_message(p.hint)}
            for p in problems]


def print_invalid(ctx, where: str, problems, file=None) -> None:
    print(ctx.color(f"invalid {where}", "31"), file=file)
    print(textwrap.indent(format_problems(problems), "  "), file=file)


def _write(ctx, func, *args, warn: bool = False, **kwargs) -> int:
    """Report ``func``'s result (``warn``: and missing related files); its known errors become a ``CliError``."""
    try:
        result = func(*args, **kwargs)
    except ValidationError as exc:
        if ctx.args.json:
            ctx.print_json({"ok": False, "error": f"{exc.where} is invalid", "problems": problem_dicts(exc.problems)})
        else:
            print(format_problems(exc.problems, exc.where), file=sys.stderr)
        raise CliError(f"{exc.where}: {len(exc.problems)} problem(s); nothing was written") from None
    except (PrivateTagError, WriteError) as exc:
        if ctx.args.json:
            ctx.print_json({"ok": False, "error": str(exc), "problems": []})
        raise CliError(f"{exc}") from None
    if warn:
        _warn_missing(ctx, result)
    return report(ctx, result)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def report(ctx, result) -> int:
    base, _, number = result.id.rpartition("-")
    note = None  # set when a new memory got a -2 style id because its title's id was taken: it points to update
    if result.action == "created" and base and number.isdecimal() and find_memory(ctx.memory_root, ctx.config, base):
        note = (f"{base!r} already exists, so this one is {result.id!r}; if it is the same thing, update "
                f"{base} instead (see: similar --category {result.category} --title ...) and retire {result.id}")
    if ctx.args.json:
        return ctx.print_json(dict(result._asdict(), ok=True, **({"note": note} if note else {})))
    print(f"{result.action} {shown_name(result.id)} -> {shown_name(result.path)}")
    if note:
        print(f"  note: {shown_message(note)}")
    if result.private_sections or result.secrets_redacted:
        print(f"  removed {_plural(result.private_sections, 'private section')}, "
              f"redacted {_plural(result.secrets_redacted, 'secret')}")
    past = len(sessions_past_retention(ctx.memory_root, ctx.config)) if result.category == "session_summary" else 0
    if past:
        print(f"  note: {past} older session summar{'y' if past == 1 else 'ies'} past categories.session_summary."
              f"max_retained stay active until '{CLI} gc' retires them (it asks first: they may be teammates')")
    return 0


def _warn_missing(ctx, result) -> None:
    """One stderr line when the related files name a file not there (kept: it may be about to be created)."""
    from ..derived.driftmarks import exists_unlinked
    try:
        entries = usable(load_memory(result.path).get("related_files"))
    except (OSError, ValueError, AttributeError):
        return
    project = project_root_of(os.path.dirname(os.path.dirname(result.path)))  # <store>/<folder>/<id>.json
    missing = [e for e in entries if not is_glob(e) and not e.endswith("/") and exists_unlinked(project, e) is False]
    if not missing:
        return
    one = len(missing) == 1  # the entries may be a teammate's: shown as everything else is
    names = ", ".join(shown_text(e, 200) for e in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    what = (f"warning: related_files name {'a file' if one else 'files'} not in the work tree: {names} (kept; review "
            f"lists this memory as stale while {'it is' if one else 'they are'} missing)")
    if getattr(ctx.args, "reviewed", False):
        fix = related_fix([e for e in entries if e not in missing])
        what += f"; to clear the mark, drop {'it' if one else 'them'}: {CLI} update {result.id} --reviewed{fix}"
    print(what, file=sys.stderr)


def cmd_add(ctx) -> int:
    args = ctx.args
    content = _content_of(args)
    record = {"category": args.category, "title": args.title, "tags": args.tag,
              "content": {} if content is None else content}
    missing = not (args.category and args.title)
    if sys.stdin.isatty() and (missing or content is None):
        record = ask_record({k: v for k, v in record.items() if v})  # the input ending: a CliError
    elif missing:  # without content, validation names every missing field
        raise UsageError("add needs --category and --title (run it on a terminal to be asked for each field)")
    root = write_root(ctx)
    if args.related_file:
        record["related_files"] = related_args(root, args.related_file)
    if args.confidence is not None:
        record["confidence"] = args.confidence
    return _write(ctx, create_memory, root, load_config(root), record, force=args.force)


def cmd_save(ctx) -> int:
    args = ctx.args
    record = _parse_json(args.record, "--record") if args.record is not None else _parse_json("", "--input", args.input)
    root = write_root(ctx)
    return _write(ctx, create_memory, root, load_config(root), record, warn=True, force=args.force)


def cmd_update(ctx) -> int:
    args = ctx.args
    changes = {key: value for key, value in (("title", args.title), ("tags", args.tag), ("content", _content_of(args)))
               if value is not None}
    if args.related_file is not None or args.no_related_files:
        changes["related_files"] = related_args(ctx.memory_root, args.related_file or [])
    if args.confidence is not None:  # after related_files: the order names the change in its history
        changes["confidence"] = args.confidence
    return _write(ctx, update_memory, ctx.memory_root, ctx.config, args.id, changes, expect_hash=args.expect_hash,
                  summary=args.summary, reviewed=args.reviewed, warn="related_files" in changes or args.reviewed)


def cmd_status(ctx) -> int:
    return _write(ctx, set_status, ctx.memory_root, ctx.config, ctx.args.id, ctx.args.verb, ctx.args.reason)


def cmd_validate(ctx) -> int:
    files = [p for _, p in iter_memory_files(ctx.memory_root, ctx.config)] if not ctx.args.paths else []
    for raw in ctx.args.paths:
        if os.path.isdir(raw):
            for folder, dirs, names in os.walk(raw):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files += [os.path.join(folder, n) for n in sorted(names)
                          if n.endswith(".json") and not n.startswith(".") and n != CONFIG_NAME]
        elif os.path.exists(raw):
            files.append(raw)
        else:
            raise CliError(f"no such file or folder: {raw}")
    in_store = not ctx.args.paths  # the whole store: its config and root are known already
    results = [(path, check_file(path, ctx.config, ctx.memory_root) if in_store else check_file(path))
               for path in files]
    invalid = [r for r in results if r[1]]
    if ctx.args.json:
        ctx.print_json([{"path": shown_name(p), "valid": not probs, "problems": problem_dicts(probs)}
                        for p, probs in results])
    else:
        for path, problems in invalid:
            print_invalid(ctx, shown_name(path), problems)
        print(f"{_plural(len(results), 'file')} checked, {len(invalid)} invalid")
    return 1 if invalid else 0


def best_similar(memory_root: str, config: dict, category: str, title: str, tags=(), related=()) -> dict | None:
    """The active memory of ``category`` most like the new one (3+ points), or None; ``why`` says what it shares."""
    words = tokenize(title) | set(topic_tags(t for t in (clean_tag(tag) for tag in tags) if t))
    files = usable(list(related))
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


def _again() -> bool:
    print("Press Enter to edit again (your text is kept), or q and Enter to stop: ", end="", file=sys.stderr,
          flush=True)
    line = sys.stdin.readline()
    return bool(line) and line.strip().lower() not in ("q", "quit", "n", "no")


def cmd_edit(ctx) -> int:
    args = ctx.args
    found = find_memory(ctx.memory_root, ctx.config, args.id)
    if found is None:
        raise CliError(f"no memory with id {args.id!r} (try: {CLI} list --status all)")
    start = read_source(args.from_file, "--from") if args.from_file else None
    try:
        result = edit_session(ctx.memory_root, ctx.config, os.path.basename(found[1])[:-5], found[1], start, _again,
                              lambda problems: print(f"the memory was not saved:\n{format_problems(problems)}",
                                                     file=sys.stderr))
    except EditAborted as exc:
        message = str(exc)
        if exc.recovery:
            message += (f"; your text (private sections and secrets removed) is kept for {RECOVERY_DAYS} days in "
                        f"{exc.recovery} (continue with: {CLI} edit {args.id} --from {exc.recovery})")
        raise CliError(message) from None
    except ValueError as exc:  # WriteError before the editor opened
        raise CliError(str(exc)) from None
    if result is None and args.json:
        return ctx.print_json({"ok": True, "id": args.id, "action": "unchanged"})
    if result is None:
        print(f"no changes to {args.id}; nothing was written")
        return 0
    return report(ctx, result)


def _ask(prompt: str) -> str:
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        sys.stderr.write("\n")
        raise CliError("input ended before the memory was complete; nothing was saved")
    return line.strip()


def _text(label: str, required: bool, parse=None, hint: str = "", optional: str = " (optional)", invalid=None):
    """An answer (``parse``: its value, None when not valid); None for an optional field left empty."""
    while True:
        answer = _ask(f"{label}{' (' + hint + ')' if hint else ''}{'' if required else optional}: ")
        if not answer and not required:
            return None
        value = (parse(answer) if parse else answer) if answer else None
        if value is not None:
            return value
        print(invalid or (f"  not valid{': ' + hint if hint else ''}" if answer else "  this field is required"),
              file=sys.stderr)


def _list(label: str, item_spec, min_items: int, required: bool):
    print(f"{label}: one per line, an empty line to finish"
          + (f" (at least {min_items})" if min_items else "" if required else " (optional)"), file=sys.stderr)
    items = []
    while True:
        item = (_object(f"  {label}[{len(items)}]", item_spec[1], first_ends=True)  # an empty first field ends it
                if isinstance(item_spec, tuple) else _ask("  - ") or None)
        if item is not None:
            items.append(item)
        elif len(items) >= min_items:
            return items if items or required else None
        else:
            print(f"  add at least {min_items}", file=sys.stderr)


def _object(label: str, fields: dict, first_ends: bool = False):
    out = {}
    for n, (name, (spec, required)) in enumerate(fields.items()):
        ends = first_ends and n == 0
        value = ask_field(f"{label}.{name}" if label else name, spec, required and not ends,
                          " (an empty line to finish)" if ends else " (optional)")
        if value is None and ends:
            return None
        if value is not None:
            out[name] = value
    return out or None


def ask_field(label: str, spec, required: bool, optional: str = " (optional)"):
    kind = spec if isinstance(spec, str) else spec[0]
    if kind == "enum":  # a choice by name or number
        choices = list(spec[1])
        picks = dict({str(i): c for i, c in enumerate(choices, 1)}, **{c: c for c in choices})
        return _text(f"{label} [{'  '.join(f'{i}) {c}' for i, c in enumerate(choices, 1))}]", required, picks.get,
                     optional=optional, invalid=f"  pick one of: {', '.join(choices)} (or its number)")
    if kind == "bool":
        return _text(label, required, lambda a: {"y": True, "yes": True, "true": True, "n": False, "no": False,
                                                 "false": False}.get(a.lower()), "y/n")
    if kind == "date":
        return _text(label, required, lambda a: a if is_date(a) else None, "YYYY-MM-DD")
    if kind == "list":
        return _list(label, spec[1], spec[2], required)
    if kind == "object":
        return _object(label, spec[1])
    return _text(label, required, optional=optional)  # "text", "text?"


def ask_record(record: dict) -> dict:
    """``record`` (category, title, tags, content may be set) completed with the answers."""
    if not record.get("category"):
        record["category"] = ask_field("category", ("enum", CATEGORIES), True)
    if not record.get("title"):
        record["title"] = _text("title", True, lambda t: t if len(t) <= 120 else None,
                                "a short line, at most 120 characters")
    if not record.get("tags"):
        record["tags"] = _text("tags", True, lambda a: [t for t in map(clean_tag, re.split(r"[,\s]+", a)) if t] or None,
                               "lowercase words, separated by commas or spaces")
    if not record.get("content"):
        print(f"{record['category']} fields:", file=sys.stderr)
        record["content"] = _object("", CONTENT[record["category"]]) or {}
    return record
