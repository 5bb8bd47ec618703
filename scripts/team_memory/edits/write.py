"""Writing memories: create, update, retire/restore/archive/unarchive, ``gc``'s deletions. Text is scrubbed first (an
unclosed private tag stops the write), then under the store lock the record is validated, written and indexed.
"""
from __future__ import annotations

import os
import re
import time
from collections import namedtuple
from contextlib import suppress
from datetime import datetime, timedelta, timezone

from ..base.config import category_enabled, category_settings, number_setting
from ..base.fsutil import atomic_write_text, is_temp_file, store_lock
from ..derived.refresh import apply_changes
from ..base.model import CATEGORIES, SCHEMA_VERSION
from ..records.privacy import scrub_record
from ..base.sanitize import clean_line, clean_tag
from ..records.exposure import hide
from ..records.store import (NotARecord, dump_memory, find_memory, iter_records, load_memory, memory_path,
                             project_root_of, read_bytes, record_status, slugify, unique_id)
from ..records.validate import Problem, ValidationError, parse_iso, validate_record
from ..records.recordspec import MAX_CHANGES

RESURRECTION_WINDOW = timedelta(hours=24)
UPDATABLE = ("title", "tags", "content", "related_files", "confidence")
SESSION_RETAINED_DEFAULT = 5

# verb -> (statuses it applies to, target status, reason required)
TRANSITIONS = {
    "retire": (("active", "archived"), "retired", True),
    "archive": (("active",), "archived", True),
    "restore": (("retired",), "active", False),
    "unarchive": (("archived",), "active", False),
}


class WriteError(ValueError):
    """A write that cannot be done as asked (missing memory, conflict, wrong state...)."""


# What a write did (``dataclasses`` would cost the CLI a few ms to import).
WriteResult = namedtuple("WriteResult", "id path category action status hash private_sections secrets_redacted")


