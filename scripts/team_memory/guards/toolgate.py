"""The tool hooks' fast path: ``outside_store(payload)`` is True only when a call certainly cannot write into a store.

A few ``stat`` calls instead of importing the full guard; it may only err towards it (``tests/guards/test_toolgate.py``
compares them): write tools naming no ``.claude``, Bash lines of ``READ_ONLY``/``ORDINARY`` commands, PowerShell
lines of ``PWSH_READ_ONLY`` cmdlets, run from outside every store.
"""
from __future__ import annotations

import os


WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
PATH_KEYS = ("file_path", "notebook_path", "path")
MAX_COMMAND = 4000
# A line of these characters alone is its words, split at spaces: no quote, escape, glob, brace, variable, tilde,
# comment, operator or redirection can be in it.
PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_./=:,+@%")
# Programs that only read and print (given no redirection): the arguments (prefixes) that would make one write or run.
READ_ONLY = dict.fromkeys("ls cat head tail wc grep egrep fgrep pwd echo printf which stat du df date whoami uname id "
                          "true false test basename dirname realpath readlink nl cut tr cmp comm diff cd".split(), ())
READ_ONLY.update(rg=("--pre",), find=("-delete", "-exec", "-ok", "-fprint", "-fls"),
                 git=("--output", "-O", "--open-files-in-pager", "--ext-diff", "-c"))
GIT_READ_ONLY = tuple("status diff log show rev-parse ls-files blame describe shortlog grep".split())
# Test runners, builds, package managers: the full guard judges them only on their arguments (test_toolgate.py
# checks it knows none). Formatters (``black .``) are left out: their arguments are what they rewrite.
ORDINARY = frozenset("pytest py.test tox nox make gmake ninja cmake ctest meson npm yarn pnpm cargo go mvn gradle jest "
                     "vitest mocha mypy pyright tsc rspec rake bundle dotnet gcc cc clang g++ clang++ javac pip pip3 "
                     "uv poetry pre-commit".split())
# PowerShell's reading cmdlets and aliases (``sort``, ``tee``... left out: on Linux and macOS they are programs).
PWSH_READ_ONLY = frozenset((
    "get-content gc cat type get-childitem gci ls dir select-string sls test-path get-location gl pwd write-output "
    "echo write-host get-date get-item gi resolve-path split-path join-path measure-object measure select-object "
    "select sort-object format-table ft format-list fl get-process get-command gcm get-help get-filehash get-unique "
    "out-string out-host get-itemproperty convertfrom-json").split())


def outside_store(payload: dict) -> bool:
    """True when this tool call certainly cannot write into a memory store (see the module doc); unsure: False."""
    try:
        tool, tool_input, cwd = payload.get("tool_name"), payload.get("tool_input"), payload.get("cwd")
        if not isinstance(tool_input, dict) or not isinstance(cwd, str) or not os.path.isdir(cwd):
            return False  # isdir is False for "" and for a name holding NUL
        stores = _stores(cwd)
        if _touches(cwd, stores):
            return False  # working inside a store (or .claude): relative paths land there
        if tool in WRITE_TOOLS:
            return _write_outside(tool_input, cwd, stores)
        command = tool_input.get("command")
        if not isinstance(command, str) or len(command) > MAX_COMMAND or not command.isascii():
            return False
        if tool == "Bash":
            return not _names(command, stores) and _quiet_line(command, stores, cwd)
        return tool == "PowerShell" and not _names(command.replace("\\", "/"), stores) and _pwsh_read_only(command)
    except Exception:  # noqa: BLE001 - unsure: the full guard decides
        return False


def _stores(cwd: str) -> list:
    """Real paths (lower case) of every ``.claude/memory`` at or above ``cwd``, and the project's."""
    candidates, here, parent = [], None, os.path.abspath(cwd)
    while here != parent:  # cwd, then each folder above it, the root last
        here, parent = parent, os.path.dirname(parent)
        candidates.append(os.path.join(here, ".claude", "memory"))
    if os.environ.get("CLAUDE_PROJECT_DIR"):
        candidates.append(os.path.join(os.path.abspath(os.environ["CLAUDE_PROJECT_DIR"]), ".claude", "memory"))
    return [os.path.realpath(c).lower() for c in candidates if os.path.isdir(c)]


