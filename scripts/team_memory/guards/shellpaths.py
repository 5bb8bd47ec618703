"""Path patterns and the judge's state, shared by the Bash and PowerShell judges.

A pattern is a path whose unknown parts stay open: ``shellscan.UNKNOWN`` (a value that cannot be known: any text,
``/`` included) and the glob markers (within one component, never a leading dot). ``reach`` answers, without
touching the disk, whether some expansion is a store, lies inside one, or (for what removes or moves a folder) holds
one. ``State`` carries what a line has set (folder, variables), its step and time bounds, and how a nested line or
command is judged (``run``/``command``, given by ``shelljudge``); ``check`` raises ``Denied``.
"""
from __future__ import annotations

import os
import time

from ..base.model import DEFAULT_FOLDERS
from ..base.pathtext import slashed
from .shellscan import COMMA, LBRACE, LBRACK, QUEST, RBRACE, RBRACK, STAR, UNKNOWN, UNMARK

MAX_ALTERNATIVES = 32
CONFIG_FILE = "memory-config.json"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")


def names_store(text: str, stores: list) -> bool:
    """Does ``text`` (as the shell reads it: quotes removed, escapes decoded) name a ``.claude`` folder or a store? The
    class rule behind the guard: a word that names the store is never handed to a program the guard cannot read
    (``trap``, an alias, ``git -c``, an unknown program, a pipe into a writer...)."""
    low = slashed(text.lower())
    i = low.find(".claude")
    while i >= 0:
        before, after = low[i - 1:i] if i else "", low[i + 7:i + 8]
        if before not in _NAME_CHARS and after not in _NAME_CHARS:
            return True
        i = low.find(".claude", i + 1)
    return any(slashed(s.lower()) in low for s in stores)


def may_name_store(text: str, stores: list) -> bool:
    """``names_store``, or a glob that can match ``.claude`` (``.cl*``, ``.c?aude``, ``.*``): what a line the judge had
    no time to read is held to."""
    if names_store(text, stores) or "claude" in text.lower():
        return True
    low, i = text.lower(), text.find(".")
    while i >= 0:
        j = i + 1
        while j < len(low) and j - i - 1 < 6 and low[j] == "claude"[j - i - 1]:
            j += 1
        if low[j:j + 1] in ("*", "?", "[", "{"):
            return True
        i = text.find(".", i + 1)
    return False


def is_plain(pattern: str) -> bool:
    return not any(ch < "\x08" for ch in pattern)


def plain_text(pattern: str) -> str:
    for k, v in UNMARK.items():
        pattern = pattern.replace(k, v)
    return pattern.replace(UNKNOWN, "$?")


def braces(pattern: str) -> list:
    """Brace expansion (``a{b,c}`` -> ``ab``, ``ac``), bounded."""
    start = pattern.find(LBRACE)
    if start < 0:
        return [pattern]
    depth, items, last = 0, [], start + 1
    for i in range(start, len(pattern)):
        ch = pattern[i]
        if ch == LBRACE:
            depth += 1
        elif ch == RBRACE:
            depth -= 1
            if depth == 0:
                items.append(pattern[last:i])
                break
        elif ch == COMMA and depth == 1:
            items.append(pattern[last:i])
            last = i + 1
    else:
        return [pattern.replace(LBRACE, "{").replace(RBRACE, "}").replace(COMMA, ",")]
    if len(items) < 2:  # {x} and {a..b} stay as they are (a sequence never spells a store)
        items = ["{" + items[0] + "}"]
    out = []
    for item in items:
        for rest in braces(pattern[i + 1:]):
            out.append(pattern[:start] + item + rest)
            if len(out) >= MAX_ALTERNATIVES:
                return out
    return out


def _drive(pattern: str) -> bool:
    """``C:/...`` is absolute on Windows (Git Bash takes it too); elsewhere it names a folder called ``C:``."""
    return os.name == "nt" and len(pattern) > 2 and pattern[1] == ":" and pattern[2] == "/" and pattern[0].isalpha()


def absolute(pattern: str, cwd: str) -> str:
    """``pattern`` against ``cwd`` (itself possibly a pattern), with ``.``/``..`` folded; ``/`` between parts."""
    if not pattern.startswith(("/", UNKNOWN)) and not _drive(pattern):
        pattern = slashed(cwd).rstrip("/") + "/" + pattern
    if UNKNOWN in pattern and "/.." in pattern:
        return UNKNOWN  # $X/../y: where it lands depends on what $X is
    return slashed(os.path.normpath(pattern)).replace("//", "/")


