"""The shell-word reader of Bash lines, shared by the guard and ``toolgate``: ``parse(text)`` -> ``[Command]``.

A word is a list of parts: ``("s", text)`` (glob and brace characters as markers), ``("v", NAME)`` or ``("u", "")``
(a value that cannot be known). It never runs anything, never fails, stops at a depth bound and uses no ``re``.
"""
from __future__ import annotations


class Command:
    """One simple command: ``words``, ``redirects``, ``sep`` (what follows it) and ``nested`` commands."""
    __slots__ = ("words", "redirects", "sep", "nested")

    def __init__(self, words: list, redirects: list, sep: str, nested: list):
        self.words, self.redirects, self.sep, self.nested = words, redirects, sep, nested


UNKNOWN = "\x00"  # a value that cannot be known: matches anything, "/" included
STAR, QUEST, LBRACK, RBRACK, LBRACE, RBRACE, COMMA = "\x01", "\x02", "\x03", "\x04", "\x05", "\x06", "\x07"
MARKERS = {"*": STAR, "?": QUEST, "[": LBRACK, "]": RBRACK, "{": LBRACE, "}": RBRACE, ",": COMMA}
UNMARK = {v: k for k, v in MARKERS.items()}

_METACHARS = set(" \t\n;&|<>()")
_OPERATORS = ("&>>", ">>", ">|", "&>", "<<<", "<<-", "<<", "<>", ">&", "<&", "&&", "||", ";;", "|&",
              ">", "<", "|", "&", ";")
_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
MAX_DEPTH = 8


def balanced(text: str, i: int, open_ch: str, close_ch: str, skip) -> int:
    """Index past the ``close_ch`` balancing an ``open_ch`` before ``i`` (-1: none); ``skip``: each shell's quotes."""
    depth = 1
    while i < len(text):
        j = skip(text, i)
        if j > i:
            i = j
            continue
        depth += (text[i] == open_ch) - (text[i] == close_ch)
        if depth == 0:
            return i + 1
        i += 1
    return -1


def _skip(text: str, i: int) -> int:
    if text[i] == "\\":
        return i + 2
    if text[i] == "'":
        j = text.find("'", i + 1)
        return len(text) if j < 0 else j + 1
    if text[i] == '"':  # read as a word reads it, at the depth where nothing nested is parsed
        reader = _Reader(text, MAX_DEPTH, {})
        reader.i = i
        reader._dquoted([])
        return reader.i
    return i


def _closing(text: str, i: int, open_ch: str, close_ch: str) -> int:
    end = balanced(text, i, open_ch, close_ch, _skip)
    return len(text) if end < 0 else end


