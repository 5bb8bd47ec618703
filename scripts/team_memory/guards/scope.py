"""What a tool call concerns, for the guard and its PostToolUse report: the stores it can touch, the paths it names,
how a file is named back to Claude, and the CLI to name instead.
"""
from __future__ import annotations

import contextlib
import os

from ..base.model import MEMORY_REL
from ..base.safefs import UnsafePath, is_real_dir, store_problem
from ..records.hookio import project_dir_of
from ..records.store import find_memory_root
from .toolgate import PATH_KEYS

SHELL_TOOLS = ("Bash", "PowerShell")  # PowerShell: Claude Code's shell tool on Windows, read by ``pwshjudge``


def stores_of(payload: dict) -> list:
    """Real paths of the stores this call could touch that the link rule allows (a linked one is guarded by name)."""
    cwd = project_dir_of(payload)
    found = {os.path.join(cwd, *MEMORY_REL)}
    with contextlib.suppress(UnsafePath):
        found.add(find_memory_root(cwd))
    if os.environ.get("CLAUDE_PROJECT_DIR"):
        found.add(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], *MEMORY_REL))
    return sorted({os.path.realpath(s) for s in found
                   if s and is_real_dir(s) and store_problem(s) is None})


def shown_text(text: str) -> str:
    """A message about a file as Claude reads it: one line, secrets hidden, no tag that could pose as the client's."""
    from ..records.exposure import shown_message
    from ..base.sanitize import neutralize_block
    return neutralize_block(shown_message(text))


def rel_shown(path: str, project: str) -> str:
    from ..base.sanitize import shown_path
    return shown_text(shown_path(os.path.relpath(path, project)))


def tool_paths(payload: dict) -> list:
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    cwd, values = project_dir_of(payload), [tool_input.get(key) for key in PATH_KEYS]
    return [os.path.normpath(os.path.join(cwd, os.path.expanduser(value))) for value in values
            if isinstance(value, str) and value and "\x00" not in value]
