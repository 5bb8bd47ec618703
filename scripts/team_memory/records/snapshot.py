"""What the memory files were before a Bash call, and copies (named by git blob id, holding only what ``exposure``
shows: no secret leaves the repository) that make a lost one recoverable.
"""
from __future__ import annotations

import json
import os
import time

from ..base.config import category_folders
from ..base.fsutil import atomic_write_bytes, memory_file_stats
from ..base.safefs import read_regular
from ..base.state import load_state, prune, save_state, sha256_hex, state_dir, state_path

SNAPSHOT_KIND = "tool-snapshot"
COPIES_KIND = "copies"
CLI_WRITES_KIND = "cli-writes"
CLI_WRITES_KEPT = 200
COPY_MAX_BYTES = 256 * 1024
COPIES_PER_CALL = 200


def call_key(payload: dict) -> str:
    """The same key in PreToolUse and PostToolUse of one tool call."""
    if isinstance(payload.get("tool_use_id"), str) and payload["tool_use_id"]:
        return payload["tool_use_id"]
    raw = json.dumps([payload.get("session_id"), payload.get("tool_name"), payload.get("tool_input")],
                     sort_keys=True, default=str)
    return sha256_hex(raw.encode("utf-8", "replace"))[:24]


def memory_files(store: str, config: dict) -> dict:
    """``{"<folder>/<name>": [mtime_ns, size]}`` of every ``*.json`` regular file in the real category folders."""
    return {f"{folder}/{name}": [st.st_mtime_ns, st.st_size]
            for folder, name, st in memory_file_stats(store, category_folders(config).values())}


def blob_id(data: bytes) -> str:
    """The id git gives a file with these bytes (``git hash-object``)."""
    try:
        from _sha1 import sha1  # the C SHA-1 alone: hashlib would load OpenSSL
    except ImportError:  # pragma: no cover - a build without it
        from hashlib import sha1
    return sha1(b"blob %d\0" % len(data) + data).hexdigest()


def copies_dir(store: str) -> str:
    return os.path.join(state_dir(store), "copies")


def copy_path(store: str, blob: str) -> str:
    return os.path.join(copies_dir(store), blob)


def _copy(store: str, rel: str):
    """Keep a copy of one memory file; its blob id, or None when it cannot be read or is too big."""
    try:
        data = read_regular(os.path.join(store, rel), COPY_MAX_BYTES)[0]
    except OSError:
        return None
    blob = blob_id(data)
    if not os.path.exists(copy_path(store, blob)):
        os.makedirs(copies_dir(store), mode=0o700, exist_ok=True)
        atomic_write_bytes(copy_path(store, blob), shown_copy(data), mode=0o600, durable=False)
    return blob


def shown_copy(data: bytes) -> bytes:
    """A copy's bytes: as they are, or ``exposure.shown_value`` of the record (``hide`` if not JSON)."""
    from .exposure import hide, might_hide, shown_value
    from ..base.sanitize import folded
    text = data.decode("utf-8", "replace")
    if not might_hide(text if text.isascii() else folded(text)):  # nothing any pattern needs: the bytes as they are
        return data
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        shown = hide(text)
        return data if shown is text else shown.encode("utf-8")
    shown_record = shown_value(value)
    return data if shown_record == value else (json.dumps(shown_record, indent=2, ensure_ascii=False) + "\n").encode()


MAX_SCRUBBED = 2000  # copies looked at by one ``scrub_copies``


def scrub_copies(store: str) -> int:
    """Rewrite every kept copy that still holds a secret or private section (``doctor --fix``); how many."""
    rewritten = 0
    try:
        with os.scandir(copies_dir(store)) as it:
            entries = [e for _, e in zip(range(MAX_SCRUBBED), it)]
    except OSError:
        return 0
    for entry in entries:
        try:
            data = read_regular(entry.path, COPY_MAX_BYTES)[0]
            shown = shown_copy(data)
            if shown != data:
                atomic_write_bytes(entry.path, shown, mode=0o600)
                rewritten += 1
        except OSError:
            continue
    return rewritten


def keep_copies(store: str, files: dict) -> dict:
    """``{rel: blob id | None}`` for ``files`` (``memory_files``), copying what is new or changed."""
    known = load_state(store, COPIES_KIND, "store").get("files")
    known = known if isinstance(known, dict) else {}
    out = {rel: known[rel] for rel, sig in files.items()
           if isinstance(known.get(rel), list) and len(known[rel]) == 3 and known[rel][:2] == sig}
    todo = sorted((rel for rel in files if rel not in out), key=lambda rel: -files[rel][0])  # newest: likeliest lost
    out.update((rel, files[rel] + [_copy(store, rel)]) for rel in todo[:COPIES_PER_CALL])
    out.update((rel, files[rel] + [None]) for rel in (todo[COPIES_PER_CALL:] if not known else ()))  # (a first run)
    if out != known:
        save_state(store, COPIES_KIND, "store", {"files": out})
        if int(time.time()) % 50 == 0:
            prune(copies_dir(store), keep={v[2] for v in out.values()})
    return {rel: v[2] for rel, v in out.items()}


def note_cli_write(store: str, data: bytes) -> None:
    """Remember the CLI wrote these bytes: a ``memory.py update`` run through Bash is no lost version."""
    try:
        blobs = (cli_writes(store) + [blob_id(data)])[-CLI_WRITES_KEPT:]
        save_state(store, CLI_WRITES_KIND, "store", {"blobs": blobs})
    except OSError:
        pass  # at worst PostToolUse reports a CLI update as a rewrite, with the copy to get it back


def cli_writes(store: str) -> list:
    """The blob ids the CLI wrote last, oldest first."""
    blobs = load_state(store, CLI_WRITES_KIND, "store").get("blobs")
    return [b for b in blobs if isinstance(b, str)] if isinstance(blobs, list) else []


def current_blob(path: str):
    """The blob id of a memory file as it is now; None when it cannot be read."""
    try:
        return blob_id(read_regular(path, COPY_MAX_BYTES)[0])
    except OSError:
        return None


def save_snapshot(payload: dict, store: str, config: dict) -> None:
    """PreToolUse: record the memory files (and keep copies) for this call's PostToolUse."""
    try:
        files = memory_files(store, config)
        blobs = keep_copies(store, files)
        save_state(store, SNAPSHOT_KIND, call_key(payload),
                   {"files": {rel: sig + [blobs.get(rel)] for rel, sig in files.items()}})
    except OSError:
        pass  # no snapshot: PostToolUse still checks the tool's own file


def take_snapshot(payload: dict, store: str):
    """PostToolUse: this call's ``{rel: [mtime_ns, size, blob | None]}`` (read once, then deleted), or None."""
    key = call_key(payload)
    files = load_state(store, SNAPSHOT_KIND, key).get("files")
    try:
        os.unlink(state_path(store, SNAPSHOT_KIND, key))
    except OSError:
        pass
    return files if isinstance(files, dict) else None
