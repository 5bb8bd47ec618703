"""The PreToolUse write guard: memories are written through the CLI, nothing else.

A write tool into ``.claude/memory/``, or a shell line that could write there, is denied with the CLI command to use.
The memory files are snapshot before a shell line is judged: PostToolUse (``posttool``) reports what it changed anyway.
"""
from __future__ import annotations

import os

from ..base.cliname import cli_command
from ..base.config import load_config
from ..base.model import MEMORY_REL
from ..records.hookio import project_dir_of
from ..records.snapshot import save_snapshot
from ..records.store import project_root_of, repo_root_of
from .autoallow import allow_cli_call, allow_decision
from .scope import SHELL_TOOLS, shown_text, stores_of, tool_paths
from .shelljudge import judge
from .shellpaths import MAX_COMMAND_CHARS, may_name_store, reach
from .toolgate import WRITE_TOOLS, outside_store


def _deny(what: str, path: str | None) -> dict:
    where = f" ({what}{': ' + shown_text(path) if path else ''})"
    reason = (f"team-memory: memory files in .claude/memory/ are written only through the team-memory CLI, which "
              f"validates them, strips private sections and secrets, and updates the index{where}. "
              f"Use instead: {cli_command()} save --record '<the whole record as one line of JSON>', "
              f"{cli_command()} update ID --title T --tag T --content-json JSON (changed fields), "
              f"{cli_command()} retire ID --reason R, or add/archive/restore (see {cli_command()} --help). "
              f"Reading memory files is allowed.")
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def guard_tool_use(payload: dict):
    """PreToolUse handler: the deny decision, or None to let the tool run."""
    tool, tool_input, cwd = payload.get("tool_name"), payload.get("tool_input"), project_dir_of(payload)
    stores = stores_of(payload)
    if tool in WRITE_TOOLS:
        for path in tool_paths(payload):
            if reach(path, stores, False):  # tool_paths are normalized
                return _deny(f"{tool} of", os.path.relpath(path, cwd))
        return None
    command = tool_input.get("command") if tool in SHELL_TOOLS and isinstance(tool_input, dict) else None
    if not isinstance(command, str) or not command.strip():
        return None
    roots = [cwd, repo_root_of(cwd), os.environ.get("CLAUDE_PROJECT_DIR")] + [project_root_of(s) for s in stores]
    roots = [root for root in roots if root]  # where this call's project can be
    if stores and not outside_store(payload):  # before the judge: whatever it lets through, PostToolUse compares
        save_snapshot(payload, stores[0], load_config(stores[0]))
    if len(command) > MAX_COMMAND_CHARS:  # PowerShell (and Windows paths) write \
        what = "a command line too long to check" if may_name_store(command.replace("\\", "/"), stores) else None
    else:
        line_judge = judge
        if tool == "PowerShell":
            from .pwshjudge import judge as line_judge  # loaded for PowerShell calls only
        judged = set(stores) | {os.path.join(root, *MEMORY_REL) for root in roots}  # and where one would be created
        what = line_judge(command, cwd, sorted(judged))
    if what is not None:
        return _deny(what, None)
    return allow_decision() if tool == "Bash" and allow_cli_call(command, cwd, roots, payload) else None
