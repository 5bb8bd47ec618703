"""``view``: the store as one HTML page (``viewpage`` renders it), written to ``--out FILE`` or ``.cache/view.html``.

``collect`` gathers what the page shows: every memory read once, who and when from one bounded ``git log``, review
items with the command that settles each, the search tokens. Every string passes ``shown`` (the page's one exposure
step); a problem of an invalid file is named by its field and what is wrong, never by the value.
"""
from __future__ import annotations

import os
import shlex
import sys
from datetime import datetime, timezone

from ..base.model import topic_tags
from ..base.sanitize import clean_tag, clean_text, cut, shown_path
from ..records.exposure import hide, shown_text
from ..records.recordspec import CONTENT, MAX_ITEMS, MAX_TEXT
from ..records.store import NotARecord, decision_status, iter_memory_files, load_memory, project_root_of, \
    record_status
from .main import CLI, CliError, add_command, flag, opt

PAGE_NAME = "view.html"
LINE_CHARS = 300  # one-line values: titles, tags, names, dates
MAX_DEPTH = 6  # nesting shown of a hand-edited content value
GIT_MAX_COMMITS = 20000
GIT_TIMEOUT_S = 20.0

HELP = "write the store as one HTML page to open, search and review (who and when from git, what needs a human)"
EXAMPLES = f"""  {CLI} view                       # writes .claude/memory/.cache/view.html, prints its path
  {CLI} view --open                # and opens it in your browser
  {CLI} view --out site/memory.html

A link to a search keeps it: file:///.../memory.html#q=redis%20sessions (also #review=1,
#tag=redis, #category=decision, #status=stale, #file=app/session.py, #all=1 for retired ones).

The page is one file (style and script inline, no request of any kind): open it from disk or
publish it from CI as a build artifact or a static site. It holds every memory in full, so it
reads with scripts off; the script filters as you type, by category, tag, related file and
status, and "Needs review" lists stale, invalid, duplicate and superseded memories with the
command that settles each. Secrets and private sections are hidden as in the hooks."""


def register(subparsers, common) -> None:
    add_command(subparsers, common, "view", cmd_view, HELP, EXAMPLES,
                opt("--out", f"write the page here (default: the store's git-ignored .cache/{PAGE_NAME})",
                    metavar="FILE", dest="output"), flag("--open", "open the page in the default browser"),
                flag("--no-git", "run no git: no authors and dates from git, no stale marks"))


def _make_folder_in_repository(folder: str, root: str) -> None:
    """Create ``folder`` (the page's missing parent) one level at a time, only inside ``root``, never through a link."""
    rel = os.path.relpath(folder, root)
    if rel.startswith(os.pardir) or os.path.isabs(rel):
        raise CliError(f"no folder {shown_path(folder)} to write the page into")
    path = root
    for part in rel.split(os.sep):
        path = os.path.join(path, part)
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
            raise CliError(f"{shown_path(path)} is a link or a file; make the folder for the page yourself")
        if not os.path.lexists(path):
            os.mkdir(path)


