"""Can a Bash line write into a memory store? The write guard's decision, from what the line can do.

``judge(command, cwd, stores)`` returns None (the line provably stays outside the
stores, or only reads) or a short description of a way the line can change one
(``"rm of .claude/memory/decisions/x.json"``). Commands run in order: ``cd`` and
``VAR=value`` are followed, ``$(...)`` and ``<(...)`` are judged too, pipes feed
``xargs`` and interpreters. Where a value cannot be known (``$VAR`` set elsewhere, a
substitution, an archive's content, inline code), it stands for any text: the line
is denied only if that could reach a store (``shellpaths.reach``).

Programs fall into three kinds: readers (``cat``, ``grep``, ``git status``, the
team-memory CLI...) are always allowed; known writers (``rm``, ``cp``, ``sed -i``,
``tar -x``, ``git checkout``, ``find -delete``...) are checked on the paths they
write; any other program is denied only when one of its arguments names a store or
something inside it (a build tool run at the project's root is not a memory write;
PostToolUse still checks what any command changed).
"""
from __future__ import annotations

import os

from .shellpaths import MAX_ALTERNATIVES, absolute
from .shellscan import UNKNOWN, literal, parse
from .shellpaths import may_name_store
from .shellwords import Denied, TimeUp, check, State, word_text, expand

WRAPPERS = {"sudo": "ugpCDrtUh", "doas": "uC", "nice": "n", "ionice": "cnp", "nohup": "", "time": "f", "command": "",
            "builtin": "", "exec": "a", "stdbuf": "ioe", "timeout": "ks", "chrt": "", "taskset": "", "unbuffer": "",
            "caffeinate": "tw", "busybox": "", "toybox": "", "strace": "eoposu", "ltrace": "eoposu", "watch": "nd",
            "flock": "wE", "setsid": "", "noglob": "", "xvfb-run": "", "catchsegv": "", "rlwrap": ""}
_SKIP_ONE = {"timeout", "taskset", "chrt", "flock"}  # a duration, a mask, a lock file before the command
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac", "in",
            "function", "coproc", "select"}


def judge(command: str, cwd: str, stores: list):
    """None if the line cannot change a store, else what can (a short text)."""
    state = State(cwd, stores, command, run_commands, judge_command)
    flags: dict = {}
    try:
        run_commands(parse(command, 0, flags), state, None)
        if flags.get("unfinished") and "claude" in command.lower():
            raise Denied("a command line with an unfinished quote")
        if flags.get("too deep"):
            raise Denied("a command line nested too deeply to check")
    except Denied as exc:
        return str(exc)
    except RecursionError:
        return "a command line too deeply nested to check"
    except TimeUp:
        read = command.replace("\\\n", "").replace("\\", "").replace("'", "").replace('"', "")  # quotes read away
        named = may_name_store(read, stores) or "$'" in command  # $'\x2e...' escapes: not decoded here
        return "a command line too long to check in time" if named else None
    return None


# --- running a list of commands ----------------------------------------------------------------------

def run_commands(commands: list, state: State, stdin) -> None:
    piped = stdin
    for cmd in commands:
        state.tick("a command line")
        for nested in ([cmd.nested] if cmd.nested else []):
            run_commands(nested, state.copy(), None)
        words = [expand(w, state) for w in cmd.words]
        out = _redirects(cmd.redirects, words, state)
        feed = out if out is not None else piped
        produced = judge_command(words, cmd.words, state, feed)
        piped = produced if cmd.sep in ("|", "|&") else None


def _redirects(redirects: list, words: list, state: State):
    """Check output redirections; return what the command reads on stdin (text or None)."""
    stdin = None
    for op, target in redirects:
        if op in ("<<", "<<<"):
            body = "".join(v for k, v in target if k == "s") if op == "<<" else word_text(expand(target, state))
            stdin = ("text", body, target)
        elif op == "<":
            stdin = ("file", expand(target, state))
        elif op in (">&", "<&") and (literal(target).isdigit() or literal(target) == "-"):
            continue
        elif ">" in op or op in ("<>", ">&"):
            check(expand(target, state), state, False, f"output redirection {op}")
    return stdin