def _touches(path: str, stores: list, above: bool = False) -> bool:
    """Does ``path`` (or its real path) name ``.claude`` or lie in a store (``above``: or hold one)?"""
    real = os.path.realpath(path).lower().replace(os.sep, "/")  # / text (base.pathtext's rule), without importing it
    stores = [s.replace(os.sep, "/").rstrip("/") + "/" for s in stores]
    return ".claude" in path.lower() or ".claude" in real or any((real + "/").startswith(s) for s in stores) or (
        above and any(s.startswith(real.rstrip("/") + "/") for s in stores))


def _write_outside(tool_input: dict, cwd: str, stores: list) -> bool:
    if ".claude" in repr(tool_input).lower():  # in any value (or key) at any depth
        return False
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or "\x00" in value or any(c in value for c in "*?["):
            return False
        if _touches(os.path.normpath(os.path.join(cwd, os.path.expanduser(value))), stores):
            return False
    return True


def _names(command: str, stores: list) -> bool:
    """Does the line hold ``claude``, ``memory`` or a store's path (quotes removed or not)?"""
    plain, lowered = command.replace("'", "").replace('"', "").lower(), command.lower()
    return "claude" in plain or "memory" in plain or any(s.replace("\\", "/") in plain or s in lowered for s in stores)


def _quiet_line(command: str, stores: list, cwd: str) -> bool:
    """Only read-only and ordinary commands (only read-only ones after a ``cd``: later words are relative to it)."""
    commands = simple_commands(command)
    moved = commands is not None and len(commands) > 1 and any(words[0] == "cd" for words in commands)
    return commands is not None and all(_read_only(w) or not moved and _ordinary(w, stores, cwd) for w in commands)


def simple_commands(command: str):
    """The line's simple commands as lists of words (``shellscan``); None for anything beyond plain words and quotes."""
    if command.strip() and all(c in PLAIN for c in command):
        return [command.split()]  # for speed: no reader to import (the tool hooks' 1.4x budget, docs/benchmarks.md)
    from .shellscan import COMMA, parse
    flags: dict = {}
    commands = []
    for cmd in parse(command, 0, flags):
        if cmd.redirects or cmd.nested or any(kind != "s" for word in cmd.words for kind, _ in word):
            return None
        words = ["".join(value for _, value in word).replace(COMMA, ",") for word in cmd.words]
        if any(c < " " for word in words for c in word):  # a glob or brace marker (or a control character)
            return None
        if words:
            commands.append(words)
    return None if flags else commands


def _ordinary(words: list, stores: list, cwd: str) -> bool:
    """A program of ``ORDINARY`` whose arguments, resolved as paths, lie neither in a store nor above one."""
    name, args = words[0], words[1:]
    if name.rstrip("0123456789.") == "python" and args[:1] == ["-m"]:
        name, args = (args[1], args[2:]) if len(args) > 1 else ("", [])
    if name not in ORDINARY:
        return False
    values = [word.split("=", 1)[1] if word.startswith("-") and "=" in word else word for word in args]
    return not any(_touches(os.path.join(cwd, v), stores, above=True) for v in values if v and not v.startswith("-"))


def _pwsh_read_only(command: str) -> bool:
    """A PowerShell line of read-only cmdlets and plain words (quotes kept, ``\\`` as ``/``)."""
    commands = None if any(c in "@#`$<>(){}[]" for c in command) else simple_commands(command.replace("\\", "/"))
    return commands is not None and all(
        _read_only(words) if words[0].lower() == "git" else words[0].lower() in PWSH_READ_ONLY and not any(
            w.lower().startswith(("-outf", "-filep", "-lit")) for w in words[1:]) for words in commands)


def _read_only(words: list) -> bool:
    name = words[0]
    return name in READ_ONLY and (name != "git" or (words + [""])[1] in GIT_READ_ONLY) and not any(
        word.startswith(READ_ONLY[name]) for word in words[1:])
