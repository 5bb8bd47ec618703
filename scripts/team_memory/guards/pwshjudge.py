"""Can a PowerShell line write into a memory store? ``judge(command, cwd, stores)``: the Bash judge's rules
(``shellpaths``) on PowerShell's front end, plainly conservative.

Reading cmdlets (``READERS``) and listers feeding a pipe are allowed; any other cmdlet is denied when a value it is
given (content such as ``-Value`` aside) or a path piped into it could reach a store, unknown values counting as any
path. Programs go to the Bash judge; ``-Command``, ``cmd /c`` and ``Invoke-Expression`` text is judged as a line,
an encoded command is denied. On a line that names the store, what the reader cannot follow (``_UNREAD``) is denied.
The reader (``parse``) yields statements whose words are ``("param", name, value, spelled)`` or ``("arg", elements)``.
"""
from __future__ import annotations

import os
import re

from ..base.pathtext import slashed
from .shelljudge import any_argument, judge_command as bash_command, piped_paths
from .shellpaths import (MAX_ALTERNATIVES, MAX_COMMAND_CHARS, Denied, State, absolute, check, expand,
                         may_name_store, names_store, plain_text, reach, verdict)
from .shellscan import MARKERS, MAX_DEPTH, UNKNOWN, balanced, joined

# Parameters that always take a value, content rather than a path it writes: spelled with this many letters or more.
CONTENT_PARAMS = {"value": 2, "inputobject": 3}
# Cmdlets that only read, print or compute: allowed whatever their arguments say.
READERS = frozenset((
    "get-content select-string test-path split-path join-path get-location write-output write-host write-verbose "
    "write-debug write-warning write-error write-information write-progress format-table format-list format-wide "
    "format-custom format-hex out-string out-host out-null out-default foreach-object measure-object group-object "
    "compare-object convertto-json convertfrom-json convertto-csv convertfrom-csv convertto-xml "
    "convertfrom-stringdata get-filehash get-command get-help get-date get-process get-variable get-module import-csv "
    "import-clixml get-acl get-psdrive start-sleep test-json get-member select-xml get-unique get-history clear-host "
    "get-alias get-random measure-command get-itemproperty get-itempropertyvalue get-service get-culture get-host "
    "get-uptime get-error get-job receive-job wait-job get-clipboard set-clipboard set-variable new-variable "
    "clear-variable remove-variable get-executionpolicy get-psreadlineoption exit return break continue throw if "
    "elseif else foreach for while do until try catch finally switch function filter param begin process end "
    "trap").split())
# What a lister or a filter hands to the next command in a pipe.
LISTERS, PASS = frozenset("get-childitem get-item resolve-path".split()), frozenset("where-object sort-object "
                                                                                    "select-object".split())
# The writing cmdlets whose every path value is checked; another module's cmdlet is also denied a word naming .claude.
KNOWN_WRITERS = frozenset((
    "set-content set-item add-content clear-content clear-item out-file tee-object export-csv export-clixml "
    "start-transcript set-itemproperty clear-itemproperty remove-itemproperty new-itemproperty set-acl new-item "
    "remove-item copy-item move-item rename-item expand-archive compress-archive invoke-webrequest invoke-restmethod "
    "start-process new-object robocopy xcopy").split())
# Writers that take the path from a pipe when none is given (the others take their content from it).
PATH_FROM_PIPE = frozenset("clear-content set-item clear-item set-itemproperty clear-itemproperty new-itemproperty "
                           "remove-itemproperty set-acl remove-item copy-item move-item rename-item".split())
