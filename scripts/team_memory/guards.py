"""Write guards for Claude Code: memories are written through the CLI, nothing else.

``PreToolUse`` (``guard_tool_use``): a ``Write``/``Edit``/``MultiEdit`` into a
``.claude/memory/`` folder, or a ``Bash`` line that would write, move or delete
there (``>``/``>>``, ``tee``, ``cp``/``mv`` into it, ``rm``, ``sed -i``...; see
``shellscan``), is denied with the CLI command to use instead. Reading stays
allowed, and so does ``memory-config.json`` (settings, not memories).

``PostToolUse`` (``check_tool_result``): any memory file that changed anyway
(the tool's own ``file_path``, or for ``Bash`` the files whose size or time
differ from a snapshot taken just before the command ran) is validated; an
invalid one is moved to ``.claude/memory/.quarantine/<folder>/`` (never
deleted) and Claude is told why. Valid changes just get the index rebuilt.

Both run inside ``hookio.run_hook``: they fail open and never wait on a lock.
"""
from __future__ import annotations

import os
from datetime import datetime, timezone

from .config import category_folders, load_config
from .digest import sha256_hex
from .fsutil import LockBusy, category_dir, store_lock
from .model import MEMORY_REL
from .hookio import project_dir_of
from .shelljudge import judge
from .shellpaths import reach
from .state import load_state, save_state, state_path
from .store import find_memory_root, project_root_of

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
QUARANTINE = ".quarantine"
SNAPSHOT_KIND = "tool-snapshot"
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "memory.py")
MAX_CONTEXT_CHARS = 4000
MAX_COMMAND_CHARS = 100_000  # longer Bash lines are judged whole: parsing 20 MB would outlast the hook's time-out


def cli() -> str:
    """How to run this checkout's CLI, from any folder (plugin or drop-in install)."""
    return f'python3 "{SCRIPT}"'


def _stores(payload: dict) -> list:
    """Real paths of the memory stores this tool call could touch."""
    cwd = project_dir_of(payload)
    found = {find_memory_root(cwd), os.path.join(cwd, *MEMORY_REL)}
    if os.environ.get("CLAUDE_PROJECT_DIR"):
        found.add(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], *MEMORY_REL))
    return sorted({os.path.realpath(s) for s in found if s and os.path.isdir(s)})


def protected(path: str, stores: list, removes: bool = False) -> bool:
    """True if writing ``path`` changes a memory store (or, for ``removes``, would remove one whole)."""
    return reach(os.path.normpath(path), stores, removes)


def _shown(text: str) -> str:
    """A message about a file as Claude reads it: one line, secrets hidden, no tag that could pose as the client's."""
    from .exposure import hide_secrets
    from .sanitize import clean_line, neutralize_block
    return neutralize_block(clean_line(hide_secrets(text)))


def _rel(path: str, project: str) -> str:
    from .sanitize import shown_path
    return _shown(shown_path(os.path.relpath(path, project)))


def _mentions_store(text: str, stores: list) -> bool:
    lowered = text.lower()
    return "/".join(MEMORY_REL) in lowered or any(s.lower() in lowered for s in stores)


def _deny(what: str, path: str | None) -> dict:
    where = f" ({what}{': ' + _shown(path) if path else ''})"
    reason = (f"team-memory: memory files in .claude/memory/ are written only through the team-memory CLI, which "
              f"validates them, strips private sections and secrets, and updates the index{where}. "
              f"Use instead: {cli()} save --input - (a whole JSON record on stdin), "
              f"{cli()} update ID --title T --tag T --content-json JSON (changed fields), "
              f"{cli()} retire ID --reason R, or add/archive/restore (see {cli()} --help). "
              f"Reading memory files is allowed.")
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def _tool_paths(payload: dict) -> list:
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    cwd = project_dir_of(payload)
    paths = []
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value and "\x00" not in value:
            paths.append(os.path.normpath(os.path.join(cwd, os.path.expanduser(value))))
    return paths


def _judged_stores(payload: dict, stores: list) -> list:
    """The stores a Bash line is judged against: the real ones and where one would be created."""
    cwd = project_dir_of(payload)
    found = set(stores) | {os.path.join(cwd, *MEMORY_REL)}
    for base in (os.environ.get("CLAUDE_PROJECT_DIR"), project_root_of(stores[0]) if stores else None):
        if base:
            found.add(os.path.join(base, *MEMORY_REL))
    return sorted(found)


def guard_tool_use(payload: dict):
    """PreToolUse handler: the deny decision, or None to let the tool run."""
    tool = payload.get("tool_name")
    stores = _stores(payload)
    if tool in WRITE_TOOLS:
        for path in _tool_paths(payload):
            if protected(path, stores):
                return _deny(f"{tool} of", os.path.relpath(path, project_dir_of(payload)))
        return None
    if tool != "Bash":
        return None
    command = (payload.get("tool_input") or {}).get("command") if isinstance(payload.get("tool_input"), dict) else None
    if not isinstance(command, str) or not command.strip():
        return None
    if len(command) > MAX_COMMAND_CHARS:
        if _mentions_store(command, stores):
            return _deny("a command line too long to check", None)
    else:
        what = judge(command, project_dir_of(payload), _judged_stores(payload, stores))
        if what is not None:
            return _deny(what, None)
    if stores:
        _save_snapshot(payload, stores[0])
    return None