def cmd_view(ctx) -> int:
    from ..base.fsutil import atomic_write_text
    from .viewpage import render
    data = collect(ctx.memory_root, ctx.config, git=not ctx.args.no_git)
    page = render(data, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    if ctx.args.output:
        target = os.path.abspath(ctx.args.output)
        if os.path.isdir(target):
            raise CliError(f"{shown_path(target)} is a folder; name the file to write (for example "
                           f"{shown_path(os.path.join(target, 'memory.html'))})")
        if not os.path.isdir(os.path.dirname(target)):
            _make_folder_in_repository(os.path.dirname(target), project_root_of(ctx.memory_root))
    else:
        from ..derived.cache import cache_folder
        target = os.path.join(cache_folder(ctx.memory_root), PAGE_NAME)
    atomic_write_text(target, page, durable=False)
    active = [m for m in data["memories"] if m["status"] == "active"]
    review = sum(1 for m in active if m["review"])
    print(shown_path(target))
    print(f"  {len(active)} active memor{'y' if len(active) == 1 else 'ies'}, {review} to review, "
          f"{len(data['invalid'])} invalid files"
          + ("" if data["git"] or ctx.args.no_git else " (no git history: no authors or stale marks)"),
          file=sys.stderr)
    if ctx.args.open:
        import webbrowser
        from pathlib import Path
        if not webbrowser.open(Path(target).as_uri()):
            print(f"could not open a browser; open {shown_path(target)} yourself", file=sys.stderr)
    return 0


def shown(value, lines: bool = False, limit: int | None = None) -> str:
    """Any value as the page may show it (its one exposure step): cleaned, private sections and secrets hidden, cut."""
    text = value if isinstance(value, str) else str(value)  # (hidden whole: a cut could split a secret)
    if not lines:
        return shown_text(text, limit or LINE_CHARS)  # the hooks' own rule: hide, clean, hide again, cut
    return cut(hide(clean_text(hide(text)).strip()), limit or MAX_TEXT)  # the same order, keeping the lines


def git_history(project: str, memory_root: str) -> dict:
    """Project-relative path -> ``{"git_added": (author, time), "git_changed": (author, time)}`` from one git log."""
    from ..base.gitlog import HEADER, LOG_OPTIONS, parse_log, run_git
    store = os.path.relpath(memory_root, project).replace(os.sep, "/")
    args = ["log", f"--format={HEADER}%H %P%x1f%at%x1f%an", f"--max-count={GIT_MAX_COMMITS}", *LOG_OPTIONS,
            "HEAD", "--", f":(literal){store}"]
    got = run_git(project, args, timeout=GIT_TIMEOUT_S)
    history: dict = {}
    for commit in parse_log(*got) if got is not None else ():  # newest first; "subject" holds the author's name
        for path in commit.paths:
            seen = history.setdefault(path, {"git_added": None, "git_changed": (commit.subject, commit.time)})
            seen["git_added"] = (commit.subject, commit.time)
    return history


def shown_value(value, depth: int = 0):
    """A content value as plain data for the page: strings through ``shown``, lists and objects bounded."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ""
    if isinstance(value, str):
        return shown(value, lines=True)
    if depth >= MAX_DEPTH and isinstance(value, (list, dict)):
        return "(nested too deep to show)"
    if isinstance(value, list):
        return [shown_value(v, depth + 1) for v in value[:MAX_ITEMS]]
    if isinstance(value, dict):
        return [(shown(k, limit=80), shown_value(v, depth + 1)) for k, v in list(value.items())[:MAX_ITEMS]]
    return shown(value)


def content_fields(category: str, content) -> list:
    """``[(field, value)]``: the category's schema fields in its order, then any other key."""
    if not isinstance(content, dict):
        return [("content", shown_value(content))] if content not in (None, "") else []
    order = CONTENT.get(category, {})
    keys = [k for k in order if k in content] + [k for k in content if k not in order]
    return [(shown(k, limit=80), shown_value(content[k])) for k in keys[:MAX_ITEMS]]


def _flat(value) -> list:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _flat(v[1] if isinstance(v, tuple) else v)]
    return []


def match_tokens(text: str, stop_words: frozenset) -> list:
    """The words the page's search looks in: the hook's tokens plus each word as written (a typed prefix meets it)."""
    from ..text import textnorm
    tokens: set = set()
    for cls, run in textnorm.runs(textnorm.normalize(text)):
        for form, folded in textnorm.run_forms(cls, run, stop_words):
            tokens.add(form)
            if folded and folded not in stop_words:
                tokens.add(folded)
    return sorted(tokens)


def _problem_text(field: str, message: str) -> str:
    """A validation problem named by field and what is wrong; a message quoting a value is not shown."""
    if "'" in message or '"' in message:
        message = "has a value that is not allowed"
    return f"{shown(field, limit=80)}: {shown(message, limit=200)}"


def _review(memory: dict, kind: str, text: str, commands: list) -> None:
    """A review item: what is wrong, and ``(when, command)`` pairs that settle it (a command given once)."""
    merged: dict = {}
    for when, command in commands:
        merged[command] = f"{merged[command]} / {when}" if command in merged else when
    memory["review"].append({"kind": kind, "text": text, "commands": [(w, c) for c, w in merged.items()]})