ALIASES = dict(p.split("=") for p in (
    "sc=set-content ac=add-content clc=clear-content tee=tee-object epcsv=export-csv ni=new-item md=new-item "
    "mkdir=new-item ri=remove-item rm=remove-item rmdir=remove-item rd=remove-item del=remove-item erase=remove-item "
    "cp=copy-item copy=copy-item cpi=copy-item mv=move-item move=move-item mi=move-item ren=rename-item "
    "rni=rename-item rename=rename-item si=set-item cli=clear-item sp=set-itemproperty clp=clear-itemproperty "
    "rp=remove-itemproperty iwr=invoke-webrequest curl=invoke-webrequest wget=invoke-webrequest irm=invoke-restmethod "
    "cd=set-location sl=set-location chdir=set-location pushd=push-location popd=pop-location iex=invoke-expression "
    "saps=start-process start=start-process gci=get-childitem ls=get-childitem dir=get-childitem gi=get-item "
    "rvpa=resolve-path echo=write-output write=write-output ?=where-object sort=sort-object select=select-object "
    "gc=get-content cat=get-content type=get-content sls=select-string gl=get-location pwd=get-location "
    "%=foreach-object foreach=foreach-object measure=measure-object ft=format-table fl=format-list fw=format-wide "
    "gm=get-member sleep=start-sleep cls=clear-host gcm=get-command gal=get-alias gps=get-process ps=get-process "
    "gv=get-variable sv=set-variable h=get-history history=get-history gu=get-unique diff=compare-object "
    "compare=compare-object group=group-object man=get-help help=get-help gp=get-itemproperty "
    "gpv=get-itempropertyvalue ipcsv=import-csv").split())
# Programs that are PowerShell themselves, or cmd.exe: the text they are given is a line to judge.
PWSH_VALUES = tuple("executionpolicy ep ex windowstyle w inputformat outputformat of configurationname "
                    "workingdirectory wd settingsfile custompipename version v".split())
SHELLS = {"powershell": "pwsh", "pwsh": "pwsh", "powershell_ise": "pwsh", "cmd": "cmd"}
# .NET methods that write, move or delete a file (the class rule's ``_UNREAD``).
WRITE_METHODS = frozenset((
    "writealltext writealllines writeallbytes appendalltext appendalllines appendtext createtext create delete move "
    "copy replace openwrite open encrypt decrypt setattributes setcreationtime setlastwritetime setlastaccesstime "
    "setcreationtimeutc setlastwritetimeutc setlastaccesstimeutc setaccesscontrol createdirectory createsymboliclink "
    "moveto copyto writealltextasync writeallbytesasync writealllinesasync appendalltextasync appendalllinesasync "
    "new write writeline save extracttodirectory createfromdirectory setvalue").split())

TEMP_FILE = slashed(os.path.join(os.environ.get("TEMP") or os.environ.get("TMPDIR") or "/tmp", "tmp-new.tmp"))
_PIPED_WRITERS = PATH_FROM_PIPE | set("set-content add-content new-item rename-itemproperty rnp expand-archive "
                                      "unblock-file".split())
_PIPED_WRITERS = sorted(_PIPED_WRITERS | {a for a, name in ALIASES.items() if name in _PIPED_WRITERS})
_UNREAD = {  # on a line that names the store, what hands its path on where the reader cannot follow (issue 36)
    "a pipe into a cmdlet that takes its path from the piped item": r"\|\s*(?:" + "|".join(_PIPED_WRITERS) + r")\b",
    "a splatted parameter set": r"(?<![\w@$])@[a-z_]",
    "a .NET method that writes": r"(?:\.|::)(?:" + "|".join(sorted(WRITE_METHODS)) + r")\s*\(",
    "a .NET method called by name": r"(?:foreach-object|%|\.foreach\(|-m\w*)\s*(?:" + "|".join(sorted(WRITE_METHODS))
                                    + r")\b",
    "code run from a string": r"\b(?:iex|invoke-expression|invoke-command|icm|start-job|start-threadjob|sajb|"
                              r"invokescript|addscript|newscriptblock)\b"
                              r"|scriptblock\]|-e(?:nc\w*|c)?\s+[a-z0-9+/=]{8}",
    "another program started": r"\b(?:start-process|saps|start|wsl|bash|sh|robocopy|xcopy|attrib|icacls|takeown|"
                               r"forfiles|schtasks|wmic|rundll32|mshta|cscript|wscript)(?:\.exe)?\b",
}