def judge_command(words: list, raw: list, state: State, stdin):
    """Judge one simple command; return what it prints for a pipe (("paths", alts), ("text", s, word) or None)."""
    state.in_time()  # xargs, sudo, env... hand their command back here, not through run_commands
    words, raw = _assignments(words, raw, state)
    while words:
        name = os.path.basename(word_text(words[0]))
        if name == "function" and len(words) > 1:  # function f { ...; }: the body is judged as f() {...} is
            words, raw = words[2:], raw[2:]
        elif name in KEYWORDS or name == "{":
            words, raw = words[1:], raw[1:]
        elif name == "for" and len(words) >= 2:
            values = [a for w in words[3:] for a in w] if len(words) > 2 and word_text(words[2]) == "in" else [UNKNOWN]
            state.vars[word_text(words[1])] = values[:MAX_ALTERNATIVES] or [UNKNOWN]
            return None
        elif name == "case":
            return None
        elif name in WRAPPERS:
            words, raw = _unwrap(name, words, raw)
        elif name == "env":
            rest = _env(words, state)
            if rest is None:
                return None
            words, raw = words[len(words) - len(rest):], raw[len(raw) - len(rest):]
            words, raw = _assignments(words, raw, None)
        else:
            break
    if not words:
        return None
    from .shellcmds import command as run_command  # for speed: loaded on a Bash call's first command only
    return run_command(os.path.basename(word_text(words[0])).lower(), words, raw, state, stdin)


def _assignments(words: list, raw: list, state):
    """Leading ``NAME=value`` words: kept for later commands when alone (``state`` given)."""
    keep = []
    lead = 1 if words and word_text(words[0]) in ("export", "declare", "local", "readonly", "typeset") else 0
    i = lead
    while i < len(words):
        part = raw[i][0] if raw[i] else ("", "")
        name = part[1].split("=", 1)[0] if part[0] == "s" and "=" in part[1] else ""
        if not name or not name.replace("_", "a").isalnum() or name[0].isdigit():
            break
        keep.append((name, _assigned(raw[i], state, name) if state is not None else None))
        i += 1
    if state is not None and (i == len(words) or lead):
        for name, value in keep:
            state.vars[name] = value
        if lead:
            return [], []
    return (words[i:], raw[i:]) if keep else (words, raw)


def _assigned(word: list, state: State, name: str) -> list:
    first = word[0][1].split("=", 1)[1]
    rest = word[1:]
    if not first and len(rest) == 1 and rest[0][0] == "u" and "mktemp" in state.text:
        return [os.path.join(os.environ.get("TMPDIR") or "/tmp", "tmp.mktemp-new")]  # a fresh name: never a store
    return expand([("s", first)] + rest, state)


def _unwrap(name: str, words: list, raw: list):
    i = 1
    takes = WRAPPERS[name]
    while i < len(words):
        t = word_text(words[i])
        if t.startswith("-") and len(t) > 1:
            if len(t) == 2 and t[1] in takes:
                i += 1
            i += 1
        elif name == "sudo" and "=" in t:
            i += 1
        else:
            break
    if name in _SKIP_ONE and i < len(words):
        i += 1
    return words[i:], raw[i:]


def _env(words: list, state: State):
    """The command ``env`` runs (words), None if it only prints; follows ``-C DIR`` and ``-S STRING``."""
    i = 1
    while i < len(words):
        t = word_text(words[i])
        if t in ("-u", "--unset"):
            i += 2
        elif t in ("-C", "--chdir"):
            if i + 1 < len(words):
                state.cwd = absolute(words[i + 1][0], state.cwd)
            i += 2
        elif t in ("-S", "--split-string"):
            if i + 1 < len(words):
                run_commands(parse(word_text(words[i + 1])), state.copy(), None)
            return None
        elif t.startswith("-") or "=" in t:
            i += 1
        else:
            return words[i:]
    return None