class _Reader:
    def __init__(self, text: str, depth: int, flags: dict):
        self.text, self.i, self.depth, self.flags = text, 0, depth, flags
        self.nested: list = []

    def _sub(self, start: int, end: int, parts: list) -> None:
        """Commands nested in ``text[start:end - 1]`` (their value unknown); reading goes on at ``end``."""
        if self.depth < MAX_DEPTH:
            self.nested.extend(parse(self.text[start:end - 1], self.depth + 1, self.flags))
        else:
            self.flags["too deep"] = True  # not read: the caller must not call it safe
        self.i = end
        parts.append(("u", ""))

    def _dollar(self, parts: list, quoted: bool) -> None:
        """Read what follows a ``$`` at ``self.i`` (already past the ``$``)."""
        text, i = self.text, self.i
        if text.startswith("(", i):  # $(...), and $((...)) read the same way
            self._sub(i + 1, _closing(text, i + 1, "(", ")"), parts)
        elif text.startswith("{", i):
            end = _closing(text, i + 1, "{", "}")
            inner = text[i + 1:end - 1]
            self.i = end
            plain = inner and all(c in _NAME_CHARS for c in inner) and not inner[0].isdigit()
            parts.append(("v", inner) if plain else ("u", ""))
        elif text.startswith("'", i) and not quoted:  # $'...' ANSI-C quoting: a literal, escapes decoded
            self.i = i + 1
            parts.append(("s", self._ansi_c()))
        elif text.startswith('"', i) and not quoted:  # $"..." (a translated string) reads as "..."
            self.i = i
            self._dquoted(parts)
        else:
            j = i
            while j < len(text) and text[j] in _NAME_CHARS:
                j += 1
            if j == i:
                if j < len(text) and text[j] in "@*#?$!-0123456789":
                    parts.append(("u", ""))
                    self.i = j + 1
                else:
                    parts.append(("s", "$"))
                return
            parts.append(("v", text[i:j]) if not text[i].isdigit() else ("u", ""))
            self.i = j

    def word(self) -> list:
        """Read one word at ``self.i``; return its parts."""
        text, parts, n = self.text, [], len(self.text)
        start = self.i
        while self.i < n:
            c = text[self.i]
            if c in _METACHARS:
                if c in "<>" and text.startswith("(", self.i + 1):  # process substitution
                    self._sub(self.i + 2, _closing(text, self.i + 2, "(", ")"), parts)
                    continue
                break
            if c == "\\":
                if self.i + 1 < n and text[self.i + 1] != "\n":
                    parts.append(("s", text[self.i + 1]))
                self.i += 2
            elif c == "'":
                j = text.find("'", self.i + 1)
                if j < 0:
                    j, self.flags["unfinished"] = n, True
                parts.append(("s", text[self.i + 1:j]))
                self.i = j + 1
            elif c == '"':
                self._dquoted(parts)
            elif c == "$":
                self.i += 1
                self._dollar(parts, False)
            elif c == "`":
                self._backquote(parts)
            elif c == "~" and self.i == start:  # ~user, ~+ ($PWD), ~- ($OLDPWD): unknown
                after = text[self.i + 1:self.i + 2]
                parts.append(("v", "HOME") if after in ("", "/") or after in _METACHARS else ("u", ""))
                self.i += 2 if after in ("+", "-") else 1
            else:
                parts.append(("s", MARKERS.get(c, c)))
                self.i += 1
        return joined(parts)

    def _ansi_c(self) -> str:
        """The text of ``$'...'`` from ``self.i``, escapes decoded; one Python reads otherwise than Bash: unknown."""
        text, i, odd = self.text, self.i, False
        while i < len(text) and text[i] != "'":
            odd |= text[i] == "\\" and text[i + 1:i + 2] not in "xuU01234567nrtabfv\\'\""
            i += 2 if text[i] == "\\" else 1
        body, self.i = text[self.i:i], i + 1
        try:
            if odd or i >= len(text):
                raise ValueError(body)
            return body.encode("latin-1", "backslashreplace").decode("unicode_escape") if "\\" in body else body
        except ValueError:  # UnicodeDecodeError included
            self.flags["unfinished"] = True
            return UNKNOWN

    def _backquote(self, parts: list) -> None:
        j = self.text.find("`", self.i + 1)
        self._sub(self.i + 1, (len(self.text) if j < 0 else j) + 1, parts)

    def _dquoted(self, parts: list) -> None:
        text, n = self.text, len(self.text)
        self.i += 1
        while self.i < n:
            c = text[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n and text[self.i + 1] in '"\\$`':
                parts.append(("s", text[self.i + 1]))
                self.i += 2
            elif c == "$":
                self.i += 1
                self._dollar(parts, True)
            elif c == "`":
                self._backquote(parts)
            else:
                parts.append(("s", c))
                self.i += 1
        self.flags["unfinished"] = True

    def heredoc(self, delimiter: list, strip_tabs: bool) -> list:
        """The body of a here-document that starts at the next line."""
        text = self.text
        word = unmarked("".join(p[1] for p in delimiter if p[0] == "s"))
        nl = text.find("\n", self.i)
        if nl < 0:
            return [("s", "")]
        lines, j = [], nl + 1
        while j < len(text):
            end = text.find("\n", j)
            end = len(text) if end < 0 else end
            line, j = text[j:end], end + 1
            if (line.lstrip("\t") if strip_tabs else line) == word:
                break
            lines.append(line)
        self.text = text[:nl + 1] + text[j:]  # the body is data, not commands
        return [("s", "\n".join(lines))]


def parse(text: str, depth: int = 0, flags: dict | None = None) -> list:
    """The commands of a Bash line; ``flags`` gets ``"unfinished"`` (an open quote) and ``"too deep"`` (not read)."""
    r = _Reader(text, depth, flags if flags is not None else {})
    commands, words, redirects = [], [], []
    pending_heredocs = []
    while True:
        c = r.text[r.i:r.i + 1]  # "": the end of the text, which ends the last command
        if c in (" ", "\t"):
            r.i += 1
            continue
        if c == "#" and (r.i == 0 or r.text[r.i - 1] in " \t\n;&|("):
            nl = r.text.find("\n", r.i)
            r.i = len(r.text) if nl < 0 else nl
            continue
        op = next((o for o in _OPERATORS if r.text.startswith(o, r.i)), None)
        if c in "<>" and r.text.startswith("(", r.i + 1):
            op = None  # <(...) and >(...): a word (process substitution), not a redirection
        if c in ("\n", "(", ")", "") or (op and op[0] in ";&|" and op not in ("&>", "&>>")):
            for body_at, strip in pending_heredocs:
                body_at[1] = r.heredoc(body_at[1], strip)
            pending_heredocs = []
            sep = op or ("\n" if c else "")
            if words or redirects:
                commands.append(Command(words, redirects, sep, []))
            words, redirects = [], []
            if not c:
                break
            r.i += len(op) if op else 1
            continue
        if op is not None or (c.isdigit() and _fd_redirect(r.text, r.i)):
            if op is None:  # 2>file, 2>&1: the descriptor number is not a word
                while r.text[r.i].isdigit():
                    r.i += 1
                op = next(o for o in _OPERATORS if r.text.startswith(o, r.i))
            r.i += len(op)
            while r.i < len(r.text) and r.text[r.i] in " \t":
                r.i += 1
            target = r.word()
            entry = [op, target]
            if op in ("<<", "<<-"):
                pending_heredocs.append((entry, op == "<<-"))
            redirects.append(entry)
            continue
        words.append(r.word())
    if commands:
        commands[-1].nested.extend(r.nested)
    elif r.nested:
        commands.append(Command([], [], "", r.nested))
    return commands


def _fd_redirect(text: str, i: int) -> bool:
    if i > 0 and text[i - 1] not in " \t\n;&|(":
        return False
    j = i
    while j < len(text) and text[j].isdigit():
        j += 1
    return text.startswith((">", "<"), j)


def joined(parts: list) -> list:
    """Adjacent literal text as one part: ``"D=" + "x"`` reads as an assignment."""
    out = []
    for part in parts:
        if out and part[0] == "s" and out[-1][0] == "s":
            out[-1] = ("s", out[-1][1] + part[1])
        else:
            out.append(part)
    return out


def unmarked(text: str) -> str:
    """Text with the glob and brace markers back to the characters they stand for."""
    for marker, char in UNMARK.items():
        text = text.replace(marker, char)
    return text
