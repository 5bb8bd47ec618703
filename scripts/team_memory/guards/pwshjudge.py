"""Can a PowerShell line write into a memory store? ``judge(command, cwd, stores)``: the Bash judge on PowerShell's
front end (``bash_text``), plainly conservative: every variable unknown, a cmdlet that is no reader denied any value
that could reach a store, and on a line that names the store what the reader cannot follow (``_UNREAD``) denied.
"""
from __future__ import annotations

import os
import re

from ..base.pathtext import slashed
from .shelljudge import any_argument, judge_command as bash_command, piped_paths, run_commands
from .shellpaths import (MAX_ALTERNATIVES, MAX_COMMAND_CHARS, Denied, State, absolute, check, may_name_store,
                         names_store, plain_text, reach, shown, verdict, word_text)
from .shellscan import MAX_DEPTH, UNKNOWN, balanced, parse

# Parameters that always take a value, content rather than a path it writes: spelled with this many letters or more.
CONTENT_PARAMS = {"value": 2, "inputobject": 3}
# Cmdlets (and their aliases) that only read, print or compute: allowed whatever their arguments say.
READERS = frozenset((
    "get-content gc cat type select-string sls test-path split-path join-path get-location gl pwd write-output echo "
    "write write-host write-verbose write-debug write-warning write-error write-information write-progress "
    "format-table ft format-list fl format-wide fw format-custom format-hex out-string out-host out-null out-default "
    "foreach-object % measure-object measure group-object group compare-object compare diff convertto-json "
    "convertfrom-json convertto-csv convertfrom-csv convertto-xml convertfrom-stringdata get-filehash get-command gcm "
    "get-help man help get-date get-process gps ps get-variable gv get-module import-csv ipcsv import-clixml get-acl "
    "get-psdrive start-sleep sleep test-json get-member gm select-xml get-unique gu get-history h history clear-host "
    "cls get-alias gal get-random measure-command get-itemproperty gp get-itempropertyvalue gpv get-service "
    "get-culture get-host get-uptime get-error get-job receive-job wait-job get-clipboard set-clipboard set-variable "
    "sv new-variable clear-variable remove-variable get-executionpolicy get-psreadlineoption exit return break "
    "continue throw if elseif else foreach for while do until try catch finally switch function filter param begin "
    "process end trap").split())
# What a lister or a filter hands to the next command in a pipe.
LISTERS = frozenset("get-childitem gci ls dir get-item gi resolve-path rvpa".split())
PASS = frozenset("where-object ? sort-object sort select-object select".split())
# Writers that take the path from a pipe when none is given (the others take their content from it).
PATH_FROM_PIPE = frozenset("clear-content set-item clear-item set-itemproperty clear-itemproperty new-itemproperty "
                           "remove-itemproperty set-acl remove-item copy-item move-item rename-item".split())
ALIASES = dict(p.split("=") for p in (  # of the cmdlets that are no reader
    "sc=set-content ac=add-content clc=clear-content tee=tee-object epcsv=export-csv ni=new-item md=new-item "
    "mkdir=new-item ri=remove-item rm=remove-item rmdir=remove-item rd=remove-item del=remove-item erase=remove-item "
    "cp=copy-item copy=copy-item cpi=copy-item mv=move-item move=move-item mi=move-item ren=rename-item "
    "rni=rename-item rename=rename-item si=set-item cli=clear-item sp=set-itemproperty clp=clear-itemproperty "
    "rp=remove-itemproperty iwr=invoke-webrequest curl=invoke-webrequest wget=invoke-webrequest irm=invoke-restmethod "
    "cd=set-location sl=set-location chdir=set-location pushd=push-location popd=pop-location iex=invoke-expression "
    "saps=start-process start=start-process").split())
# The writing cmdlets whose every path value is checked; another module's cmdlet is also denied a word naming .claude.
KNOWN_WRITERS = PATH_FROM_PIPE | set(ALIASES.values()) | set("out-file export-clixml start-transcript expand-archive "
                                                              "compress-archive new-object robocopy xcopy".split())
# Programs that are PowerShell themselves, or cmd.exe: the text they are given is a line to judge.
PWSH_VALUES = tuple("executionpolicy ep ex windowstyle w inputformat outputformat of configurationname "
                    "workingdirectory wd settingsfile custompipename version v".split())
