"""The tool hooks' fast path for PowerShell lines: ``toolgate``'s rule, with PowerShell's readers.

``read_only_line(command, stores)`` is True only for a line made of cmdlets and aliases that read
and print (``Get-Content``, ``Get-ChildItem``, ``ls``, ``Select-String``, ``git status``...: see
``READ_ONLY``), joined by ``;``, ``|``, ``&&`` or ``||``, with plain words and quotes only (no
``$``, backtick, redirection, parenthesis, brace, bracket, ``@`` or ``#``), only ASCII, and no
``claude``, ``memory`` or store path anywhere once quotes are removed and ``\\`` read as ``/``.
Such a line writes no file, so neither the guard nor the snapshot is needed; anything else goes
to the full guard (``pwshjudge``). ``tests/test_pwsh.py`` checks the full guard agrees.
"""
from __future__ import annotations

MAX_COMMAND = 4000  # toolgate's bound

# Programs sort, tee and friends are left out: on Linux and macOS ``sort`` is the native one (``-o FILE``).
READ_ONLY = frozenset((
    "get-content", "gc", "cat", "type", "get-childitem", "gci", "ls", "dir", "select-string", "sls", "test-path",
    "get-location", "gl", "pwd", "write-output", "echo", "write-host", "get-date", "get-item", "gi",
    "resolve-path", "split-path", "join-path", "measure-object", "measure", "select-object", "select",
    "sort-object", "format-table", "ft", "format-list", "fl", "get-process", "get-command", "gcm", "get-help",
    "get-filehash", "get-unique", "out-string", "out-host", "get-itemproperty", "convertfrom-json",
))
_REFUSED = frozenset("@#`$<>(){}[]")


def read_only_line(command: str, stores: list, simple_commands, git_reads) -> bool:
    """True when this PowerShell line certainly writes no file (see the module doc).

    ``simple_commands`` and ``git_reads`` are ``toolgate``'s word reader and its ``git`` rule (passed in:
    ``toolgate`` imports this module, never the other way round)."""
    if len(command) > MAX_COMMAND or not command.isascii() or any(c in _REFUSED for c in command):
        return False
    text = command.replace("\\", "/")
    plain = text.replace("'", "").replace('"', "").lower()
    if "claude" in plain or "memory" in plain or any(s.replace("\\", "/") in plain for s in stores):
        return False
    commands = simple_commands(text)
    return commands is not None and all(_reads(words, git_reads) for words in commands)


def _reads(words: list, git_reads) -> bool:
    name = words[0].lower()
    if name == "git":
        return git_reads(words)
    return name in READ_ONLY and not any(w.lower().startswith(("-outf", "-filep", "-lit")) for w in words[1:])