def _memory(category: str, path: str, rel: str, record: dict, stop_words) -> dict:
    folder, ident = os.path.basename(os.path.dirname(path)), os.path.basename(path)[:-5]
    status = record_status(record)

    def items(key: str) -> list:
        value = record.get(key)
        return value[:MAX_ITEMS] if isinstance(value, list) else []
    memory = {
        "id": shown(ident, limit=120), "ref": shown(shlex.quote(f"{folder}/{ident}"), limit=400),
        "folder": shown(folder, limit=80), "category": category,
        "category_name": shown(category.replace("_", " ").capitalize()), "title": shown(record["title"]),
        "status": status if status in ("active", "retired", "archived") else "active",
        "decision_status": decision_status(record),
        "created": shown(record.get("created_at", "")), "updated": shown(record.get("updated_at", "")),
        "tags": [shown(t, limit=80) for t in items("tags") if isinstance(t, str)],
        "files": [shown(f, limit=200) for f in items("related_files") if isinstance(f, str)],
        "content": content_fields(category, record.get("content")),
        "changes": [{"date": shown(c.get("date", "")), "summary": shown(c.get("summary", ""), lines=True)}
                    for c in items("changes") if isinstance(c, dict)],
        "path": rel, "review": [],
    }
    for state in ("retired", "archived"):
        if record.get(f"{state}_reason") or record.get(f"{state}_at"):
            memory[state] = {"at": shown(record.get(f"{state}_at", "")),
                             "reason": shown(record.get(f"{state}_reason", ""), lines=True)}
    words = [memory["id"], memory["title"], memory["category_name"], *memory["tags"], *memory["files"],
             *_flat(memory["content"])]
    memory["tokens"] = match_tokens("\n".join(words), stop_words)
    return memory


def _problems(memory: dict, rel: str, problems: list, invalid: list) -> None:
    """Validation problems of a memory that loaded as review items (and the invalid files' list)."""
    leaked, schema = [], []
    for p in problems:  # ``records.privacy.leaks`` reports private text or a secret left in a stored file
        leak = p.message.startswith("holds ") and ("private" in p.message or "secret" in p.message)
        (leaked if leak else schema).append(p)
    if schema:
        texts = [_problem_text(p.field, p.message) for p in schema[:10]]
        _review(memory, "invalid", "; ".join(texts),
                [("fix it", f"{CLI} edit {memory['ref']}"), ("every problem", f"{CLI} validate {shlex.quote(rel)}")])
        invalid.append({"path": rel, "problems": texts, "command": f"{CLI} edit {memory['ref']}"})
    if leaked:  # (shown hidden on this page; still in the file and in git's history)
        unclosed = any("unclosed" in p.message for p in leaked)
        found = "; ".join(_problem_text(p.field, p.message) for p in leaked[:10])
        _review(memory, "leak", f"the file still holds {found}" + ("" if unclosed else
                " (a secret stays in git's history: rotate it too)"),
                [("close the private tag", f"{CLI} edit {memory['ref']}")] if unclosed else
                [("redact it in the file", f"{CLI} doctor --fix")])


def collect(memory_root: str, config: dict, git: bool = True) -> dict:
    """Everything the page shows (see the module docstring)."""
    from ..records.validate import check_file
    from ..text.textnorm import stop_words_for
    project, stop_words = project_root_of(memory_root), stop_words_for(config)
    memories, invalid, records = [], [], []
    history = git_history(project, memory_root) if git else {}
    for category, path in iter_memory_files(memory_root, config):
        problems = check_file(path, config, memory_root)
        relative = os.path.relpath(path, project).replace(os.sep, "/")
        rel = shown(shown_path(relative))
        try:
            record = load_memory(path)
        except (NotARecord, OSError):
            invalid.append({"path": rel, "problems": [_problem_text(p.field, p.message) for p in problems[:10]],
                            "command": f"{CLI} validate {shlex.quote(rel)}"})
            continue
        records.append((category, path, record))
        memory = _memory(category, path, rel, record, stop_words)
        _problems(memory, rel, problems, invalid)
        for key, (author, when) in history.get(relative, {}).items():
            memory[key] = {"author": shown(author, limit=80),
                           "date": datetime.fromtimestamp(when, timezone.utc).strftime("%Y-%m-%d")}
        memories.append(memory)
    _add_review(memories, records, memory_root, config, project, git)
    return {"project": shown(os.path.basename(project) or project, limit=120), "memories": memories,
            "invalid": invalid, "git": bool(history), "stop_words": sorted({shown(w, limit=80) for w in stop_words})}