SHELLS = {"powershell": "pwsh", "pwsh": "pwsh", "powershell_ise": "pwsh", "cmd": "cmd"}
# .NET methods that write, move or delete a file: by the verb their name starts with (the class rule's ``_UNREAD``).
_WRITE_METHOD = r"(?:write|append|create|delete|move|copy|replace|open|encrypt|decrypt|set|new|save|extract)\w*"

_PIPED_WRITERS = PATH_FROM_PIPE | set("set-content add-content new-item rename-itemproperty rnp expand-archive "
                                      "unblock-file".split())
_PIPED_WRITERS = sorted(_PIPED_WRITERS | {a for a, name in ALIASES.items() if name in _PIPED_WRITERS})
_UNREAD = {  # on a line that names the store, what hands its path on where the reader cannot follow (issue 36)
    "a pipe into a cmdlet that takes its path from the piped item": r"\|\s*(?:" + "|".join(_PIPED_WRITERS) + r")\b",
    "a splatted parameter set": r"(?<![\w@$])@[a-z_]",
    "a .NET method that writes": r"(?:\.|::)" + _WRITE_METHOD + r"\s*\(",
    "a .NET method called by name": r"(?:foreach-object|%|\.foreach\(|-m\w*)\s*" + _WRITE_METHOD + r"\b",
    "code run from a string": r"\b(?:iex|invoke-expression|invoke-command|icm|start-job|start-threadjob|sajb|"
                              r"invokescript|addscript|newscriptblock)\b"
                              r"|scriptblock\]|-e(?:nc\w*|c)?\s+[a-z0-9+/=]{8}",
    "another program started": r"\b(?:start-process|saps|start|wsl|bash|sh|robocopy|xcopy|attrib|icacls|takeown|"
                               r"forfiles|schtasks|wmic|rundll32|mshta|cscript|wscript)(?:\.exe)?\b",
}


def judge(command: str, cwd: str, stores: list):
    """None if the PowerShell line cannot change a store, else what can (a short text)."""
    state, flags = State(slashed(cwd), [slashed(s) for s in stores], command.lower().replace("\\", "/")), {}
    state.dots, state.judge, text = True, _command, _read(command)  # PowerShell's * matches .claude
    said = verdict(lambda: run_commands(parse(bash_text(command), 0, flags), state, None), flags, command,
                   "a PowerShell line", lambda: may_name_store(text, stores))
    if said:
        return said
    # The class rule: ``_UNREAD`` on a line that names the store; a .NET method that writes, on one run inside it.
    named, inside = names_store(text, state.stores), bool(state.origin) and reach(state.origin, state.stores, False)
    for what, pattern in _UNREAD.items() if named or inside else ():
        if (named or what.startswith("a .NET")) and re.search(pattern, text.lower()):
            return f"{what}, on a line that {'names .claude' if named else 'runs inside .claude/memory'}"
    return None


def _read(command: str) -> str:
    """The line as PowerShell reads its words: backtick escapes, quotes and ``'a' + 'b'`` joins read away."""
    text = re.sub(r"['\"\u2018\u2019\u201c\u201d]\s*\+\s*['\"\u2018\u2019\u201c\u201d]", "",
                  command[:MAX_COMMAND_CHARS])
    text = re.sub(r"`(.)", r"\1", text, flags=re.S)
    return "".join(c for c in text if c not in "'\"\u2018\u2019\u201c\u201d")


# --- the front end: a PowerShell line spelled for the Bash reader -------------------------------------------------

