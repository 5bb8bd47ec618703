"""The plugin's own permission: Claude may run the team-memory CLI's store commands without asking.

A plugin cannot ship ``permissions`` and ``claude -p`` refuses what it would ask, so PreToolUse approves one shape,
``python3 "<this CLI>" <command> [arguments]`` (or ``python``, ``py -3``): this very CLI (compared as files, a
look-alike is not approved), a command of ``COMMANDS``, nothing the shell would expand or chain (``shell_literal``), no
option that reads or writes a file (``--input -`` aside; argparse's abbreviations count as the full option), ``--root``
only for this project, an ``update`` only ``--reviewed`` or of this session's own summary, never with
``dangerouslyDisableSandbox``. The user's ``deny`` and ``ask`` rules still apply after it (Claude Code 2.1.330).
``TEAM_MEMORY_AUTO_ALLOW=0`` turns it off; the store's config cannot (it comes by ``git pull``).
"""
from __future__ import annotations

import os
import re

from ..base.cliname import DROP_IN_CLI, PYTHONS, SCRIPT, same_file
from ..records.hookio import session_short

COMMANDS = ("similar", "save", "update", "show", "search", "list", "stats", "review")
FILE_OPTIONS = ("--input", "--content-file", "--output", "--keep")
UPDATE_WITH_VALUE = ("--root", "--title", "--tag", "--content-json", "--content-file", "--related-file", "--confidence",
                     "--expect-hash", "--summary")
UPDATE_OPTIONS = UPDATE_WITH_VALUE + ("--version", "--no-related-files", "--reviewed", "--json", "--help")
UPDATE_KEEPING = ("--root", "--expect-hash", "--reviewed", "--summary", "--json")  # no memory's words rewritten
MAX_COMMAND_CHARS = 20_000
REASON = "team-memory: its own CLI (validated write or look-up), approved by the plugin's hook"


# One simple command with no expansion: outside quotes no special character (``'\\''`` aside), inside double quotes
# no ``$``, backquote, backslash or line break. Linear: each alternative starts with a character of its own.
_LITERAL = re.compile(r"""(?:[^$`\\;&|<>(){}*?\[\]~#\n\r\t'"]|'[^']*'|"[^"$`\\\n\r]*"|\\')*""")


def shell_literal(command: str) -> bool:
    """True when bash would run ``command`` as one simple command with no expansion (outside quotes only ``'\\''``)."""
    return _LITERAL.fullmatch(command) is not None


def _arguments_ok(args: list, cwd: str, project_roots: list) -> bool:
    roots = [r for root in project_roots for r in (root, os.path.join(root, ".claude", "memory"))]
    i = 0
    while i < len(args):
        if args[i] == "--":
            return False
        head, inline, value = args[i].partition("=")  # --opt, --opt=v or an abbreviation: the option it stands for
        name = next((n for n in FILE_OPTIONS + ("--root",) if n.startswith(head)), None) if head[:2] == "--" else None
        if name and not inline:
            value = args[i + 1] if i + 1 < len(args) else None
        i += 2 if name and not inline else 1
        if name == "--root" and value is not None:
            if not any(same_file(os.path.join(cwd, value), root) for root in roots):
                return False
        elif name and not (name == "--input" and value == "-"):
            return False
    return True


def _own_summary(memory_id: str, session_id) -> bool:
    """True when ``memory_id`` is this session's summary (``capture.summary_id``'s form, any day)."""
    short = session_short(session_id) if isinstance(session_id, str) else ""
    return bool(short) and memory_id.startswith("session-") and memory_id.endswith(f"-{short}") \
        and len(memory_id) == len("session-YYYY-MM-DD-") + len(short)


def _update_ok(args: list, session_id) -> bool:
    """``update`` is approved when it rewrites nothing (``--reviewed``) or rewrites this session's own summary."""
    memory_id, rewrites, reviewed, i = None, False, False, 0
    while i < len(args):
        arg = args[i]
        i += 1
        head = arg.split("=", 1)[0]
        names = [n for n in UPDATE_OPTIONS if n.startswith(head)] if head.startswith("--") else []
        if arg == "-":  # content on stdin
            rewrites = True
        elif not arg.startswith("-"):
            memory_id = arg if memory_id is None else memory_id
        elif len(names) != 1:
            return False  # unknown or ambiguous: argparse refuses it anyway
        else:
            rewrites |= names[0] not in UPDATE_KEEPING
            reviewed |= names[0] == "--reviewed"
            i += names[0] in UPDATE_WITH_VALUE and "=" not in arg
    return memory_id is not None and (_own_summary(memory_id, session_id) if rewrites else reviewed)


def allow_cli_call(command: str, cwd: str, project_roots: list, payload=None) -> bool:
    """True when ``command`` is this CLI's store command in the one approved shape (see the module doc)."""
    if os.environ.get("TEAM_MEMORY_AUTO_ALLOW", "1").strip() in ("0", "false", "no", "off"):
        return False
    tool_input = payload.get("tool_input") if isinstance(payload, dict) else None
    if isinstance(tool_input, dict) and tool_input.get("dangerouslyDisableSandbox") not in (None, False):
        return False
    if "memory.py" not in command or len(command) > MAX_COMMAND_CHARS or not shell_literal(command.strip()):
        return False
    from .toolgate import simple_commands  # the guard's own shell-word reader
    commands = simple_commands(command)
    argv = commands[0] if commands and len(commands) == 1 else []
    python = next((name.split() for name in PYTHONS if argv[:len(name.split())] == name.split()), None)
    if python is None:
        return False
    argv = argv[len(python) - 1:]  # [the interpreter's last word, the script, the command, ...]
    if len(argv) < 3 or argv[2] not in COMMANDS or not same_file(os.path.join(cwd, argv[1]), SCRIPT):
        return False
    if not os.path.isabs(argv[1]) and os.path.normpath(argv[1]) != DROP_IN_CLI:
        return False
    session = (payload or {}).get("session_id")
    return (argv[2] != "update" or _update_ok(argv[3:], session)) and _arguments_ok(argv[3:], cwd, project_roots)


def allow_decision() -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                   "permissionDecisionReason": REASON}}
