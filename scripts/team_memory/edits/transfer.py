"""``export`` and ``import``: JSON Lines (or a JSON array), YAML with pyyaml, or a prior-plugin store; every record
scrubbed and validated first (``prepare``), then written under one lock (``import_records``).
"""
from __future__ import annotations

import json
import os
from collections import namedtuple
from datetime import date, datetime, timezone

from ..base.config import category_enabled, category_folders, load_config
from ..base.fsutil import store_lock
from ..derived.refresh import apply_changes
from ..base.model import CONFIG_NAME, MEMORY_REL, SCHEMA_VERSION
from ..records.privacy import PrivateTagError, private_settings, scrub_record, scrub_text
from ..records.store import (id_taken, iter_records, memory_path, ordered, project_root_of, read_bytes, record_status,
                             slugify, unique_id)
from ..records.validate import Problem, validate_record
from .write import tidy, write_record, now_iso

FORMATS = ("jsonl", "yaml")
CONFLICT_MODES = ("skip", "replace", "suffix")


class TransferError(ValueError):
    """The input cannot be read at all (not a format problem of one record)."""


def _need_yaml():
    """pyyaml, imported on first use (other commands do not pay for it)."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - depends on the environment
        raise TransferError("YAML needs pyyaml (python3 -m pip install pyyaml); JSON Lines works without it") from None
    return yaml


def format_for(path: str | None, explicit: str | None) -> str:
    return explicit or ("yaml" if path and path.lower().endswith((".yaml", ".yml")) else "jsonl")


def export_records(memory_root: str, config: dict, status: str = "all", category: str | None = None) -> list:
    """The stored records (canonical key order) by category then id, anything no write would store hidden."""
    from ..records.exposure import shown_value
    return [ordered(shown_value(record)) for cat, _, record in iter_records(memory_root, config)  # in that order
            if (not category or cat == category) and (status == "all" or record_status(record) == status)]


def dumps(records: list, fmt: str) -> str:
    if fmt == "yaml":
        yaml = _need_yaml()
        return yaml.safe_dump_all(records, allow_unicode=True, sort_keys=False, explicit_start=True) if records else ""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def loads(text: str, fmt: str) -> list:
    """``[(where, value)]`` for every record in ``text``; an unparsable line's value is its ``Problem``."""
    if fmt == "yaml":
        yaml = _need_yaml()
        try:
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
        except yaml.YAMLError as exc:
            raise TransferError(f"not valid YAML: {exc}") from None
        if len(docs) == 1 and isinstance(docs[0], list):
            docs = docs[0]
        return [(f"document {i}", _plain(d)) for i, d in enumerate(docs, 1)]
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except ValueError as exc:
            raise TransferError(f"not a valid JSON array: {exc}") from None
        return [(f"item {i}", d) for i, d in enumerate(items, 1)]
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((f"line {n}", json.loads(line)))
        except ValueError as exc:
            out.append((f"line {n}", Problem("(record)", f"not valid JSON ({exc})", "fix the line or leave it out")))
    return out