def _tokens(pattern: str) -> list:
    """The pattern as match tokens: ("c", ch), ("?",), ("*",), ("U",) or ("[", set, negated)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == UNKNOWN:
            out.append(("U",))
        elif ch == STAR:
            out.append(("*",))
        elif ch == QUEST:
            out.append(("?",))
        elif ch == LBRACK and RBRACK in pattern[i + 1:]:
            end = pattern.index(RBRACK, i + 1)
            body = pattern[i + 1:end]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            chars = set()
            k = 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    chars.update(chr(c) for c in range(ord(body[k]), ord(body[k + 2]) + 1))
                    k += 3
                else:
                    chars.add(body[k])
                    k += 1
            out.append(("[", chars, negated))
            i = end
        else:
            out.append(("c", UNMARK.get(ch, ch)))
        i += 1
    return out


def _closure(states: set, tokens: list) -> set:
    todo = list(states)
    while todo:
        s = todo.pop()
        if s < len(tokens) and tokens[s][0] in "*U" and s + 1 not in states:
            states.add(s + 1)
            todo.append(s + 1)
    return states


def _step(states: set, tokens: list, ch: str, component_start: bool) -> set:
    nxt = set()
    for s in states:
        if s >= len(tokens):
            continue
        tok = tokens[s]
        kind = tok[0]
        if kind == "U":
            nxt.add(s)
        elif kind == "c":
            if tok[1] == ch:
                nxt.add(s + 1)
        elif ch == "/" or (ch == "." and component_start):
            continue  # globs stay within a component and skip hidden names
        elif kind == "*":
            nxt.add(s)
        elif kind == "?":
            nxt.add(s + 1)
        elif (ch in tok[1]) != tok[2]:
            nxt.add(s + 1)
    return _closure(nxt, tokens)


def reach(pattern: str, stores: list, removes: bool) -> bool:
    """Can ``pattern`` (absolute) name a store, something inside one, or (``removes``) a folder above one?"""
    if is_plain(pattern):
        return _plain_reach(pattern, stores, removes)
    pattern = pattern.lower()
    tokens = _tokens(pattern)
    for store in stores:
        text = store.lower()
        states = _closure({0}, tokens)
        for i, ch in enumerate(text):
            if removes and ch == "/" and i > 0 and len(tokens) in states:
                return True  # the pattern can be a folder above the store
            states = _step(states, tokens, ch, i > 0 and text[i - 1] == "/")
            if not states:
                break
        else:
            if len(tokens) in states:
                return True  # the store itself
            states = _step(states, tokens, "/", False)
            if states and not _only_config(tokens, states) and _can_name_member(pattern, store):
                return True  # something inside it that matters (a memory, a folder, the index, the cache)
    return False


def fullmatch(pattern: str, text: str) -> bool:
    """Does ``pattern`` match the whole of ``text`` (both compared in lower case)?"""
    tokens = _tokens(pattern.lower())
    states = _closure({0}, tokens)
    text = text.lower()
    for i, ch in enumerate(text):
        states = _step(states, tokens, ch, i == 0 or text[i - 1] == "/")
        if not states:
            return False
    return len(tokens) in states


_FIXED_NAMES = ("index.md", ".lock", ".cache", ".quarantine", ".gitignore", "retrieval.bin", "retrieval.delta",
                "x.json") + tuple(DEFAULT_FOLDERS.values())
_listing: dict = {}


def _members(store: str) -> set:
    """The store's own entries (category folders, the cache, the index...), bounded, plus the fixed names."""
    if store not in _listing:
        names = set(_FIXED_NAMES)
        try:
            with os.scandir(store) as it:
                names.update(entry.name.lower() for entry, _ in zip(it, range(1000)))
        except OSError:
            pass
        _listing[store] = names
    return _listing[store]


def _can_name_member(pattern: str, store: str) -> bool:
    """Can the pattern's last component be a name that matters in a store (``*.pyc`` cannot)?

    Memory files are any ``*.json``, so the probe ``x.json`` stands for them all; the rest are the store's own
    entries and the names every store can hold.
    """
    last = pattern.rsplit("/", 1)[-1]
    if UNKNOWN in last or last.endswith(".json") or last[-1:] in (STAR, QUEST, RBRACK):
        return True
    return any(fullmatch(last, name) for name in _members(store))


def _only_config(tokens: list, states: set) -> bool:
    """True if, past the store's folder, the pattern can only be ``memory-config.json`` (settings)."""
    for s in states:
        rest = tokens[s:]
        if not all(t[0] == "c" for t in rest) or "".join(t[1] for t in rest) != CONFIG_FILE:
            return False
    return True


def _plain_reach(path: str, stores: list, removes: bool) -> bool:
    parts = [p for p in path.lower().split("/") if p]
    for i in range(len(parts) - 1):
        if parts[i] == ".claude" and parts[i + 1] == "memory":
            return parts[i + 2:] != [CONFIG_FILE]
    candidates = {path.lower(), slashed(os.path.realpath(path)).lower()}  # a link into a store writes the store
    for store in stores:
        s = store.lower()
        for p in candidates:
            if p == s or p.startswith(s + "/"):
                return p != s + "/" + CONFIG_FILE
            if removes and s.startswith(p.rstrip("/") + "/"):
                return True
    return False


JUDGE_SECONDS = 1.5  # the judge's time: past it, a line that names the store is denied, any other is let through
MAX_STEPS = 50_000  # more simple commands than fit in guards.MAX_COMMAND_CHARS: every line under it is read whole


class Denied(Exception):
    """A way the line can change a store: ``str(exc)`` says which."""


class TimeUp(Exception):
    """The judge ran out of time (``JUDGE_SECONDS``): the snapshot taken before it is the backstop."""


class State:
    """What a line has set so far (folder, variables), and how a nested line or command is judged: ``run(commands,
    state, stdin)`` and ``command(words, raw, state, stdin)``, passed in by ``shelljudge``."""

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
    """Deny if a path can reach a store: from the folder the line moved to, or from where it started (a ``cd`` that
    fails leaves the shell there: ``cd nowhere; rm -rf .claude``)."""
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