def judge(command: str, cwd: str, stores: list):
    """None if the PowerShell line cannot change a store, else what can (a short text)."""
    state, flags = State(slashed(cwd), [slashed(s) for s in stores], command.lower().replace("\\", "/")), {}
    state.dots = True  # PowerShell's * matches .claude: past the time bound, any wildcard counts too

    def named():
        text = _read(command)
        return may_name_store(text, stores) or "*" in text or "?" in text
    return verdict(lambda: run(parse(command, 0, flags), state, None), flags, command, "a PowerShell line",
                   named) or unread_use(command, state.stores, state.origin)


def _read(command: str) -> str:
    """The line as PowerShell reads its words: backtick escapes, quotes and ``'a' + 'b'`` joins read away."""
    text = re.sub(r"['\"\u2018\u2019\u201c\u201d]\s*\+\s*['\"\u2018\u2019\u201c\u201d]", "",
                  command[:MAX_COMMAND_CHARS])
    text = re.sub(r"`(.)", r"\1", text, flags=re.S)
    return "".join(c for c in text if c not in "'\"\u2018\u2019\u201c\u201d")


def unread_use(command: str, stores: list, cwd: str = ""):
    """The class rule: on a line that names the store, a way of reaching it the reader cannot follow (``_UNREAD``);
    on a line run inside a store, a .NET method that writes (relative paths land in the store)."""
    text = _read(command)
    named, inside = names_store(text, stores), bool(cwd) and reach(cwd, stores, False)
    for what, pattern in _UNREAD.items() if named or inside else ():
        if (named or what.startswith("a .NET")) and re.search(pattern, text.lower()):
            return f"{what}, on a line that {'names .claude' if named else 'runs inside .claude/memory'}"
    return None


def run(commands: list, state: State, piped) -> None:
    """Judge statements in order; ``piped`` is what the first one reads from a pipe."""
    for cmd in commands:
        state.tick("a PowerShell line")
        if cmd.nested:
            inner = state.copy()
            inner.vars["ps:_"] = inner.vars["ps:psitem"] = piped_paths(piped)
            run(cmd.nested, inner, None)
        for op, target in cmd.redirects:
            alts = expand(target, state)
            if alts != [""]:  # > $null
                check([_abs(a, state.cwd) for a in alts], state, False, f"output redirection {op}")
        out = _judged(cmd, state, piped)
        piped = (out or ("paths", [UNKNOWN])) if cmd.sep == "|" else None  # a pipe of unknown things


def _judged(cmd, state: State, piped):
    """What the statement hands on; an assignment's variable holds it (or the one plain value it is given)."""
    out = _command(cmd.words, state, piped) if cmd.kind == "command" else None
    if cmd.target is None:
        return out
    temp = cmd.calls in (["gettempfilename"], ["gettemppath"], ["createtempsubdirectory"])
    value = [TEMP_FILE] if temp else out[1] if out and out[0] == "paths" else [UNKNOWN]
    value = expand(cmd.value, state) if cmd.value is not None else value
    state.vars[cmd.target] = value[:MAX_ALTERNATIVES] or [UNKNOWN]
    return None


def _abs(alt: str, cwd: str) -> str:
    """A PowerShell path (``C:/x``, ``FileSystem::/x``, relative) made absolute against the folder the line is in."""
    alt = alt.split("::", 1)[1] if "::" in alt else alt
    if len(alt) > 1 and alt[1] == ":" and alt[0].isalpha():
        return slashed(os.path.normpath(alt))
    return absolute(alt, cwd)


def _paths(elements: list, state: State) -> list:
    """Each element's paths, from the folder the line moved to and (a failed ``cd`` stays) where it started."""
    bases = (state.cwd,) if state.cwd == state.origin else (state.cwd, state.origin)
    out = [d for e in elements for a in expand(e, state) for b in bases for d in [_abs(a, b)]]
    return out if len(out) <= MAX_ALTERNATIVES * 2 else [UNKNOWN]