def _plain(value):
    """YAML reads unquoted times as datetime objects: turn them back into ISO 8601 text."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):  # a naive one is taken as UTC
        return now_iso(value.replace(tzinfo=value.tzinfo or timezone.utc).astimezone(timezone.utc))
    if isinstance(value, date):
        return value.isoformat()
    return value


def claude_memory_entries(path: str) -> list:
    """``[(where, record)]`` of a prior-plugin store (a project or its ``.claude/memory``), id and category filled."""
    root = os.path.abspath(os.path.expanduser(path))
    nested = os.path.join(root, *MEMORY_REL)
    if os.path.isdir(nested):
        root = nested
    elif not any(os.path.isdir(os.path.join(root, f)) for f in category_folders({}).values()):
        raise TransferError(f"no memory store at {root}: expected {nested} "
                            "or a folder holding decisions/, runbooks/...")
    config = load_config(root if os.path.isfile(os.path.join(root, CONFIG_NAME)) else None)  # its folder names
    out = []
    for category, folder in category_folders(config).items():
        folder_path = os.path.join(root, folder)
        try:
            names = sorted(n for n in os.listdir(folder_path) if n.endswith(".json") and not n.startswith("."))
        except OSError:
            continue
        for name in names:
            where = os.path.join(folder, name)
            try:  # a regular file only, never through a link, bounded
                data = json.loads(read_bytes(os.path.join(folder_path, name))[0].decode("utf-8"))
            except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
                data = Problem("(record)", f"cannot be read ({exc})", "fix the line or leave it out")
            if isinstance(data, dict):
                data.setdefault("id", name[:-5])
                data.setdefault("category", category)
            out.append((where, data))
    return out


# One entry of an import, scrubbed, completed and validated: its record, and ``problems`` (none when good).
Prepared = namedtuple("Prepared", "where record problems private_sections secrets_redacted")


def prepare(entries: list, config: dict) -> list:
    """Scrub, complete and validate every ``(where, value)`` entry."""
    return [_prepared(where, value, config) for where, value in entries]


def _prepared(where: str, value, config: dict) -> Prepared:
    if not isinstance(value, dict):
        problem = value if isinstance(value, Problem) else Problem("(record)", "is not a JSON object",
                                                                   "each record is one {...}")
        return Prepared(where, None, [problem], 0, 0)
    try:
        record, private, secrets = scrub_record(value, config)
    except PrivateTagError as exc:
        return Prepared(where, None, [Problem("(record)", str(exc), "close the private tag")], 0, 0)
    record = tidy(record)
    record.setdefault("schema_version", SCHEMA_VERSION)
    updated = record.get("updated_at")
    record.setdefault("created_at", updated if isinstance(updated, str) else now_iso())
    record.setdefault("updated_at", record["created_at"])
    given = record.get("id")
    if isinstance(given, str) and _hides_something(given, config):
        del record["id"]  # an id is a file name and shown everywhere: never one that spells a secret
    if "id" not in record and isinstance(record.get("title"), str):
        record["id"] = slugify(record["title"])  # the title is scrubbed already
    problems = validate_record(record)
    if not problems and not category_enabled(config, record["category"]):
        problems = [Problem("category", f"{record['category']!r} is disabled in this store's config",
                            f"enable categories.{record['category']} or leave the record out")]
    return Prepared(where, record, problems, private, secrets)


def import_records(memory_root: str, config: dict, records: list, on_conflict: str = "skip",
                   dry_run: bool = False) -> list:
    """Write valid records under one lock: ``[{id, from_id, action (created/replaced/renamed/skipped), path}]``."""
    if on_conflict not in CONFLICT_MODES:
        raise ValueError(f"on_conflict must be one of {CONFLICT_MODES}")
    results = []
    project = project_root_of(memory_root)
    planned: set = set()  # ids written by this import (a dry run writes nothing, so track them)
    with store_lock(memory_root):
        for record in records:
            record = dict(record)
            wanted = record["id"]
            action = "created"
            if wanted in planned or id_taken(memory_root, config, wanted):
                if on_conflict == "skip":
                    results.append({"id": wanted, "from_id": wanted, "action": "skipped", "path": None})
                    continue
                if on_conflict == "suffix":
                    record["id"], action = unique_id(memory_root, config, wanted, planned), "renamed"
                else:
                    action = "replaced"
                    for folder in category_folders(config).values():
                        old = os.path.join(memory_root, folder, f"{wanted}.json")
                        if not dry_run and os.path.isfile(old):
                            os.unlink(old)
            path = memory_path(memory_root, config, record["category"], record["id"])
            if not dry_run:
                write_record(path, record)
            planned.add(record["id"])
            results.append({"id": record["id"], "from_id": wanted, "action": action,
                            "path": os.path.relpath(path, project).replace(os.sep, "/")})
        if not dry_run and any(r["action"] != "skipped" for r in results):
            apply_changes(memory_root, config)
    return results


def _hides_something(text: str, config: dict) -> bool:
    """True when scrubbing ``text``, or its upper case (an id is lower case, AWS keys upper), would change it."""
    settings = private_settings(config)
    for form in (text, text.upper()):
        try:
            _, private, secrets = scrub_text(form, settings)
        except PrivateTagError:
            return True
        if private or secrets:
            return True
    return False
