"""A small reader of PowerShell lines for the write guard: statements, arguments, redirections.

``parse(text)`` returns a list of ``PsCommand``:

- ``kind``: ``"command"`` (a cmdlet, alias or program and its arguments), ``"assign"``
  (``$name = ...``: ``target`` names the variable, ``words`` hold the right side read as a
  command when it starts like one, ``value`` the right side when it is one plain value) or
  ``"expr"`` (an expression: ``[IO.File]::WriteAllText(...)``, ``'text' | ...``);
- ``words``: ``("param", name, value, spelled)`` for ``-Name`` / ``-Name:value`` (``name`` in
  lower case, ``value`` a list of elements or None, ``spelled`` as written) and
  ``("arg", elements)`` for an argument, ``elements`` its comma-separated values, each a list of
  parts as ``shellscan`` spells them: ``("s", text)`` (glob characters as ``shellscan``'s
  markers, every ``\\`` as ``/``), ``("v", NAME)`` (``$env:NAME``, ``$PWD``, ``$HOME``;
  ``ps:name`` for a PowerShell variable) or ``("u", "")`` (a value that cannot be known:
  ``$(...)``, a script block);
- ``redirects``: ``(operator, parts)`` for ``>``, ``>>``, ``2>``, ``*>``...;
- ``sep``: what follows (``|``, ``;``, ``&&``, ``||``, ``&``); ``nested``: statement lists read
  inside ``$(...)``, ``(...)``, ``@(...)`` and ``{...}`` (they run too: the caller judges them);
- ``calls`` (``expr`` only): ``(method, static, type, args)`` for each ``.Name(...)`` /
  ``::Name(...)``, ``args`` each a list of parts or None (not a plain value).

Words are read with PowerShell's quoting and escapes (``pwshwords``). Like ``shellscan`` it never
runs anything, never fails, and stops at a depth bound (``flags`` gets ``"unfinished"`` /
``"too deep"``).
"""
from __future__ import annotations

from .pwshwords import END, EXPR_END, NAME_CHARS, DASHES, DQUOTES, SQUOTES, Reader, variable


class PsCommand:
    __slots__ = ("kind", "words", "redirects", "sep", "nested", "calls", "target", "value", "text")

    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text
        self.words, self.redirects, self.nested, self.calls = [], [], [], []
        self.sep, self.target, self.value = "", None, None


def parse(text: str, depth: int = 0, flags: dict | None = None) -> list:
    """The statements of a PowerShell line (see the module docstring)."""
    r = Reader(text, depth, flags if flags is not None else {}, parse)
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
        cmd = _statement(r)
        r.i = max(r.i, start + 1)  # every statement moves on: no input can stall the reader
        cmd.text = r.text[start:r.i]
        out.append(cmd)


def _statement(r: Reader) -> PsCommand:
    text = r.text
    c = text[r.i]
    if c in "&." and text[r.i + 1:r.i + 2] in (" ", "\t", "'", '"') or text.startswith("& ", r.i):
        r.i += 1  # the call operator (& 'C:\tools\x.exe') or dot-sourcing: the next value names the command
        r.skip_blank()
    elif c == "$" or c in "[(" or c in SQUOTES or c in DQUOTES or c.isdigit() or (c == "@" and text[r.i + 1:r.i + 2]
                                                                                  in "({'\""):
        assign = _assignment(r)
        if assign is not None:
            return assign
        return _expression(r)
    cmd = PsCommand("command", "")
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
    cmd = PsCommand("assign", "")
    cmd.target = variable(text[i + 1:j].strip("{}"))[1]
    r.i = text.index("=", k) + 1
    r.skip_blank()
    rest = text[r.i:r.i + 1]
    if text.startswith("=", k) and rest and (rest.isalpha() or rest in "&.") and not rest.isdigit():
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
        if c in "\n;)}":
            cmd.sep = ";"
            r.i += c == "\n" or c == ";"
            return
        if c in "|&":
            op = text[r.i:r.i + 2] if text[r.i:r.i + 2] in ("||", "&&") else c
            cmd.sep, r.i = op, r.i + len(op)
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
    """An expression statement: its plain values, its method calls and what it nests, to its end."""
    cmd = PsCommand("expr", "")
    text, n = r.text, len(r.text)
    values, last_word, static, type_name = [], "", False, ""
    while r.i < n:
        c = text[r.i]
        if c in "\n;)}":
            cmd.sep = ";"
            r.i += c == "\n" or c == ";"
            break
        if c == "|" or text.startswith(("&&", "||"), r.i):
            op = text[r.i:r.i + 2] if text.startswith(("&&", "||"), r.i) else "|"
            cmd.sep, r.i = op, r.i + len(op)
            break
        if c in " \t\r+=!,-*/%" or c == "`":
            r.i += 1 if c != "`" else 2
            last_word = "" if c not in " \t" else last_word
            continue
        if c == "[":
            end = r._closing(r.i + 1, "[", "]")
            type_name = text[r.i + 1:end - 1].lower()
            r.i = min(end, n)
            continue
        if c == "(" and last_word:
            end = r._closing(r.i + 1, "(", ")")
            cmd.calls.append((last_word.lower(), static, type_name, _call_args(text[r.i + 1:end - 1], r, cmd)))
            r.i, last_word = min(end, n), ""
            continue
        if c in "({":
            r._group(r.i, c, ")" if c == "(" else "}", cmd.nested)
            continue
        if text.startswith("::", r.i) or c == ".":
            static = text.startswith("::", r.i)
            r.i += 2 if static else 1
            j = r.i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            last_word, r.i = text[r.i:j], j
            continue
        if c == ">" or (c in "*123456" and text[r.i + 1:r.i + 2] == ">"):
            redirect = _redirect(r)
            if redirect:
                cmd.redirects.append(redirect)
            continue
        before = r.i
        value = r.element(cmd.nested, EXPR_END)
        if r.i == before:
            r.i += 1
        if c in "$@" or c in SQUOTES or c in DQUOTES:
            values.append(value)
        last_word = ""
    cmd.words = [("arg", values)] if values else []
    cmd.value = values[0] if len(values) == 1 and not cmd.calls else None
    return cmd


def _call_args(inner: str, r: Reader, cmd: PsCommand) -> list:
    """A method call's arguments: each a list of parts when it is one plain value, else None.

    What an argument runs (``(Join-Path a b)``, ``$(...)``) is read into ``cmd.nested``."""
    if not inner.strip():
        return []
    scan = Reader(inner, r.depth, r.flags, parse)
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(inner):
        c = inner[i]
        if c in SQUOTES or c in DQUOTES:
            i = scan._quote_end(i)
            continue
        if c == "`":
            i += 2
            continue
        depth += (c in "([{") - (c in ")]}")
        if c == "," and depth == 0:
            pieces.append(inner[start:i])
            start = i + 1
        i += 1
    pieces.append(inner[start:])
    args = []
    for piece in (p.strip() for p in pieces):
        one = Reader(piece, r.depth, r.flags, parse)
        value = one.element(cmd.nested, EXPR_END)
        whole = bool(piece) and one.i >= len(piece)
        args.append(value if whole else None)
        if piece and not whole:
            r.nested(piece, cmd.nested)  # an expression or a command in parentheses: it runs too
    return args
