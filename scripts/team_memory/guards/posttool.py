"""PostToolUse: what a tool call did to the memory files, told to Claude; nothing is ever moved (a hook cannot tell
``git pull``, an editor and a stray shell line apart). It reports a changed file that is not valid, and a removed or
rewritten one no git object holds with where to get it back; changed files are patched into the index.
"""
from __future__ import annotations

import contextlib
import os

from ..base.cliname import cli_command
from ..base.config import category_folders, load_config
from ..base.fsutil import LockBusy, store_lock
from .scope import SHELL_TOOLS, rel_shown, shown_text, stores_of, tool_paths
from .toolgate import WRITE_TOOLS
from ..derived.refresh import apply_changes
from ..records.snapshot import cli_writes, copy_path, current_blob, memory_files, take_snapshot
from ..records.store import project_root_of
from ..records.validate import check_file

MAX_CONTEXT_CHARS = 4000
MAX_LISTED = 10  # files named per kind of note; the rest are counted
MAX_PROBLEMS = 5  # problems spelled out per file (their text sanitized as every message about a file is)
MAX_CHECKED = 500  # changed files validated by one PostToolUse run


def _changed_files(payload: dict, store: str, config: dict):
    """``(changed paths, removed paths, the snapshot or None)``, paths absolute."""
    folders = {os.path.join(store, f) for f in category_folders(config).values()}
    named = (os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p)) for p in tool_paths(payload))
    changed = {p for p in named if os.path.dirname(p) in folders and p.endswith(".json")}  # the file: not resolved
    removed, before = [], None
    if payload.get("tool_name") in SHELL_TOOLS:
        before = take_snapshot(payload, store)
        if before is not None:
            now = memory_files(store, config)
            changed |= {os.path.join(store, rel) for rel, sig in now.items()
                        if not isinstance(before.get(rel), list) or before[rel][:2] != sig}
            removed = sorted(os.path.join(store, rel) for rel in before if rel not in now)
    regular = sorted(p for p in changed if os.path.isfile(p) and not os.path.islink(p))
    return regular, removed, before


def in_git(project: str, blobs: set) -> set:
    """The blob ids among ``blobs`` that git's object database holds (one ``git cat-file`` call)."""
    if not blobs:
        return set()
    from ..base.gitlog import run_git  # the one git runner: no fetch, no pager, bounded, its group killed
    got = run_git(project, ["cat-file", "--batch-check"], ("\n".join(sorted(blobs)) + "\n").encode("ascii", "replace"),
                  limit=64 * 1024, timeout=5)
    if got is None or not got[1]:
        return set()
    lines = got[0].decode("ascii", "replace").splitlines()
    return {line.split()[0] for line in lines if line.split()[1:2] == ["blob"]}


def _lost_notes(store: str, project: str, lost: list) -> list:
    """Notes for ``[(path, blob | None, removed?)]``: how to get each previous version back."""
    committed = in_git(project, {blob for _, blob, _ in lost if blob})
    notes = []
    for path, blob, removed in lost:
        rel = rel_shown(path, project)
        what = "was removed" if removed else "was rewritten"
        if blob and blob in committed:
            if not removed:
                continue  # the previous version is in git: nothing was lost
            notes.append(f"{rel} {what} by this command; git has it: restore it with git cat-file blob {blob} | "
                         f"{cli_command()} save --input - (or ask the user to git restore it).")
        elif blob:
            copy = copy_path(store, blob)
            how = (f"restore it with {cli_command()} save --input \"{copy}\"" if removed else
                   f"read it and put back what was lost with {cli_command()} update")
            notes.append(f"{rel} {what} by this command and its previous version was not committed; a copy taken just "
                         f"before the command is kept outside the repository at \"{copy}\": {how}.")
        else:
            notes.append(f"{rel} {what} by this command; no copy of its previous version was kept; if it was "
                         f"committed, git show HEAD:{rel} has it.")
    return notes


def _invalid_note(path: str, problems: list, project: str) -> str:
    fields = sorted({shown_text(p.field)[:40] for p in problems})
    listed = "; ".join(shown_text(f"{p.field}: {p.message}")[:160] for p in problems[:MAX_PROBLEMS])
    rel = rel_shown(path, project)
    memory_id = shown_text(os.path.basename(rel)[:-5])[:80]
    example = ("--related-file PATH, or --no-related-files" if any(f.startswith("related_files") for f in fields)
               else "--tag")
    return (f"{rel} changed outside the CLI and is not a valid memory (problems in: {', '.join(fields[:8])}: "
            f"{listed}). It was left where it is. See every problem with {cli_command()} validate \"{rel}\"; fix "
            f"them with {cli_command()} update {memory_id} (for example {example}), or ask the user to edit the file.")


def check_tool_result(payload: dict):
    """PostToolUse handler: report invalid or lost memory files the tool changed; never move one."""
    stores = stores_of(payload) if payload.get("tool_name") in WRITE_TOOLS + SHELL_TOOLS else []
    if not stores:
        return None
    store = stores[0]
    config = load_config(store)
    changed, removed, before = _changed_files(payload, store, config)
    project = project_root_of(store)
    checked = ((path, check_file(path, config, store)) for path in changed[:MAX_CHECKED])
    invalid = [_invalid_note(path, problems, project) for path, problems in checked if problems]
    if len(changed) > MAX_CHECKED:  # a big pull: the hook must answer within its time-out
        invalid.insert(0, f"{len(changed) - MAX_CHECKED} more memory files changed and were not checked here; "
                       f"run {cli_command()} validate to check them all.")
    blobs = {rel: old[2] for rel, old in (before or {}).items()
             if isinstance(old, list) and len(old) > 2 and isinstance(old[2], str)}  # before the call
    lost = [(path, blobs.get(os.path.relpath(path, store)), True) for path in removed]
    rewritten = [(path, blobs.get(os.path.relpath(path, store))) for path in changed]
    kept = cli_writes(store) if any(blob for _, blob in rewritten) else []  # what the CLI wrote (update, retire...)
    lost += [(path, blob, False) for path, blob in rewritten  # a loss only when the previous version is known
             if blob and current_blob(path) not in [blob] + kept]  # and changed, not just touched
    lost_notes = _lost_notes(store, project, lost)
    notes = invalid[:MAX_LISTED] + lost_notes[:MAX_LISTED]
    hidden = len(invalid) + len(lost_notes) - len(notes)
    if changed or removed:  # the index patched now, or (the lock busy) by the next prompt
        with contextlib.suppress(LockBusy, OSError), store_lock(store, blocking=False):
            apply_changes(store, config)
    if not notes:
        return None
    text = ("team-memory: " + " ".join(notes) + (f" (and {hidden} more)" if hidden > 0 else "") +
            f" Write memories with {cli_command()} save --record '<JSON>' (a whole record), or add/update; to stop "
            f"recalling one, use {cli_command()} retire ID --reason R.")
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[: MAX_CONTEXT_CHARS - 1] + "\u2026"
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}
