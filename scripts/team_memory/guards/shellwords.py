"""The Bash guard's vocabulary: what a word can be, which programs read, copy or remove, and the
state a line carries from one command to the next (``cd``, ``VAR=value``).

``shelljudge`` walks a line with these; ``shellcmds``, ``shelltools`` and ``shellfind`` judge one
program each with them, and hand nested lines back through ``state.run`` / ``state.command``.
"""
from __future__ import annotations

import os
import time

from .shellpaths import MAX_ALTERNATIVES, absolute, braces, plain_text, reach
from .shellscan import UNKNOWN

READERS = {
    "cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "ll", "tree", "wc",
    "file", "stat", "du", "df", "diff", "cmp", "comm", "jq", "cut", "tr", "nl", "od", "hexdump", "md5sum", "sha1sum",
    "sha256sum", "sha512sum", "shasum", "cksum", "basename", "dirname", "realpath", "readlink", "echo", "printf",
    "test", "[", "[[", "true", "false", "pwd", "which", "type", "whereis", "column", "fold", "fmt", "strings", "bat",
    "date", "printenv", "id", "whoami", "uname", "hostname", "ps", "sleep", "wait", "exit", "return", "set", "shopt",
    "unset", "history", "seq", "yes", "expr", "let", "paste", "join", "man", "help", "zcat", "zless",
    "base64", "xxd", "sort", "uniq", "awk", "gawk", "sed", "git", "lsof", "pgrep", "kill", "jobs", "fg", "bg",
    "shift", "source", ".", "hash", "tput", "clear", "rev", "tac", "look", "getent", "nproc", "free", "uptime",
    "env", ":", "mktemp",
}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox-sh"}
INTERPRETERS = {"python", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit", "rscript",
                "osascript", "pwsh", "tclsh", "julia", "groovy", "jshell"}
RECURSIVE = {"-r", "-R", "--recursive"}
REMOVERS = {"rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put", "gio"}
META = {"chmod", "chown", "chgrp", "setfacl", "chattr", "xattr", "touch", "truncate", "mkdir", "mkfifo", "mknod",
        "tee", "sponge", "shred", "dos2unix", "unix2dos", "gunzip", "gzip", "bunzip2", "bzip2", "unxz", "xz",
        "zstd", "unzstd", "split", "csplit", "patch", "ex", "ed", "vi", "vim", "nvim", "nano", "emacs", "code",
        "subl", "setfattr", "restorecon", "chcon", "install", "ln", "link"}
COPIERS = {"cp", "mv", "install", "rsync", "scp", "ln", "link", "rclone", "gcp", "gmv", "ditto"}


JUDGE_SECONDS = 1.5  # the judge's time: past it, a line that names the store is denied, any other is let through
MAX_STEPS = 50_000  # more simple commands than fit in guards.MAX_COMMAND_CHARS: every line under it is read whole


class Denied(Exception):
    """A way the line can change a store: ``str(exc)`` says which."""


class TimeUp(Exception):
    """The judge ran out of time (``JUDGE_SECONDS``): the snapshot taken before it is the backstop."""


class State:
    """What a line has set so far (folder, variables), and how a nested line or command is judged:
    ``run(commands, state, stdin)`` and ``command(words, raw, state, stdin)``, passed in by ``shelljudge``."""

    def __init__(self, cwd: str, stores: list, text: str, run=None, command=None):
        self.cwd, self.stores, self.text, self.origin = cwd, stores, text, cwd
        self.run, self.command = run, command
        self.vars: dict = {}
        self.steps = 0
        self.deadline = time.monotonic() + JUDGE_SECONDS

    def copy(self):
        other = State(self.cwd, self.stores, self.text, self.run, self.command)
        other.vars, other.steps, other.deadline, other.origin = dict(self.vars), self.steps, self.deadline, self.origin
        return other

    def tick(self, what: str) -> None:
        """One more command judged: within the step bound and the judge's time, else stop."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Denied(f"{what} too long to check")
        self.in_time()

    def in_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise TimeUp()


# --- words -----------------------------------------------------------------------------------------

def expand(word: list, state: State) -> list:
    """The alternatives a word can be (patterns; see ``shellpaths``), at most ``MAX_ALTERNATIVES``."""
    alts = [""]
    for kind, value in word:
        if kind == "s":
            choices = [value]
        elif kind == "v":
            choices = _variable(value, state)
        else:
            choices = [UNKNOWN]
        alts = [a + c for a in alts for c in choices]
        if len(alts) > MAX_ALTERNATIVES:
            return [UNKNOWN]
    out = []
    for a in alts:
        out.extend(braces(a))
    return out[:MAX_ALTERNATIVES] if len(out) <= MAX_ALTERNATIVES else [UNKNOWN]


def _variable(name: str, state: State) -> list:
    if name in state.vars:
        return state.vars[name]
    if name == "PWD":
        return [state.cwd]
    if name in ("OLDPWD", "RANDOM", "BASH_SOURCE"):
        return [UNKNOWN]
    value = os.environ.get(name)
    return [value] if value is not None else [UNKNOWN]


def word_text(alts: list) -> str:
    """One readable spelling of a word (for option names and messages)."""
    return plain_text(alts[0]) if alts else ""


def check(alts: list, state: State, removes: bool, what: str) -> None:
    """Deny if a path can reach a store: from the folder the line moved to, or from where it started (a ``cd``
    that fails leaves the shell there: ``cd nowhere; rm -rf .claude``)."""
    for alt in alts:
        bases = (state.cwd,) if state.cwd == state.origin else (state.cwd, state.origin)
        if any(reach(absolute(alt, base), state.stores, removes) for base in bases):
            raise Denied(f"{what} {shown(plain_text(alt))}".strip())


def shown(text: str, limit: int = 120) -> str:
    """Text from the command line, safe to echo: printable ASCII only, no tags or backquotes, bounded."""
    out = "".join(c if " " <= c <= "~" and c not in "<>`" else "?" for c in text)
    return out if len(out) <= limit else out[: limit - 3] + "..."


def operands(words: list, takes_value: str = "") -> list:
    """Non-option words (expanded); ``takes_value``: short options whose value is the next word."""
    out, i, dashes = [], 0, False
    while i < len(words):
        text = word_text(words[i])
        if dashes or not text.startswith("-") or text == "-":
            out.append(words[i])
        elif text == "--":
            dashes = True
        elif len(text) == 2 and text[1] in takes_value:
            i += 1
        i += 1
    return out


def flags_of(words: list) -> set:
    out = set()
    for w in words:
        t = word_text(w)
        if t.startswith("--"):
            out.add(t.split("=", 1)[0])
        elif t.startswith("-") and len(t) > 1:
            out.update("-" + c for c in t[1:])
    return out


def code_reaches(code: str, state: State) -> bool:
    """Can inline code reach a store? It names one, or works relative to a folder that holds one."""
    where = "inside" if reach(state.cwd, state.stores, False) else ("above" if reach(state.cwd, state.stores, True)
                                                                    else "")
    from .codescan import reaches  # imports re: only for lines that hand code to an interpreter
    return reaches(code, state.stores, where)