def _add_review(memories: list, records: list, memory_root: str, config: dict, project: str, git: bool) -> None:
    """Stale marks, superseded decisions, duplicate ids and near-duplicate titles as review items."""
    from ..derived.driftmarks import refresh_marks
    from .cmd_admin import item_dict
    active = [i for i, m in enumerate(memories) if m["status"] == "active"]
    try:  # project-relative path -> ``review``'s item for every stale memory
        found = refresh_marks(memory_root, config, force=True, records=records) if git else None
    except OSError:
        found = None
    stale = {i.path: item_dict(i) for i in (found.stale if found else [])}
    for i in active:
        memory = memories[i]
        item = stale.get(os.path.relpath(records[i][1], project).replace(os.sep, "/"))
        if item:
            memory["stale"] = {"recent": [{"short": shown(c["short"]), "date": shown(c["date"]),
                                           "subject": shown(c["subject"], limit=100)} for c in item["commits"][:5]]}
            _review(memory, "stale", shown(item["suffix"].strip("()")),
                    [(when, shown(item["commands"][k], limit=2000)) for when, k in
                     (("still right", "reviewed"), ("needs changes", "update"), ("no longer true", "retire"))])
        if memory["decision_status"] in ("superseded", "deprecated"):
            _review(memory, "superseded", f"marked {memory['decision_status']} but still active",
                    [("no longer the team's", f"{CLI} retire {memory['ref']} --reason '...'"),
                     ("still current", f"{CLI} edit {memory['ref']}")])
    by_id: dict = {}
    for i, memory in enumerate(memories):
        by_id.setdefault(memory["id"], []).append(i)
    for group in (g for g in by_id.values() if len(g) > 1):
        for i in group:
            others = ", ".join(memories[j]["folder"] + "/" + memories[j]["id"] for j in group if j != i)
            _review(memories[i], "duplicate", f"the id is used in another folder too ({others})",
                    [("give the copy a new id", f"{CLI} doctor --fix")])
    from ..derived.index import entry_from_record
    from ..records import relpaths
    from ..text.tokens import tokenize
    from .viewdupes import near_duplicates, normalised_title, similar_pairs
    titles = [(memories[i]["category"], normalised_title(records[i][2].get("title"))) for i in active]
    flagged = set(near_duplicates(titles))
    for a, b in sorted(flagged):
        _duplicates(memories[active[a]], memories[active[b]], "nearly the same title as {}")
    items = []
    for i in active:
        category, path, record = records[i]
        entry = entry_from_record(memory_root, category, path, record)
        entry = dict(entry, tags=topic_tags(entry["tags"]))  # a provenance tag is not a shared topic
        words = tokenize(entry["title"]) | {t for t in (clean_tag(x) for x in entry["tags"]) if t}
        items.append((category, entry, words, relpaths.usable(record.get("related_files"))))
    for a, b, why in similar_pairs(items):
        if (a, b) not in flagged:
            _duplicates(memories[active[a]], memories[active[b]], "similar to {} (" + shown(why, limit=300) + ")")


def _duplicates(first: dict, second: dict, text: str) -> None:
    """A review item on each of two memories that look like one: merge into one, retire the other."""
    for one, other in ((first, second), (second, first)):
        _review(one, "duplicate", text.format(other["id"]),
                [("merge into this one", f"{CLI} edit {one['ref']}"),
                 ("then retire the other", f"{CLI} retire {other['ref']} --reason "
                                           f"{shlex.quote('duplicate of ' + one['id'])}")])
