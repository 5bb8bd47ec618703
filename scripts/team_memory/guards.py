"""Write guards for Claude Code: memories are written through the CLI, nothing else.

``PreToolUse`` (``guard_tool_use``): a ``Write``/``Edit``/``MultiEdit`` into a
``.claude/memory/`` folder, or a ``Bash`` line that would write, move or delete
there (``>``/``>>``, ``tee``, ``cp``/``mv`` into it, ``rm``, ``sed -i``...; see
``shellscan``), is denied with the CLI command to use instead. Reading stays
allowed, and so does ``memory-config.json`` (settings, not memories).

Before a ``Bash`` line runs, the memory files are snapshot (``snapshot``) for
``PostToolUse`` (``posttool.check_tool_result``), which reports what the line
changed anyway and never moves a file.

Both run inside ``hookio.run_hook``: they fail open and never wait on a lock.
"""
from __future__ import annotations

import fnmatch
import os

from .config import load_config
from .model import CONFIG_NAME, MEMORY_REL
from .retrieve import project_dir_of
from .safefs import UnsafePath, is_real_dir, store_problem
from .shellscan import write_targets
from .snapshot import save_snapshot
from .store import find_memory_root

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "memory.py")
MAX_COMMAND_CHARS = 100_000  # longer Bash lines are judged whole: parsing 20 MB would outlast the hook's time-out


def cli() -> str:
    """How to run this checkout's CLI, from any folder (plugin or drop-in install)."""
    return f'python3 "{SCRIPT}"'


def _stores(payload: dict) -> list:
    """Real paths of the memory stores this tool call could touch: only those the link rule allows
    (``safefs.store_problem``); a linked store is still guarded by name, never snapshot or indexed."""
    cwd = project_dir_of(payload)
    found = {os.path.join(cwd, *MEMORY_REL)}
    try:
        found.add(find_memory_root(cwd))
    except UnsafePath:
        pass
    if os.environ.get("CLAUDE_PROJECT_DIR"):
        found.add(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], *MEMORY_REL))
    return sorted({os.path.realpath(s) for s in found
                   if s and is_real_dir(s) and store_problem(s) is None})


def _memory_part(path: str):
    """The path's parts after a ``.claude/memory`` pair (``[]`` for the folder itself); None if not in one."""
    parts = [p.lower() for p in os.path.normpath(path).split(os.sep)]
    for i in range(len(parts) - 1):
        if parts[i] == MEMORY_REL[0] and parts[i + 1] == MEMORY_REL[1]:
            return parts[i + 2:]
    return None


def protected(path: str, stores: list, removes: bool = False) -> bool:
    """True if writing ``path`` changes a memory store (or, for ``removes``, would remove one whole)."""
    rest = _memory_part(path)
    if rest is not None:
        return rest != [CONFIG_NAME.lower()]
    real = os.path.realpath(path)
    for store in stores:
        if real == store or real.startswith(store + os.sep):
            return real != os.path.join(store, CONFIG_NAME)
        if removes and (store.startswith(real.rstrip(os.sep) + os.sep) or fnmatch.fnmatch(store, path)):
            return True  # rm -rf .claude, mv .claude elsewhere, rm -r .cl*
        if any(c in path for c in "*?[") and fnmatch.fnmatch(os.path.join(store, "x", "x.json"), path):
            return True
    return False


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
              f"or {cli()} add/update ID/retire ID --reason R/archive ID --reason R "
              f"(see {cli()} --help). Reading memory files is allowed.")
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
        if stores:
            save_snapshot(payload, stores[0], load_config(stores[0]))
        return None
    for target in write_targets(command, project_dir_of(payload)):
        if target.path is not None and protected(target.path, stores, target.removes):
            return _deny(target.what, os.path.relpath(target.path, project_dir_of(payload)))
        if target.path is None and _mentions_store(command, stores):  # paths unknown: judge the whole line
            return _deny(target.what, None)
    if stores:
        save_snapshot(payload, stores[0], load_config(stores[0]))
    return None