def _name(words: list, state: State) -> str:
    first = words[0]
    parts = first[1][0] if first[0] == "arg" and first[1] else [("s", first[3] if first[0] == "param" else "")]
    text = plain_text(expand(parts, state)[0]).rsplit("/", 1)[-1].lower()
    return text[:-4] if text.endswith((".exe", ".cmd", ".bat", ".com")) else text


def _given(args: list) -> list:
    """Every element the cmdlet is given (a parameter's value included), content parameters' values aside."""
    out, i = [], 0
    while i < len(args):
        word = args[i]
        i += 1
        if word[0] == "arg":
            out.extend(word[1])
        elif any(len(word[1]) >= n and full.startswith(word[1]) for full, n in CONTENT_PARAMS.items()):
            i += word[2] is None and i < len(args) and args[i][0] == "arg"  # -Value x: x is content
        elif word[2] is not None:
            out.extend(word[2])
    return out


def _command(words: list, state: State, piped):
    if not words:
        return None
    spelled = _name(words, state)
    if "$?" in spelled:
        raise Denied("a PowerShell command whose name cannot be known")
    name, args = ALIASES.get(spelled, spelled), words[1:]
    if name in READERS:
        return None
    if name in PASS or name == "new-temporaryfile":  # what Join-Path or Write-Output hand on is unknown
        return piped if name in PASS else ("paths", [TEMP_FILE])
    if name in LISTERS:
        roots = _paths(_given(args), state) or [state.cwd]
        return "paths", roots + [r.rstrip("/") + "/" + UNKNOWN for r in roots]
    if name in ("set-location", "push-location", "pop-location"):
        alts = _paths(_given(args), state) or [os.path.expanduser("~")]
        state.cwd = alts[0] if len(alts) == 1 and name != "pop-location" else UNKNOWN
    elif name in SHELLS:
        _shell(SHELLS[name], args, state)
    elif name == "invoke-expression":
        for alt in [a for e in _given(args) for a in expand(e, state)] or [UNKNOWN]:
            _line(alt, state)
    elif ("-" in name and not name.startswith("-")) or name in ("robocopy", "xcopy"):
        _writer(name, args, state, piped)
    else:
        _program(name, args, state)
    return None


def _writer(name: str, args: list, state: State, piped) -> None:
    """A cmdlet that is no reader: nothing it is given (a path, a name joined onto one, what is piped) may reach."""
    values = _given(args)
    given = _paths(values, state) + ([state.cwd] if name == "expand-archive" else [])
    if name in ("new-item", "rename-item"):  # -Name and -NewName are taken inside the path or beside it
        names = [a for e in values for a in expand(e, state) if not a.startswith(("/", UNKNOWN)) and a[1:2] != ":"]
        given += [absolute(n, b) for g in given for b in (g, g.rsplit("/", 1)[0]) for n in names][:MAX_ALTERNATIVES * 4]
    given += [_abs(a, state.cwd) for a in piped_paths(piped)] if piped and name in PATH_FROM_PIPE else []
    check(given, state, True, f"{name} of")
    if any(UNKNOWN in g for g in given) and names_store(state.text, state.stores):
        raise Denied(f"{name} given a value that cannot be read, on a line that names .claude")
    if name not in KNOWN_WRITERS:  # another module's cmdlet: a word that names .claude, or an unknown one, is enough
        words = [b for w in args for b in _bash_words(w, state)]
        if any(UNKNOWN in a for w in words for a in w):
            raise Denied(f"{name} given a value that cannot be known")
        any_argument(name, words, state)
    texts = [plain_text(a) for e in values for a in expand(e, state)[:1]]
    if name == "start-process" and texts:
        _line(f"& '{texts[0]}' " + " ".join(texts[1:]), state)


def _bash_words(word, state: State) -> list:
    """One PowerShell word as the Bash guard's words: each comma-separated value its own argument."""
    if word[0] == "param":
        return [[word[3] + ":" + a for a in expand(word[2][0], state)]] if word[2] else [[word[3]]]
    return [expand(e, state) for e in word[1]]


