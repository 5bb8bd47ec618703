"""Path patterns and the judge's state, shared by the Bash and PowerShell judges.

A pattern is a path whose unknown parts stay open (``shellscan.UNKNOWN``: any text; glob markers: within one
component). ``reach``: can some expansion be a store, lie inside one, or (for what removes a folder) hold one?
"""
from __future__ import annotations

import os
import time

from ..base.model import DEFAULT_FOLDERS
from ..base.pathtext import slashed
from .shellscan import COMMA, LBRACE, LBRACK, QUEST, RBRACE, RBRACK, STAR, UNKNOWN, UNMARK, unmarked

MAX_ALTERNATIVES = 32
CONFIG_FILE = "memory-config.json"
JUDGE_SECONDS = 1.5  # the judge's time: past it, a line that names the store is denied, any other is let through
MAX_COMMAND_CHARS = 100_000  # longer shell lines are judged whole: parsing 20 MB would outlast the hook's time-out
MAX_STEPS = 50_000  # more simple commands than fit in MAX_COMMAND_CHARS: every line under it is read whole
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")
# The names that matter in a store besides its own entries (``x.json`` stands for every memory file).
_FIXED_NAMES = ("index.md", ".lock", ".cache", ".quarantine", ".gitignore", "retrieval.bin", "retrieval.delta",
                "x.json") + tuple(DEFAULT_FOLDERS.values())
_listing: dict = {}


def names_store(text: str, stores: list) -> bool:
    """Does ``text`` (quotes removed, escapes decoded) name a ``.claude`` folder or a store (the class rule's test)?"""
    low = slashed(text.lower())
    i = low.find(".claude")
    while i >= 0:
        if (low[i - 1:i] if i else "") not in _NAME_CHARS and low[i + 7:i + 8] not in _NAME_CHARS:
            return True
        i = low.find(".claude", i + 1)
    return any(slashed(s.lower()) in low for s in stores)


def may_name_store(text: str, stores: list) -> bool:
    """``names_store``, ``claude`` or a glob (``.cl*``, ``.*`` can match ``.claude``): the rule for a line read late."""
    return names_store(text, stores) or "claude" in text.lower() or any(c in text for c in "*?[{")


def plain_text(pattern: str) -> str:
    return unmarked(pattern).replace(UNKNOWN, "$?")


def braces(pattern: str) -> list:
    """Brace expansion (``a{b,c}`` -> ``ab``, ``ac``), bounded; ``{x}`` and ``{a..b}`` stay as they are."""
    start = pattern.find(LBRACE)
    if start < 0:
        return [pattern]
    depth, items, last = 0, [], start + 1
    for i in range(start, len(pattern)):
        ch = pattern[i]
        depth += (ch == LBRACE) - (ch == RBRACE)
        if (ch == RBRACE and depth == 0) or (ch == COMMA and depth == 1):
            items.append(pattern[last:i])
            last = i + 1
            if ch == RBRACE:
                break
    else:
        return [pattern.replace(LBRACE, "{").replace(RBRACE, "}").replace(COMMA, ",")]
    items, rests = items if len(items) > 1 else ["{" + items[0] + "}"], braces(pattern[i + 1:])  # {a..b}: no store
    return [pattern[:start] + item + rest for item in items for rest in rests][:MAX_ALTERNATIVES]


def absolute(pattern: str, cwd: str) -> str:
    """``pattern`` against ``cwd`` (itself possibly a pattern), ``.``/``..`` folded; ``C:/...`` absolute on Windows."""
    drive = os.name == "nt" and len(pattern) > 2 and pattern[1] == ":" and pattern[2] == "/" and pattern[0].isalpha()
    if not pattern.startswith(("/", UNKNOWN)) and not drive:
        pattern = slashed(cwd).rstrip("/") + "/" + pattern
    if UNKNOWN in pattern and "/.." in pattern:
        return UNKNOWN  # $X/../y: where it lands depends on what $X is
    return slashed(os.path.normpath(pattern)).replace("//", "/")


def _glob(pattern: str) -> str:
    """The pattern to match: a bracket expression read as ``?`` (any one character, a superset), braces as text."""
    out, i = [], 0
    while i < len(pattern):
        end = pattern.find(RBRACK, i + 1) if pattern[i] == LBRACK else -1
        out.append(QUEST if end > 0 else pattern[i] if pattern[i] < "\x03" else UNMARK.get(pattern[i], pattern[i]))
        i = max(end, i) + 1
    return "".join(out)


def _step(states: set, glob: str, ch: str, leading: bool) -> set:
    """The matcher's states after ``ch`` (None: only the closure); globs stay within a component and skip a
    ``leading`` dot (a hidden name)."""
    free = ch != "/" and not (ch == "." and leading)
    nxt = set(states) if ch is None else set()
    for s in states if ch is not None else ():
        tok = glob[s:s + 1]
        if tok == UNKNOWN or (tok == STAR and free):
            nxt.add(s)
        elif tok == ch or (tok == QUEST and free):
            nxt.add(s + 1)
    todo = list(nxt)
    while todo:  # an unknown value or a star may also be empty
        s = todo.pop()
        if glob[s:s + 1] in (STAR, UNKNOWN) and s + 1 not in nxt:
            nxt.add(s + 1)
            todo.append(s + 1)
    return nxt