# --- PostToolUse ---------------------------------------------------------------------------------

def _call_key(payload: dict) -> str:
    """The same key in PreToolUse and PostToolUse of one tool call."""
    if isinstance(payload.get("tool_use_id"), str) and payload["tool_use_id"]:
        return payload["tool_use_id"]
    import json  # only for a payload without a tool_use_id
    raw = json.dumps([payload.get("session_id"), payload.get("tool_name"), payload.get("tool_input")],
                     sort_keys=True, default=str)
    return sha256_hex(raw.encode("utf-8", "replace"))[:24]


def _memory_files(store: str, config: dict) -> dict:
    """``{relative path: [mtime_ns, size]}`` of every ``*.json`` in the category folders."""
    files = {}
    for folder in category_folders(config).values():
        path = category_dir(store, folder)
        if path is None:
            continue
        try:
            with os.scandir(path) as it:
                for entry in it:
                    if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                        st = entry.stat()
                        files[f"{folder}/{entry.name}"] = [st.st_mtime_ns, st.st_size]
        except OSError:
            continue
    return files


def _save_snapshot(payload: dict, store: str) -> None:
    try:
        save_state(store, SNAPSHOT_KIND, _call_key(payload), {"files": _memory_files(store, load_config(store))})
    except OSError:
        pass  # no snapshot: PostToolUse still checks the tool's own file


def _take_snapshot(payload: dict, store: str):
    key = _call_key(payload)
    data = load_state(store, SNAPSHOT_KIND, key)
    try:
        os.unlink(state_path(store, SNAPSHOT_KIND, key))
    except OSError:
        pass
    files = data.get("files")
    return files if isinstance(files, dict) else None


def _changed_files(payload: dict, store: str, config: dict):
    """``(changed memory files, removed ones)``, as absolute paths."""
    folders = {os.path.join(store, f) for f in category_folders(config).values()}
    changed, removed = set(), []
    for path in _tool_paths(payload):
        real = os.path.realpath(path)
        if os.path.dirname(real) in folders and real.endswith(".json"):
            changed.add(real)
    if payload.get("tool_name") == "Bash":
        before = _take_snapshot(payload, store)
        if before is not None:
            now = _memory_files(store, config)
            changed |= {os.path.join(store, rel) for rel, sig in now.items() if before.get(rel) != sig}
            removed = sorted(os.path.join(store, rel) for rel in before if rel not in now)
    return sorted(p for p in changed if os.path.isfile(p)), removed


def quarantine(store: str, path: str) -> str:
    """Move ``path`` to ``<store>/.quarantine/<folder>/`` (never over another file); return the new path."""
    folder = os.path.join(store, QUARANTINE, os.path.basename(os.path.dirname(path)))
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, os.path.basename(path))
    if os.path.lexists(target):
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        target = os.path.join(folder, f"{os.path.basename(path)[:-5]}.{stamp}.json")
    os.replace(path, target)
    return target


def check_tool_result(payload: dict):
    """PostToolUse handler: quarantine invalid memory files the tool changed; tell Claude why."""
    if payload.get("tool_name") not in WRITE_TOOLS + ("Bash",):
        return None
    stores = _stores(payload)
    if not stores:
        return None
    from .index import apply_changes  # PostToolUse only: PreToolUse stays light
    from .validate import check_file
    store = stores[0]
    config = load_config(store)
    changed, removed = _changed_files(payload, store, config)
    notes = []
    project = project_root_of(store)
    for path in changed:
        problems = check_file(path, config, store)
        if not problems:
            continue
        moved = quarantine(store, path)
        listed = "; ".join(_shown(f"{p.field}: {p.message} (fix: {p.hint})")[:300] for p in problems[:10])
        notes.append(f"{_rel(path, project)} was written directly and is not a valid memory, so it was "
                     f"moved to {_rel(moved, project)} (nothing was deleted). Problems: {listed}.")
    for path in removed:
        notes.append(f"{_rel(path, project)} was removed outside the CLI; if that was not intended, "
                     f"ask the user to restore it from git. To stop recalling a memory, use {cli()} retire ID --reason R.")
    if changed or removed:
        try:
            with store_lock(store, blocking=False):
                apply_changes(store, config, list(changed) + list(removed))
        except (LockBusy, OSError):
            pass  # the next prompt patches a stale index
    if not notes:
        return None
    text = ("team-memory: " + " ".join(notes) + f" Write memories with {cli()} save --input - (a whole JSON record), "
            f"or add/update; run {cli()} validate PATH to check a file.")
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[: MAX_CONTEXT_CHARS - 1] + "\u2026"
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}