def now_iso(when: datetime | None = None) -> str:
    return (when or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")


def content_hash(path: str) -> str:
    """The SHA-256 of the file's bytes (what ``sha256sum`` prints), for ``--expect-hash``."""
    from ..base.state import sha256_hex  # not hashlib: it loads OpenSSL, a few ms of every CLI run
    return sha256_hex(read_bytes(path)[0])


def tidy(record: dict) -> dict:
    """Titles and tags cleaned as the index cleans them, related files normalised (other types: validation's)."""
    if isinstance(record.get("title"), str):
        record["title"] = clean_line(record["title"])
    if isinstance(record.get("tags"), list):
        tags = [clean_tag(tag) if isinstance(tag, str) else tag for tag in record["tags"]]
        record["tags"] = [tag for i, tag in enumerate(tags) if tag != "" and tag not in tags[:i]]
    if isinstance(record.get("related_files"), list):
        record["related_files"] = tidy_related(record["related_files"])
    return record


def tidy_related(entries: list) -> list:
    """``related_files`` stored (``./app//x.py`` -> ``app/x.py``), each once; as given when one is refused."""
    from ..records.relpaths import normalise, problem
    return entries if any(problem(entry) for entry in entries) else list(dict.fromkeys(map(normalise, entries)))


def write_record(path: str, record: dict) -> None:
    from ..base.safefs import check_store, make_dir
    from ..records.snapshot import note_cli_write
    folder = os.path.dirname(path)
    check_store(os.path.dirname(folder))
    make_dir(folder)  # a category folder that is a link is never written through
    # temp files a minute old are of writers killed mid-write (we hold the lock: no live writer owns them)
    with suppress(OSError), os.scandir(folder) as it:
        for entry in it:
            if is_temp_file(entry.name) and time.time() - entry.stat().st_mtime > 60:
                os.unlink(entry.path)
    text = dump_memory(record)
    atomic_write_text(path, text)
    note_cli_write(os.path.dirname(folder), text.encode("utf-8"))  # PostToolUse: a CLI write is not a loss


def add_change(record: dict, summary: str, now: str) -> None:
    changes = record.get("changes") if isinstance(record.get("changes"), list) else []
    record["changes"] = (changes + [{"date": now, "summary": summary}])[-MAX_CHANGES:]


def check_record(record: dict, category: str, memory_id: str, where: str) -> None:
    """``ValidationError`` (``where``) when ``record`` is not valid as ``memory_id`` of ``category``."""
    problems = validate_record(record, folder_category=category, file_id=memory_id)
    if problems:
        raise ValidationError(problems, where)


MAX_AHEAD = timedelta(days=1)  # clocks disagree a little; a memory dated beyond this would rank as new for ever


def create_memory(memory_root: str, config: dict, record: dict, *, force: bool = False) -> WriteResult:
    """Save a new memory; its id is a slug of the title (or the record's own ``id``), made unique."""
    if not isinstance(record, dict):
        raise ValidationError([Problem("(record)", "must be a JSON object", "write {...}")])
    record, private, secrets = scrub_record(record, config)
    record = tidy(record)
    now_dt = datetime.now(timezone.utc).replace(microsecond=0)
    record.setdefault("schema_version", SCHEMA_VERSION)
    record.setdefault("created_at", now_iso(now_dt))
    record.setdefault("updated_at", record["created_at"])
    record.setdefault("record_status", "active")
    category = record.get("category")
    base = record.setdefault("id", slugify(record.get("title") if isinstance(record.get("title"), str) else ""))
    problems = validate_record(record, folder_category=category if category in CATEGORIES else None)
    if record.get("record_status") != "active":
        problems.append(Problem("record_status", "a new memory must be active", 'leave it out or use "active"'))
    for name in ("created_at", "updated_at"):
        when = parse_iso(record.get(name))
        if when is not None and when > now_dt + MAX_AHEAD:
            problems.append(Problem(name, f"is in the future ({record[name]}; now is {now_iso(now_dt)})",
                                    f"leave {name} out (the time of saving is used) or give a past time"))
    if problems:
        raise ValidationError(problems, "new memory")
    if not category_enabled(config, category):
        raise WriteError(f"category {category!r} is disabled in memory-config.json (categories.{category}.enabled)")

    with store_lock(memory_root):
        try:  # the id of a memory retired less than 24 hours ago: restore it (or --force)
            hit = None if force else _load_for_change(memory_root, config, base)[3]
        except WriteError:
            hit = None
        if hit:
            retired_at = parse_iso(hit.get("retired_at"))
            if record_status(hit) == "retired" and retired_at and now_dt - retired_at < RESURRECTION_WINDOW:
                raise WriteError(f"memory {base!r} was retired at {hit.get('retired_at')} (less than 24 hours ago); "
                                 f"bring it back with 'restore {base}', or pass --force to create a new memory anyway")
        memory_id = unique_id(memory_root, config, base)
        record["id"] = memory_id
        path = memory_path(memory_root, config, category, memory_id)  # (no retention here: ``retire_past_retention``)
        return save(memory_root, config, category, path, record, "created", "new memory", private, secrets)


def save(memory_root: str, config: dict, category: str, path: str, record: dict, action: str, where: str,
         private: int, secrets: int, full: bool = False) -> WriteResult:
    """Validate, write and index ``record`` (``full``: the index from every file); the caller holds the lock."""
    memory_id = os.path.basename(path)[:-5]
    check_record(record, category, memory_id, where)
    write_record(path, record)
    apply_changes(memory_root, config, full)
    return WriteResult(memory_id, path, category, action, record_status(record), content_hash(path), private, secrets)


def session_max_retained(config: dict) -> int:
    raw = category_settings(config, "session_summary").get("max_retained", SESSION_RETAINED_DEFAULT)
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1 else SESSION_RETAINED_DEFAULT


def sessions_past_retention(memory_root: str, config: dict) -> list:
    """``[(path, record)]``: the active session summaries beyond the newest ``max_retained``, oldest last."""
    active = [(rec.get("created_at") if isinstance(rec.get("created_at"), str) else "", path, rec)
              for cat, path, rec in iter_records(memory_root, config, "session_summary")
              if record_status(rec) == "active"]
    active.sort(key=lambda t: (t[0], os.path.basename(t[1])), reverse=True)
    return [(path, rec) for _, path, rec in active[session_max_retained(config):]]


def retire_past_retention(memory_root: str, config: dict, dry_run: bool = False) -> list:
    """Retire the summaries past retention; their ids. Only ``gc`` (Claude Code asks first): they may be teammates'."""
    if dry_run:
        return [os.path.basename(path)[:-5] for path, _ in sessions_past_retention(memory_root, config)]
    reason = (f"automatic: only the {session_max_retained(config)} newest session summaries stay active "
              "(categories.session_summary.max_retained)")
    with store_lock(memory_root):
        now = now_iso()
        retired = []
        for path, rec in sessions_past_retention(memory_root, config):
            rec = dict(rec, record_status="retired", retired_at=now, retired_reason=reason, updated_at=now)
            add_change(rec, "retired automatically by session-summary retention", now)
            if validate_record(rec, folder_category="session_summary", file_id=os.path.basename(path)[:-5]):
                continue  # a hand-broken summary is left alone for 'validate' to report
            write_record(path, rec)
            retired.append(rec["id"])
        if retired:
            apply_changes(memory_root, config)
        return retired


def _load_for_change(memory_root: str, config: dict, memory_id: str):
    """``(category, path, id, record)`` of the memory ``memory_id`` names (an id, category/id or a path)."""
    found = find_memory(memory_root, config, memory_id)
    if found is None:
        raise WriteError(f"no memory with id {memory_id!r} (try: list --status all)")
    category, path = found
    try:
        return category, path, os.path.basename(path)[:-5], load_memory(path)
    except (NotARecord, OSError) as exc:
        raise WriteError(f"{path} cannot be read ({exc}); fix it by hand (see: validate {path})") from None


def update_memory(memory_root: str, config: dict, memory_id: str, changes: dict, *,
                  expect_hash: str | None = None, summary: str | None = None, reviewed: bool = False) -> WriteResult:
    """Change an active memory's title, tags, content keys (``None`` removes one), related files or confidence;
    refused if ``expect_hash`` no longer matches. ``reviewed`` alone moves ``updated_at`` (clearing its stale mark)."""
    if not isinstance(changes, dict) or (not changes and not reviewed):
        raise WriteError("nothing to update: give at least one of --title, --tag, --content-json, --content-file, "
                         "- (content from stdin), --related-file, --no-related-files, --confidence or --reviewed "
                         "(see: update --help)")
    problems = [Problem(k, "cannot be changed by update",
                        "use retire/restore/archive/unarchive for the status" if k == "record_status"
                        else f"change only: {', '.join(UPDATABLE)}") for k in changes if k not in UPDATABLE]
    if "content" in changes and not isinstance(changes["content"], dict):
        problems.append(Problem("content", "must be an object of the keys to change", 'write {"key": value}'))
    if problems:
        raise ValidationError(problems, f"update of {memory_id}")
    wanted = expect_hash.strip().lower() if expect_hash is not None else None
    if wanted is not None and not re.fullmatch(r"[0-9a-f]{12,64}", wanted):
        raise WriteError(f"--expect-hash {expect_hash!r} is not a hash: give at least the first 12 hex digits "
                         "that 'show ID' prints as 'hash' (or 'save'/'update --json' return)")
    scrubbed, private, secrets = scrub_record(dict(changes, _summary=summary or ""), config)
    note = clean_line(scrubbed.pop("_summary"))
    scrubbed = tidy(scrubbed)

    with store_lock(memory_root):
        category, path, memory_id, record = _load_for_change(memory_root, config, memory_id)
        if wanted is not None:
            actual = content_hash(path)
            if not actual.startswith(wanted):
                raise WriteError(f"{memory_id} changed since it was read (hash {actual[:12]}, expected "
                                 f"{wanted[:12]}); read it again (show {memory_id}) and retry with its new hash")
        if record_status(record) != "active":
            verb = "restore" if record_status(record) == "retired" else "unarchive"
            raise WriteError(f"{memory_id} is {record_status(record)}; '{verb} {memory_id}' first")
        new = dict(record, **scrubbed)
        if "content" in scrubbed:  # only the keys given change; None removes one
            given = scrubbed["content"]
            old = record.get("content") if isinstance(record.get("content"), dict) else {}
            new["content"] = {k: v for k, v in dict(old, **given).items() if k not in given or given[k] is not None}
        now = now_iso()
        new["updated_at"] = now
        times = record.get("times_updated")
        new["times_updated"] = (times if isinstance(times, int) and not isinstance(times, bool) else 0) + 1
        what = [k for k in scrubbed if k != "content"]
        what += [f"content.{k}" for k in scrubbed.get("content", {})]
        add_change(new, note or ("updated " + ", ".join(what) if what else "reviewed: still right"), now)
        return save(memory_root, config, category, path, new, "updated", f"update of {memory_id}", private, secrets)


def set_status(memory_root: str, config: dict, memory_id: str, status: str, reason: str | None = None) -> WriteResult:
    """``status``: a verb of ``TRANSITIONS`` or a target status (``active`` restores or unarchives as fits)."""
    reason_text, private, secrets = "", 0, 0
    if reason is not None:
        scrubbed, private, secrets = scrub_record({"reason": reason}, config)
        reason_text = clean_line(scrubbed["reason"])
    with store_lock(memory_root):
        category, path, memory_id, record = _load_for_change(memory_root, config, memory_id)
        current = record_status(record)
        back = "unarchive" if current == "archived" else "restore"
        verb = {"retired": "retire", "archived": "archive", "active": back}.get(status, status)
        if verb not in TRANSITIONS:
            raise WriteError(f"unknown status change {status!r}; use one of {', '.join(TRANSITIONS)}")
        allowed, target, needs_reason = TRANSITIONS[verb]
        if current not in allowed:
            other = {("restore", "archived"): "unarchive", ("unarchive", "retired"): "restore"}.get((verb, current))
            raise WriteError(f"cannot {verb} {memory_id}: it is {current}"
                             + (f"; bring it back with: {other} {memory_id}" if other else ""))
        if needs_reason and not reason_text:
            raise WriteError(f"{verb} needs --reason: say why, so the team knows later")
        now = now_iso()
        new = dict(record, record_status=target, updated_at=now)
        if verb in ("retire", "archive"):
            new.update({f"{target}_at": now, f"{target}_reason": reason_text})
            add_change(new, f"{target}: {reason_text}", now)
        else:
            for field in (f"{current}_at", f"{current}_reason"):
                new.pop(field, None)
            add_change(new, f"{verb}d" + (f": {reason_text}" if reason_text else ""), now)
        return save(memory_root, config, category, path, new, f"{verb}d", f"{verb} of {memory_id}", private, secrets)


def grace_days(config: dict) -> int:
    """How long a retired memory stays restorable before ``gc`` deletes it (git history keeps it after)."""
    return number_setting(config, "delete", "grace_period_days", 30, 0, 36_500)


def due(memory_root: str, config: dict) -> list:
    """``[{id, category, title, path, retired_at, days}]`` of retired memories past the grace period."""
    now = datetime.now(timezone.utc)
    cutoff = now - timedelta(days=grace_days(config))
    out = []
    for category, path, record in iter_records(memory_root, config):
        retired_at = parse_iso(record.get("retired_at"))
        if record_status(record) == "retired" and retired_at is not None and retired_at <= cutoff:
            out.append({"id": os.path.basename(path)[:-5], "category": category, "title": hide(record["title"]),
                        "path": os.path.relpath(path, project_root_of(memory_root)).replace(os.sep, "/"),
                        "retired_at": record["retired_at"], "days": (now - retired_at).days})
    return out


def purge_retired(memory_root: str, config: dict, *, dry_run: bool = False) -> list:
    """Delete (or, with ``dry_run``, only list) the memories ``due`` returns; rewrite the index."""
    if dry_run:
        return due(memory_root, config)
    with store_lock(memory_root):
        gone = due(memory_root, config)  # read again under the lock: a restore may have won
        for item in gone:
            with suppress(FileNotFoundError):
                os.unlink(os.path.join(project_root_of(memory_root), item["path"]))
        if gone:
            apply_changes(memory_root, config)
    return gone