def _program(name: str, args: list, state: State) -> None:
    """A program outside PowerShell: what the Bash guard says of it (``py -3`` read as ``python``)."""
    if name == "py":
        name, args = "python", [w for w in args if not (w[0] == "param" and w[1][:1].isdigit())]
    words = [[name]] + [b for w in args for b in _bash_words(w, state)]
    bash_command(words, [[("s", plain_text(w[0]))] for w in words], state, None)


def _line(text: str, state: State) -> None:
    """Text PowerShell runs as a line of its own (``Invoke-Expression``, ``-Command``, ``Start-Process``)."""
    if UNKNOWN in text:
        raise Denied("PowerShell code that cannot be known")
    run(parse(plain_text(text)), state.copy(), None)


def _shell(kind: str, args: list, state: State) -> None:
    """``powershell``/``pwsh`` and ``cmd`` (``^`` escapes read away): the line they are given is judged."""
    texts = [a for w in args for b in _bash_words(w, state) for a in b[:1]]  # an unknown part stays unknown
    if kind == "cmd":
        start = next((i + 1 for i, t in enumerate(texts) if t.lower() in ("/c", "/k", "/r")), None)
        if start is not None:
            _line(re.sub(r"\^(.)", r"\1", " ".join(texts[start:]), flags=re.S), state)
        return
    i = 0
    while i < len(args):
        name = args[i][1] if args[i][0] == "param" else None
        if name is None:
            return _line(" ".join(texts[i:]), state)  # powershell.exe's first argument: the command
        if name == "ec" or name[:1] == "e" and "encodedcommand".startswith(name):
            raise Denied("an encoded PowerShell command (not read)")
        if name and "command".startswith(name) and i + 1 < len(args):
            return _line(" ".join(texts[i + 1:]), state)
        if name and "file".startswith(name):
            return any_argument("powershell -File", [b for w in args[i + 1:] for b in _bash_words(w, state)], state)
        if name in PWSH_VALUES or any(full.startswith(name) for full in PWSH_VALUES if len(name) > 1):
            i += 1  # -ExecutionPolicy Bypass: the value is no command
        i += 1
    return None


# --- the reader ---------------------------------------------------------------------------------------

SQUOTES, DQUOTES, DASHES = "'\u2018\u2019\u201a\u201b", '"\u201c\u201d\u201e', "-\u2013\u2014\u2015"
END = set(" \t\r\n;|&(){},<>")
EXPR_END = END | set("[]=+!.")
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_?:")
_ESCAPES = {"0": "\x00", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_KNOWN_VARS = {"pwd": "PWD", "home": "HOME"}
_ASSIGN = re.compile(r"\$([A-Za-z0-9_?:{}]*)[ \t]*(?:([-+*/%?])=|=(?!=))")
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
        if text.startswith("{", i):  # ${...}: read as a value that cannot be known
            end = text.find("}", i)
            parts.append(("u", ""))
            self.i = len(text) if end < 0 else end + 1
            return
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
    """``[type]$name = ...`` (``+=`` too): the right side read as a command or an expression; None if no assignment."""
    i = r.i
    while r.text.startswith("[", i):  # [type] casts
        i = r.text.find("]", i) + 1
        if not i:
            return None
    m = _ASSIGN.match(r.text, i)
    if not m:
        return None
    r.i = m.end()
    r.skip_blank()
    rest = r.text[r.i:r.i + 1]
    if not m.group(2) and rest and (rest.isalpha() or rest in "&."):
        cmd = PsCommand("command")
        _arguments(r, cmd)  # $p = Join-Path $root x
    else:
        cmd = _expression(r)
    cmd.target = variable(m.group(1).strip("{}"))[1]
    cmd.value = None if m.group(2) else cmd.value  # += and friends: no longer one known text
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
            values += [value] if c in "$@" or c in SQUOTES or c in DQUOTES else []
            last_word = ""
    cmd.value = values[0] if len(values) == 1 and not cmd.calls else None
    return cmd