def reach(pattern: str, stores: list, removes: bool, dots: bool = False) -> bool:
    """Can ``pattern`` (absolute) name a store, something inside one, or (``removes``) a folder above one?"""
    if not any(ch < "\x08" for ch in pattern):  # no glob marker, no unknown part
        return _plain_reach(pattern, stores, removes)
    glob = _glob(pattern.lower())
    for store in stores:
        states, text = _step({0}, glob, None, False), store.lower()
        for i, ch in enumerate(text):
            if removes and ch == "/" and i > 0 and len(glob) in states:
                return True  # the pattern can be a folder above the store
            states = _step(states, glob, ch, text[i - 1:i] == "/" and not dots)
        if len(glob) in states or _step(states, glob, "/", False) and _can_name_member(pattern, store, dots):
            return True  # the store itself, or something inside it that matters
    return False


def _can_name_member(pattern: str, store: str, dots: bool) -> bool:
    """Can the last component name what matters in a store: any ``*.json``, its own entries, ``_FIXED_NAMES``?"""
    last = pattern.lower().rsplit("/", 1)[-1]
    if UNKNOWN in last or last.endswith(".json") or last[-1:] in (STAR, QUEST, RBRACK):
        return True
    if store not in _listing:
        names = set(_FIXED_NAMES)
        try:
            with os.scandir(store) as it:
                names.update(entry.name.lower() for entry, _ in zip(it, range(1000)))
        except OSError:
            pass
        _listing[store] = names
    last = _glob(last)
    for name in _listing[store]:
        states = _step({0}, last, None, False)
        for i, ch in enumerate(name):
            states = _step(states, last, ch, i == 0 and not dots)  # dots: PowerShell's globs match a leading dot
        if len(last) in states:
            return True
    return False


def _plain_reach(path: str, stores: list, removes: bool) -> bool:
    parts = [p for p in path.lower().split("/") if p]
    for i in range(len(parts) - 1):
        if parts[i] == ".claude" and parts[i + 1] == "memory":
            return parts[i + 2:] != [CONFIG_FILE]
    candidates = {path.lower(), slashed(os.path.realpath(path)).lower()}  # a link into a store writes the store
    for s in (store.lower() for store in stores):
        for p in candidates:
            if p == s or p.startswith(s + "/"):
                return p != s + "/" + CONFIG_FILE
            if removes and s.startswith(p.rstrip("/") + "/"):
                return True
    return False


class Denied(Exception):
    """A way the line can change a store: ``str(exc)`` says which."""


class TimeUp(Exception):
    """The judge ran out of time (``JUDGE_SECONDS``): the snapshot taken before it is the backstop."""


def verdict(judged, flags: dict, text: str, what: str, named) -> str | None:
    """The judges' common end: None, or how ``judged()`` found the line can change a store (``named``: late)."""
    try:
        judged()
        if flags.get("unfinished") and "claude" in text.lower():
            raise Denied(f"{what} with an unfinished quote or bracket")
        if flags.get("too deep"):
            raise Denied(f"{what} nested too deeply to check")
    except Denied as exc:
        return str(exc)
    except RecursionError:
        return f"{what} nested too deeply to check"
    except TimeUp:
        return f"{what} too long to check in time" if named() else None
    return None


class State:
    """What a line has set so far (folder, variables) and its bounds in steps and time."""

    def __init__(self, cwd: str, stores: list, text: str):
        self.cwd, self.stores, self.text, self.origin = cwd, stores, text, cwd
        self.vars: dict = {}
        self.steps, self.dots = 0, False  # dots: globs match a leading dot (PowerShell's)
        self.judge = None  # the judge of one command, when not the Bash one (PowerShell's)
        self.deadline = time.monotonic() + JUDGE_SECONDS

    def copy(self):
        other = State.__new__(State)
        other.__dict__.update(self.__dict__, vars=dict(self.vars))
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
    """The alternatives a word can be (patterns), at most ``MAX_ALTERNATIVES``."""
    alts = [""]
    for kind, value in word:
        choices = [value] if kind == "s" else _variable(value, state) if kind == "v" else [UNKNOWN]
        alts = [a + c for a in alts for c in choices]
        if len(alts) > MAX_ALTERNATIVES:
            return [UNKNOWN]
    out = [b for a in alts for b in braces(a)]
    return out if len(out) <= MAX_ALTERNATIVES else [UNKNOWN]


def _variable(name: str, state: State) -> list:
    if name in state.vars:
        return state.vars[name]
    if name == "PWD":
        return [state.cwd]
    value = os.environ.get(name) if name not in ("OLDPWD", "RANDOM", "BASH_SOURCE") else None
    return [value] if value is not None else [UNKNOWN]


def word_text(alts: list) -> str:
    """One readable spelling of a word (for option names and messages)."""
    return plain_text(alts[0]) if alts else ""


def check(alts: list, state: State, removes: bool, what: str) -> None:
    """Deny if a path can reach a store, from the folder the line moved to or where it started (a failed ``cd``)."""
    bases = (state.cwd,) if state.cwd == state.origin else (state.cwd, state.origin)
    state.in_time()  # a command given thousands of words: each may cost a realpath
    for alt in alts:
        if any(reach(absolute(alt, base), state.stores, removes, state.dots) for base in bases):
            text, origin = plain_text(alt), state.origin.rstrip("/") + "/"
            text = text[len(origin):] if text.startswith(origin) else text
            raise Denied(f"{what} {shown(text)}".strip())  # named from where the line starts, as Claude wrote it


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
    for t in map(word_text, words):
        if t.startswith("--"):
            out.add(t.split("=", 1)[0])
        elif t.startswith("-") and len(t) > 1:
            out.update("-" + c for c in t[1:])
    return out
