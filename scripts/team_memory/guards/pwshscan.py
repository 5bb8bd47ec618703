"""A small reader of PowerShell lines for the write guard: ``parse(text)`` -> ``[PsCommand]``.

``kind``: ``"command"``, ``"assign"`` (``$name = ...``: ``target``; ``words`` the right side read as a command,
``value`` when it is one plain value) or ``"expr"`` (``calls`` names each ``.Name(...)``/``::Name(...)``).
``words``: ``("param", name, value, spelled)`` or ``("arg", elements)``, each element a list of parts as in
``shellscan`` (``\\`` read as ``/``; ``("v", NAME)`` for ``$env:NAME``, ``$PWD``, ``$HOME``, ``ps:name`` for a
PowerShell variable). ``redirects``, ``sep`` and ``nested`` (inside ``$(...)``, ``(...)``, ``@(...)``, ``{...}``) as
in ``shellscan``. It reads PowerShell's quotes, backtick escapes, here-strings, typographic quotes and dashes and
comments; it never runs anything, never fails, and stops at a depth bound.
"""
from __future__ import annotations

from .shellscan import MARKERS, MAX_DEPTH, balanced, joined

SQUOTES, DQUOTES, DASHES = "'\u2018\u2019\u201a\u201b", '"\u201c\u201d\u201e', "-\u2013\u2014\u2015"
END = set(" \t\r\n;|&(){},<>")
EXPR_END = END | set("[]=+!.")
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_?:")
_ESCAPES = {"0": "\x00", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_KNOWN_VARS = {"pwd": "PWD", "home": "HOME"}
_GLOBS = {c: MARKERS[c] for c in "*?[]"}  # PowerShell has no brace expansion: { } , stay text


def _literal(text: str) -> list:
    """Parts of literal text: ``\\`` read as ``/``, glob characters marked."""
    return [("s", "".join(_GLOBS.get(c, "/" if c == "\\" else c) for c in text))] if text else []


class Reader:
    """A position in a PowerShell line and the ways to read what is there."""

    def __init__(self, text: str, depth: int, flags: dict):
        self.text, self.i, self.depth, self.flags = text, 0, depth, flags

    def _closing(self, i: int, open_ch: str, close_ch: str) -> int:
        """Index just past the ``close_ch`` balancing an ``open_ch`` before ``i`` (quotes and escapes skipped)."""
        end = balanced(self.text, i, open_ch, close_ch, self._skip)
        if end < 0:
            self.flags["unfinished"] = True
        return len(self.text) + 1 if end < 0 else end

    def _skip(self, text: str, i: int) -> int:
        return i + 2 if text[i] == "`" else self._quote_end(i) if text[i] in SQUOTES or text[i] in DQUOTES else i

    def _quote_end(self, i: int) -> int:
        text, n = self.text, len(self.text)
        quotes = SQUOTES if text[i] in SQUOTES else DQUOTES
        j = i + 1
        while j < n:
            if text[j] == "`" and quotes is DQUOTES:
                j += 2
                continue
            if text[j] in quotes:
                if j + 1 < n and text[j + 1] in quotes:
                    j += 2
                    continue
                return j + 1
            j += 1
        self.flags["unfinished"] = True
        return n

    def nested(self, source: str, into: list) -> None:
        if self.depth < MAX_DEPTH:
            into.extend(parse(source, self.depth + 1, self.flags))
        else:
            self.flags["too deep"] = True

    def _group(self, start: int, open_ch: str, close_ch: str, into: list) -> None:
        """Read ``(...)``/``{...}`` whose opening character is at ``start``; its statements go to ``into``."""
        end = self._closing(start + 1, open_ch, close_ch)
        self.nested(self.text[start + 1:end - 1], into)
        self.i = min(end, len(self.text))

    def _dollar(self, parts: list, into: list) -> None:
        """A ``$`` at ``self.i``: a variable, ``${...}`` or ``$(...)``."""
        text, i = self.text, self.i + 1
        if text.startswith("(", i):
            self._group(i, "(", ")", into)
            parts.append(("u", ""))
            return
        if text.startswith("{", i):
            end = text.find("}", i)
            end = len(text) if end < 0 else end
            name, self.i = text[i + 1:end], end + 1
        else:
            j = i
            while j < len(text) and text[j] in NAME_CHARS:
                if text[j] == ":" and text[j + 1:j + 2] in ("", ":", "/"):
                    break  # $x: at the end, $x::y and a drive's C:/ are not part of the name
                j += 1
            if j == i:
                if j < len(text) and text[j] in "_$^?":
                    parts.append(("u", ""))
                    self.i = j + 1
                else:
                    parts.append(("s", "$"))
                    self.i = i
                return
            name, self.i = text[i:j], j
        parts.append(variable(name))

    def element(self, into: list, stop=END) -> list:
        """One value of an argument (up to a comma or the argument's end), as parts."""
        text, parts, n = self.text, [], len(self.text)
        while self.i < n:
            c = text[self.i]
            if c in stop or (c == "," and stop is END):
                if c in "({" and stop is END and parts:  # a(b): PowerShell reads on; the value is unknown
                    self._group(self.i, c, ")" if c == "(" else "}", into)
                    parts.append(("u", ""))
                    continue
                break
            if c == "`":
                if self.i + 1 < n and text[self.i + 1] not in "\r\n":
                    parts.extend(_literal(text[self.i + 1]))
                self.i += 2
            elif c in SQUOTES:
                end = self._quote_end(self.i)
                body = text[self.i + 1:end - 1] if text[end - 1:end] in SQUOTES else text[self.i + 1:end]
                parts.extend(_literal(body.replace("''", "'")))
                self.i = end
            elif c in DQUOTES:
                self._dquoted(parts, into)
            elif c == "$":
                self._dollar(parts, into)
            elif c == "@" and text[self.i + 1:self.i + 2] in ("(", "{"):
                self._group(self.i + 1, text[self.i + 1], ")" if text[self.i + 1] == "(" else "}", into)
                parts.append(("u", ""))
            elif c == "@" and text[self.i + 1:self.i + 2] and text[self.i + 1] in SQUOTES + DQUOTES:
                self._herestring(parts, into)
            elif c == "~" and not parts and (self.i + 1 >= n or text[self.i + 1] in "/\\" or text[self.i + 1] in stop):
                parts.append(("v", "HOME"))
                self.i += 1
            else:
                parts.extend(_literal(c))
                self.i += 1
        return joined(parts)

    def _dquoted(self, parts: list, into: list) -> None:
        text, n = self.text, len(self.text)
        self.i += 1
        while self.i < n:
            c = text[self.i]
            if c in DQUOTES:
                if self.i + 1 < n and text[self.i + 1] in DQUOTES:
                    parts.extend(_literal(c))
                    self.i += 2
                    continue
                self.i += 1
                return
            if c == "`" and self.i + 1 < n:
                parts.extend(_literal(_ESCAPES.get(text[self.i + 1], text[self.i + 1])))
                self.i += 2
            elif c == "$":
                self._dollar(parts, into)
            else:
                parts.extend(_literal(c))
                self.i += 1
        self.flags["unfinished"] = True

    def _herestring(self, parts: list, into: list) -> None:
        text, quote = self.text, self.text[self.i + 1]
        closing = "\n" + ("'" if quote in SQUOTES else '"') + "@"
        end = text.find(closing, self.i + 2)
        if end < 0:
            self.flags["unfinished"] = True
            end = len(text)
        body = text[self.i + 2:end].lstrip(" \t").lstrip("\r\n")
        if quote in SQUOTES:
            parts.extend(_literal(body))
        else:
            inner = Reader(body, self.depth, self.flags)
            while inner.i < len(body):
                if body[inner.i] == "$":
                    inner._dollar(parts, into)
                else:
                    parts.extend(_literal(body[inner.i]))
                    inner.i += 1
        self.i = end + len(closing)

    def skip_blank(self) -> None:
        text, n = self.text, len(self.text)
        while self.i < n:
            c = text[self.i]
            if c in " \t\r" or (c == "`" and text[self.i + 1:self.i + 2] in ("\n", "\r")):
                self.i += 1 if c != "`" else 2
            elif c == "#" or text.startswith("<#", self.i):
                end = text.find("\n" if c == "#" else "#>", self.i)
                self.i = n if end < 0 else end + (0 if c == "#" else 2)
            else:
                return


def variable(name: str) -> tuple:
    """A variable's part: ``$env:X`` -> X, ``$PWD``/``$HOME`` as such, the rest ``ps:<name>`` (any case)."""
    low = name.lower()
    if low.startswith("env:"):
        return ("v", name[4:])
    low = low.split(":", 1)[1] if low.startswith(("script:", "global:", "local:", "private:")) else low
    if low in ("true", "false", "null"):
        return ("s", "")
    return ("v", _KNOWN_VARS.get(low, "ps:" + low))


class PsCommand:
    __slots__ = ("kind", "words", "redirects", "sep", "nested", "calls", "target", "value")

    def __init__(self, kind: str):
        self.kind = kind
        self.words, self.redirects, self.nested, self.calls = [], [], [], []
        self.sep, self.target, self.value = "", None, None


def parse(text: str, depth: int = 0, flags: dict | None = None) -> list:
    """The statements of a PowerShell line (see the module docstring)."""
    r = Reader(text, depth, flags if flags is not None else {})
    out = []
    while True:
        r.skip_blank()
        if r.i >= len(r.text):
            return out
        c = r.text[r.i]
        if c in "\n;)}":
            r.i += 1
            continue
        start = r.i
        out.append(_statement(r))
        r.i = max(r.i, start + 1)  # every statement moves on: no input can stall the reader


def _statement(r: Reader) -> PsCommand:
    text = r.text
    c = text[r.i]
    if c in "&." and text[r.i + 1:r.i + 2] in (" ", "\t", "'", '"') or text.startswith("& ", r.i):
        r.i += 1  # the call operator (& 'C:\tools\x.exe') or dot-sourcing: the next value names the command
        r.skip_blank()
    elif c == "$" or c in "[(" or c in SQUOTES or c in DQUOTES or c.isdigit() or (c == "@" and text[r.i + 1:r.i + 2]
                                                                                  in "({'\""):
        return _assignment(r) or _expression(r)
    cmd = PsCommand("command")
    _arguments(r, cmd)
    return cmd


def _assignment(r: Reader):
    """``[type]$name = ...``: the right side read as a command or a value; None for anything else."""
    text, i = r.text, r.i
    while text.startswith("[", i):
        end = text.find("]", i)
        if end < 0:
            return None
        i = end + 1
    if not text.startswith("$", i):
        return None
    j = i + 1
    while j < len(text) and (text[j] in NAME_CHARS or text[j] in "{}"):
        j += 1
    k = j
    while k < len(text) and text[k] in " \t":
        k += 1
    if not text.startswith("=", k) or text.startswith("==", k):
        compound = k < len(text) and text[k] in "+-*/%?" and text.startswith("=", k + 1)
        if not compound:
            return None
    cmd = PsCommand("assign")
    cmd.target = variable(text[i + 1:j].strip("{}"))[1]
    r.i = text.index("=", k) + 1
    r.skip_blank()
    rest = text[r.i:r.i + 1]
    if text.startswith("=", k) and rest and (rest.isalpha() or rest in "&."):
        _arguments(r, cmd)  # $p = Join-Path $root x
    else:
        value = _expression(r)
        cmd.value, cmd.nested, cmd.calls, cmd.sep = value.value, value.nested, value.calls, value.sep
        cmd.redirects = value.redirects
    if not text.startswith("=", k):
        cmd.value, cmd.words = None, []  # += and friends: the value is no longer one known text
    return cmd


def _arguments(r: Reader, cmd: PsCommand) -> None:
    """A command's words, redirections and separator, up to the statement's end."""
    text, n = r.text, len(r.text)
    while True:
        r.skip_blank()
        if r.i >= n:
            return
        c = text[r.i]
        if _ended(r, cmd, c in "&"):
            return
        redirect = _redirect(r)
        if redirect is not None:
            if redirect:
                cmd.redirects.append(redirect)
            continue
        if c in "({":
            r._group(r.i, c, ")" if c == "(" else "}", cmd.nested)
            cmd.words.append(("arg", [[("u", "")]]))
            continue
        if c in DASHES and r.i + 1 < n and (text[r.i + 1].isalpha() or text[r.i + 1] in DASHES + "?_"):
            j = r.i + 1
            while j < n and text[j] not in END and text[j] != ":":
                j += 1
            name, spelled = text[r.i + 1:j].lstrip("".join(DASHES)).lower(), "-" + text[r.i + 1:j]
            value = None
            r.i = j
            if text.startswith(":", j):
                r.i += 1
                value = _values(r, cmd)
            cmd.words.append(("param", name, value, spelled))
            continue
        start = r.i
        values = _values(r, cmd)
        if r.i == start:  # a character no word starts with (<): step over it, never loop on it
            r.i += 1
            continue
        cmd.words.append(("arg", values))


def _ended(r: Reader, cmd: PsCommand, ampersand: bool) -> bool:
    """At the statement's end or a pipe, ``&&``, ``||`` (``&`` too for a command): ``cmd.sep`` says which."""
    text, c = r.text, r.text[r.i]
    if c in "\n;)}":
        cmd.sep = ";"
        r.i += c == "\n" or c == ";"
    elif c == "|" or ampersand:
        cmd.sep = text[r.i:r.i + 2] if text[r.i:r.i + 2] in ("||", "&&") else c
        r.i += len(cmd.sep)
    return bool(cmd.sep)


def _values(r: Reader, cmd: PsCommand) -> list:
    elements = [r.element(cmd.nested)]
    while r.text.startswith(",", r.i):
        r.i += 1
        r.skip_blank()
        elements.append(r.element(cmd.nested))
    return elements


def _redirect(r: Reader):
    """``>``, ``>>``, ``2>``, ``*>``, ``3>&1``...: ``(op, parts)``; ``()`` for a stream merge; None if none here."""
    text, i = r.text, r.i
    j = i + 1 if text[i:i + 1] in "*123456" and text[i + 1:i + 2] == ">" else i
    if not text.startswith(">", j):
        return None
    op = ">>" if text.startswith(">>", j) else ">"
    r.i = j + len(op)
    if text.startswith("&", r.i):
        r.i += 2
        return ()
    r.skip_blank()
    return (op, r.element([]))


def _expression(r: Reader) -> PsCommand:
    """An expression statement: its plain values, the methods it calls and what it nests, to its end."""
    cmd = PsCommand("expr")
    text, n = r.text, len(r.text)
    values, last_word = [], ""
    while r.i < n:
        c = text[r.i]
        if _ended(r, cmd, text.startswith("&&", r.i)):
            break
        if c in " \t\r+=!,-*/%" or c == "`":
            r.i += 1 if c != "`" else 2
            last_word = "" if c not in " \t" else last_word
        elif c == "[":
            r.i = min(r._closing(r.i + 1, "[", "]"), n)
        elif c in "({":  # a method's arguments, a group or a script block: what they run is read too
            if c == "(" and last_word:
                cmd.calls.append(last_word.lower())
            r._group(r.i, c, ")" if c == "(" else "}", cmd.nested)
            last_word = ""
        elif text.startswith("::", r.i) or c == ".":
            r.i += 2 if text.startswith("::", r.i) else 1
            j = r.i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            last_word, r.i = text[r.i:j], j
        elif c == ">" or (c in "*123456" and text[r.i + 1:r.i + 2] == ">"):
            redirect = _redirect(r)
            if redirect:
                cmd.redirects.append(redirect)
        else:
            before = r.i
            value = r.element(cmd.nested, EXPR_END)
            r.i += r.i == before
            if c in "$@" or c in SQUOTES or c in DQUOTES:
                values.append(value)
            last_word = ""
    cmd.words = [("arg", values)] if values else []
    cmd.value = values[0] if len(values) == 1 and not cmd.calls else None
    return cmd
