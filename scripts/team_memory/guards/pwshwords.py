"""PowerShell's words for the guard's reader (``pwshscan``): quoting, escapes, variables, nested groups.

``Reader`` walks a line: ``element`` reads one value of an argument as parts (``("s", text)`` with
``\\`` as ``/`` and glob characters as ``shellscan``'s markers, ``("v", NAME)``, ``("u", "")``),
following PowerShell: single quotes literal (``''`` is one quote), double quotes expand ``$name`` and
``$(...)`` and take backtick escapes, a backtick outside quotes escapes the next character (before a
newline, continues the line), here-strings, the typographic quotes PowerShell accepts, ``#`` and
``<#...#>`` comments. What runs inside ``$(...)``, ``(...)``, ``@(...)`` and ``{...}`` is read by
``pwshscan.parse`` (through ``nested``) into the caller's list. It never fails: an open quote or bracket
runs to the end and sets ``flags["unfinished"]``.
"""
from __future__ import annotations

from .shellscan import MARKERS

SQUOTES, DQUOTES, DASHES = "'\u2018\u2019\u201a\u201b", '"\u201c\u201d\u201e', "-\u2013\u2014\u2015"
END = set(" \t\r\n;|&(){},<>")
EXPR_END = END | set("[]=+!.")
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_?:")
_ESCAPES = {"0": "\x00", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_KNOWN_VARS = {"pwd": "PWD", "home": "HOME"}
MAX_DEPTH = 8
_GLOBS = {c: MARKERS[c] for c in "*?[]"}  # PowerShell has no brace expansion: { } , stay text


def _literal(text: str) -> list:
    """Parts of literal text: ``\\`` read as ``/``, glob characters marked."""
    return [("s", "".join(_GLOBS.get(c, "/" if c == "\\" else c) for c in text))] if text else []


class Reader:
    """A position in a PowerShell line and the ways to read what is there."""

    def __init__(self, text: str, depth: int, flags: dict, parse):
        """``parse``: the statement reader (``pwshscan.parse``) for what runs inside a group."""
        self.text, self.i, self.depth, self.flags, self.parse = text, 0, depth, flags, parse

    def _closing(self, i: int, open_ch: str, close_ch: str) -> int:
        """Index just past the ``close_ch`` balancing an ``open_ch`` before ``i`` (quotes and comments skipped)."""
        text, depth, n = self.text, 1, len(self.text)
        while i < n:
            c = text[i]
            if c == "`":
                i += 2
                continue
            if c in SQUOTES or c in DQUOTES:
                i = self._quote_end(i)
                continue
            if c == open_ch:
                depth += 1
            elif c == close_ch:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        self.flags["unfinished"] = True
        return n + 1

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
            into.extend(self.parse(source, self.depth + 1, self.flags))
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
        merged = []
        for part in parts:
            if merged and part[0] == "s" and merged[-1][0] == "s":
                merged[-1] = ("s", merged[-1][1] + part[1])
            else:
                merged.append(part)
        return merged

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
            inner = Reader(body, self.depth, self.flags, self.parse)
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