_TYPOGRAPHIC = str.maketrans("\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u2013\u2014\u2015\x1f", "''''\"\"\"---?")
_SPELLED = {",#": " , \\", ",": " , ", ")": " ", "}": " ", "*>": "&", "<": "\\<"}  # PowerShell's sense, for Bash
_ESCAPES = {"0": "", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_NAME = re.compile(r"[A-Za-z0-9_]+(?::[A-Za-z0-9_]+)?")
_ASSIGN = re.compile(r"\$([A-Za-z0-9_]+(?::[A-Za-z0-9_]+)?)[ \t]*([-+*/%?]?)=(?!=)")
_VALUES = {"null": "/dev/null", "true": "''", "false": "''", "pwd": "$PWD", "home": "$HOME"}


def _variable(name: str) -> str:
    """A variable as the Bash reader's ``${ps_name}`` (any case, scope dropped); ``$null`` and friends as values."""
    low = name.lower()
    low = low.split(":", 1)[1] if low.startswith(("script:", "global:", "local:", "private:")) else low
    return _VALUES.get(low) or "${ps_" + ("_" if low == "psitem" else low.replace(":", "_")) + "}"


def _skip(text: str, i: int) -> int:
    """The index past a quote (``''`` and ``""`` inside) or a backtick escape at ``i``, else ``i``."""
    if text[i] == "`":
        return i + 2
    if text[i] in "'\"":
        j = i + 1
        while j < len(text) and (text[j] != text[i] or text[j + 1:j + 2] == text[i]):
            j += 2 if text[j] == text[i] or (text[j] == "`" and text[i] == '"') else 1
        return j + 1
    return i


def _group(text: str, i: int, out: list, depth: int) -> int:
    """``(...)``, ``{...}`` (``$`` or ``@`` before them) whose bracket is at ``i``: a nested line, as ``$(...)``."""
    end = balanced(text, i + 1, text[i], ")" if text[i] == "(" else "}", _skip)
    inner = text[i + 1:end - 1] if end > 0 else text[i + 1:]
    out.append("$(" + bash_text(inner, depth + 1) + (")" if end > 0 else ") '"))  # unclosed: an open quote follows
    return end if end > 0 else len(text)


def bash_text(text: str, depth: int = 0) -> str:
    """A PowerShell line spelled for ``shellscan.parse`` (see the module doc); linear, bounded in depth."""
    if depth > MAX_DEPTH:
        raise Denied("a PowerShell line nested too deeply to check")
    text, out, i, start = text.translate(_TYPOGRAPHIC), [], 0, True
    while i < len(text):
        c, nxt = text[i], text[i + 1:i + 2]
        if start and c not in " \t\r":
            start, m = False, _ASSIGN.match(text, i)
            if m:  # $x = ...: the value is a statement of its own; x is never known
                i, start = m.end(), True
                continue
            if c in "$[(@'\"" or c.isdigit():
                out.append(": ")  # an expression: only what it nests runs (and the class rule reads it)
            elif (c == "&" and nxt != "&") or (c == "." and nxt in (" ", "\t", "'", '"', "$")):
                i += 1  # the call operator or dot-sourcing: the next word names the command
                continue
        if c == "`":
            out.append("/" if nxt == "\\" else "\\" + nxt if nxt and nxt != "\r" else
                       "\\\n" if text.startswith("\r\n", i + 1) else "")
            i += 3 if text.startswith("\r\n", i + 1) else 2
        elif c == "\\":
            out.append("/")
            i += 1
        elif c == "'" or (c == "@" and nxt == "'"):
            i = _single(text, i, out)
        elif c == '"' or (c == "@" and nxt == '"'):
            i = _double(text, i, out, depth)
        elif c == "$":
            i = _dollar(text, i + 1, out, depth)
        elif c in "({" or (c == "@" and nxt in ("(", "{")):
            i = _group(text, i + (c == "@"), out, depth)
        elif c == "<" and nxt == "#":
            end = text.find("#>", i + 2)
            i = len(text) if end < 0 else end + 2
        else:
            out.append(_SPELLED.get(c + nxt) or _SPELLED.get(c, c))
            start = c in ";|\n&" or (start and c in " \t\r")
            i += 1
    return "".join(out)


def _single(text: str, i: int, out: list) -> int:
    """A single-quoted string or here-string at ``i``: literal, ``''`` an apostrophe."""
    if text[i] == "@":
        end = text.find("\n'@", i + 2)
        body, after = text[i + 2:end if end >= 0 else len(text)].lstrip(" \t").lstrip("\r\n"), end + 3
    else:
        after = _skip(text, i)
        end = after - 1 if after <= len(text) else -1
        body = text[i + 1:end if end >= 0 else len(text)].replace("''", "'")
    body = body.replace("\\", "/").replace("'", "'\\''")
    out.append("'" + "".join("'" + c + "'" if c in "*?[]" else c for c in body) + ("'" if end >= 0 else ""))
    return after if end >= 0 else len(text)


def _double(text: str, i: int, out: list, depth: int) -> int:
    """A double-quoted string or here-string at ``i``: backtick escapes, ``""``, ``$x`` and ``$(...)`` read."""
    here = text[i] == "@"
    i += 1 + here
    out.append('"')
    while i < len(text):
        c, e = text[i], text[i + 1:i + 2]
        if (here and text.startswith('\n"@', i)) or (c == '"' and e != '"' and not here):
            out.append('"')
            return i + (3 if here else 1)
        if c == "`" or (c == '"' and not here):
            out.append('\\"' if c == '"' else _ESCAPES[e] if e in _ESCAPES else "/" if e == "\\" else
                       "\\" + e if e and e in '"$`' else e)
            i += 2
        elif c == "$":
            i = _dollar(text, i + 1, out, depth, True)
        else:
            out.append("/" if c == "\\" else "\\" + c if c in '"`' else '"' + c + '"' if c in "*?[]" else c)
            i += 1
    return i  # unfinished: the reader sees an open quote


def _dollar(text: str, i: int, out: list, depth: int, quoted: bool = False) -> int:
    """What follows a ``$`` (``i`` past it): ``$(...)``, a variable or an unknown value (a property but ``$_``'s)."""
    if text.startswith("(", i):
        return _group(text, i, out, depth)
    m = _NAME.match(text, i)
    if m:
        prop = not quoted and text[m.end():m.end() + 1] == "." and text[m.end() + 1:m.end() + 2].isalpha()
        out.append("$(:)" if prop and m.group().lower() not in ("_", "psitem") else _variable(m.group()))
        return m.end()
    if text.startswith("{", i):
        end = text.find("}", i)
        out.append("$(:)")
        return len(text) if end < 0 else end + 1
    out.append("$(:)" if text[i:i + 1] in ("$", "^", "?") else "\\$")
    return i + (text[i:i + 1] in ("$", "^", "?"))


# --- one PowerShell command, its words read and expanded ----------------------------------------------------------

def _command(words: list, raw: list, state: State, piped):
    """Judge one command (``State.judge`` of a PowerShell line); returns what it hands to a pipe."""
    if not words:
        return None
    spelled = word_text(words[0]).rsplit("/", 1)[-1].lower()
    spelled = spelled[:-4] if spelled.endswith((".exe", ".cmd", ".bat", ".com")) else spelled
    if "$?" in spelled:
        raise Denied("a PowerShell command whose name cannot be known")
    name, args = ALIASES.get(spelled, spelled), words[1:]
    if name in PASS:  # what Join-Path or Write-Output hand on is unknown
        return piped
    if name in LISTERS:
        roots = _paths(_given(args), state) or [state.cwd]
        return "paths", roots + [r.rstrip("/") + "/" + UNKNOWN for r in roots]
    if name in ("set-location", "push-location", "pop-location"):
        alts = _paths(_given(args), state) or [os.path.expanduser("~")]
        state.cwd = alts[0] if len(alts) == 1 and name != "pop-location" else UNKNOWN
    elif name in SHELLS:
        _shell(SHELLS[name], args, state)
    elif name == "invoke-expression":
        for alt in [a for w in _given(args) for a in w] or [UNKNOWN]:
            _line(plain_text(alt), state)
    elif name in READERS or name == ":":
        pass
    elif ("-" in name and not name.startswith("-")) or name in ("robocopy", "xcopy"):
        _writer(name, args, state, piped)
    else:  # a program: what the Bash guard says of it (a cd in it moves the line too)
        if _ASSIGN.search(state.text) and any(UNKNOWN in a for w in args for a in w):
            raise Denied(f"{shown(spelled)} given a value that cannot be known, on a line that sets a variable")
        state.judge, kept = None, dict(state.vars)
        try:
            bash_command([[spelled]] + args, [[("s", spelled)]] + raw[1:], state, None)
        finally:  # a program sets no PowerShell variable (``ps_x=1``, ``export ps_x=1`` are Bash's)
            state.judge, state.vars = _command, kept
    return "paths", [UNKNOWN]


def _param(text: str):
    """The parameter a word names (``-Path``, ``-Path:value``), lower case; None for a value."""
    if text[:1] != "-" or not (text[1:2].isalpha() or text[1:2] in ("-", "?", "_")):
        return None
    return text[1:].lstrip("-").split(":", 1)[0].lower()


def _given(args: list) -> list:
    """Every value a cmdlet is given (each a word's alternatives), content parameters' values aside."""
    out, i = [], 0
    while i < len(args):
        name, w = _param(word_text(args[i])), args[i]
        i += 1
        if name is None:
            out.append(w)
        elif any(len(name) >= n and full.startswith(name) for full, n in CONTENT_PARAMS.items()):
            i += ":" not in word_text(w) and i < len(args) and _param(word_text(args[i])) is None  # -Value x: content
        elif ":" in word_text(w):
            out.append([a.split(":", 1)[1] for a in w])
    return out


def _paths(values: list, state: State) -> list:
    """Each value's paths (``C:/x``, ``FileSystem::/x``, relative) from where the line moved and (a failed cd) began."""
    bases = (state.cwd,) if state.cwd == state.origin else (state.cwd, state.origin)
    alts = [a.split("::", 1)[1] if "::" in a else a for w in values for a in w]
    out = [slashed(os.path.normpath(a)) if a[1:2] == ":" and a[:1].isalpha() else absolute(a, b)
           for a in alts for b in bases]
    return out if len(out) <= MAX_ALTERNATIVES * 2 else [UNKNOWN]


def _writer(name: str, args: list, state: State, piped) -> None:
    """A cmdlet that is no reader: nothing it is given (a path, a name joined onto one, what is piped) may reach."""
    values = _given(args)
    given = _paths(values, state) + ([state.cwd] if name == "expand-archive" else [])
    if name in ("new-item", "rename-item"):  # -Name and -NewName are taken inside the path or beside it
        names = [a for w in values for a in w if not a.startswith(("/", UNKNOWN)) and a[1:2] != ":"]
        given += [absolute(n, b) for g in given for b in (g, g.rsplit("/", 1)[0]) for n in names][:MAX_ALTERNATIVES * 4]
    given += _paths([piped_paths(piped)], state) if piped and name in PATH_FROM_PIPE else []
    check(given, state, True, f"{name} of")
    if any(UNKNOWN in g for g in given) and names_store(state.text, state.stores):
        raise Denied(f"{name} given a value that cannot be read, on a line that names .claude")
    if name not in KNOWN_WRITERS:  # another module's cmdlet: a word that names .claude, or an unknown one, is enough
        if any(UNKNOWN in a for w in args for a in w):
            raise Denied(f"{name} given a value that cannot be known")
        any_argument(name, args, state)
    if name == "start-process" and values:
        texts = [plain_text(w[0]) for w in values]
        _line(f"& '{texts[0]}' " + " ".join(texts[1:]), state)


def _line(text: str, state: State) -> None:
    """Text PowerShell runs as a line of its own (``Invoke-Expression``, ``-Command``, ``Start-Process``)."""
    if UNKNOWN in text or "$?" in text:
        raise Denied("PowerShell code that cannot be known")
    run_commands(parse(bash_text(text)), state.copy(), None)


def _shell(kind: str, args: list, state: State) -> None:
    """``powershell``/``pwsh`` and ``cmd`` (``^`` escapes read away): the line they are given is judged."""
    texts = [word_text(w) for w in args]
    if kind == "cmd":
        start = next((i + 1 for i, t in enumerate(texts) if t.lower() in ("/c", "/k", "/r")), len(texts))
        return _line(re.sub(r"\^(.)", r"\1", " ".join(texts[start:]), flags=re.S), state)
    i = 0
    while i < len(texts):
        name = _param(texts[i])
        if name is None:
            return _line(" ".join(texts[i:]), state)  # powershell.exe's first argument: the command
        if name == "ec" or name[:1] == "e" and "encodedcommand".startswith(name):
            raise Denied("an encoded PowerShell command (not read)")
        if name and "command".startswith(name):
            return _line(" ".join(texts[i + 1:]), state)
        if name and "file".startswith(name):
            return any_argument("powershell -File", args[i + 1:], state)
        if name in PWSH_VALUES or any(full.startswith(name) for full in PWSH_VALUES if len(name) > 1):
            i += 1  # -ExecutionPolicy Bypass: the value is no command
        i += 1
    return None
