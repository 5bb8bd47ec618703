"""Can a PowerShell line write into a memory store? A plainly conservative judge on PowerShell's front end.

Reading cmdlets (``READERS``) and the listers whose output feeds a pipe are allowed; every other cmdlet (its own or
another module's) is denied when any value it is given, or a path piped into it, could be a store, lie inside one or
hold one (content parameters such as ``-Value`` aside): no parameter binding, so a copy out of the store is denied too.
Programs go to the Bash judge; ``powershell -Command``/``-EncodedCommand``, ``cmd /c`` and ``Invoke-Expression`` are
read as lines of their own. On a line that names the store, what the reader cannot follow (``_UNREAD``: a pipe that
binds the path, a splat, a .NET method, code in a string, another program) is denied. Paths compare as ``/``, any case.
"""
from __future__ import annotations

import os
import re

from ..base.pathtext import slashed
from .pwshscan import parse
from .shelljudge import any_argument, judge_command as bash_command, piped_paths
from .shellpaths import (MAX_ALTERNATIVES, MAX_COMMAND_CHARS, Denied, State, TimeUp, absolute, check, expand,
                         may_name_store, names_store, plain_text, reach)
from .shellscan import LBRACK, QUEST, RBRACK, STAR, UNKNOWN

# Parameters that always take a value, content rather than a path it writes: spelled with this many letters or more.
CONTENT_PARAMS = {"value": 2, "inputobject": 3}
# Cmdlets that only read, print or compute: allowed whatever their arguments say.
READERS = frozenset((
    "get-content select-string test-path split-path get-location write-host write-verbose write-debug write-warning "
    "write-error write-information write-progress format-table format-list format-wide format-custom format-hex "
    "out-string out-host out-null out-default foreach-object measure-object group-object compare-object "
    "convertto-json convertfrom-json convertto-csv convertfrom-csv convertto-xml convertfrom-stringdata get-filehash "
    "get-command get-help get-date get-process get-variable get-module import-csv import-clixml get-acl get-psdrive "
    "start-sleep test-json get-member select-xml get-unique get-history clear-host get-alias get-random "
    "measure-command get-itemproperty get-itempropertyvalue get-service get-culture get-host get-uptime get-error "
    "get-job receive-job wait-job get-clipboard set-clipboard set-variable new-variable clear-variable "
    "remove-variable get-executionpolicy get-psreadlineoption exit return break continue throw if elseif else "
    "foreach for while do until try catch finally switch function filter param begin process end trap").split())
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
_PIPED_WRITERS = ("set-content sc add-content ac clear-content clc remove-item rm del erase ri rd rmdir move-item mv "
                  "move mi copy-item cp copy cpi rename-item ren rni set-item si clear-item cli new-item ni "
                  "set-itemproperty sp clear-itemproperty clp remove-itemproperty rp rename-itemproperty rnp "
                  "new-itemproperty set-acl expand-archive unblock-file").split()
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
    state = State(slashed(cwd), [slashed(s) for s in stores], command.lower().replace("\\", "/"))
    flags: dict = {}
    try:
        run(parse(command, 0, flags), state, None)
        if flags.get("unfinished") and "claude" in state.text:
            raise Denied("a PowerShell line with an unfinished quote or bracket")
        if flags.get("too deep"):
            raise Denied("a PowerShell line nested too deeply to check")
    except Denied as exc:
        return str(exc)
    except RecursionError:
        return "a PowerShell line too deeply nested to check"
    except TimeUp:
        text = _read(command)  # PowerShell's * also matches a leading dot: any wildcard counts here
        named = may_name_store(text, stores) or "*" in text or "?" in text
        return "a PowerShell line too long to check in time" if named else None
    return unread_use(command, state.stores, state.origin)


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
        out = _statement(cmd, state, piped)
        piped = (out or ("paths", [UNKNOWN])) if cmd.sep == "|" else None  # a pipe of unknown things


def _statement(cmd, state: State, piped):
    if cmd.kind == "expr":
        values = [_abs(a, state.cwd) for w in cmd.words for e in w[1] for a in expand(e, state)]
        return "paths", values[:MAX_ALTERNATIVES] or [UNKNOWN]  # (.NET calls that write: the class rule's)
    if cmd.kind != "assign":
        return _command(cmd.words, state, piped)
    value = [UNKNOWN]
    if cmd.words:
        out = _command(cmd.words, state, piped)
        value = out[1] if out and out[0] == "paths" else [UNKNOWN]
    elif cmd.calls in (["gettempfilename"], ["gettemppath"], ["createtempsubdirectory"]):
        value = [TEMP_FILE]
    elif cmd.value is not None and not cmd.calls:
        value = expand(cmd.value, state)
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
    out = [d for e in elements for a in expand(e, state) for b in bases for d in _dotted(_abs(a, b))]
    return out if len(out) <= MAX_ALTERNATIVES * 2 else [UNKNOWN]


def _dotted(pattern: str) -> list:
    """PowerShell's wildcards also match a leading dot (``*`` matches ``.claude``; the Bash reader's never do)."""
    out = [""]
    for i, part in enumerate(pattern.split("/")):
        choices = [part]
        if part[:1] == STAR:
            choices.append("." + part)
        elif part[:1] == QUEST:
            choices.append("." + part[1:])
        elif part[:1] == LBRACK and RBRACK in part and "." in part[1:part.index(RBRACK)]:
            choices.append("." + part[part.index(RBRACK) + 1:])
        out = [o + ("/" if i else "") + c for o in out for c in choices]
        if len(out) > MAX_ALTERNATIVES:
            return [UNKNOWN]
    return out


def _name(words: list, state: State) -> str:
    first = words[0]
    parts = first[1][0] if first[0] == "arg" and first[1] else [("s", first[3] if first[0] == "param" else "")]
    text = plain_text(expand(parts, state)[0]).rsplit("/", 1)[-1].lower()
    return text[:-4] if text.endswith((".exe", ".cmd", ".bat", ".com")) else text


def _values(args: list) -> list:
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
    name, args = ALIASES.get(spelled, spelled), words[1:]
    if name in READERS:
        return None
    if name in LISTERS or name in PASS or name in ("write-output", "join-path", "new-temporaryfile"):
        return _output(name, _values(args), state, piped)
    if name in ("set-location", "push-location", "pop-location"):
        alts = _paths(_values(args), state) or [os.path.expanduser("~")]
        state.cwd = alts[0] if len(alts) == 1 and name != "pop-location" else UNKNOWN
    elif name in SHELLS:
        _shell(SHELLS[name], args, state)
    elif name == "invoke-expression":
        for alt in [a for e in _values(args) for a in expand(e, state)] or [UNKNOWN]:
            _line(alt, state)
    elif ("-" in name and not name.startswith("-")) or name in ("robocopy", "xcopy"):
        _writer(name, args, state, piped)
    else:
        _program(name, args, state)
    return None


def _writer(name: str, args: list, state: State, piped) -> None:
    """A cmdlet that is no reader: nothing it is given (a path, a name joined onto one, what is piped) may reach."""
    values = _values(args)
    given = _paths(values, state) + ([state.cwd] if name == "expand-archive" else [])
    if name in ("new-item", "rename-item"):  # -Name and -NewName are taken inside the path or beside it
        names = [a for e in values for a in expand(e, state) if not a.startswith(("/", UNKNOWN)) and a[1:2] != ":"]
        given += [absolute(n, b) for g in given for b in (g, g.rsplit("/", 1)[0]) for n in names][:MAX_ALTERNATIVES * 4]
    given += [_abs(a, state.cwd) for a in piped_paths(piped)] if piped and name in PATH_FROM_PIPE else []
    check(given, state, True, f"{name} of")
    if any(UNKNOWN in g for g in given) and names_store(state.text, state.stores):
        raise Denied(f"{name} given a value that cannot be read, on a line that names .claude")
    if name not in KNOWN_WRITERS:  # another module's cmdlet: a word that names .claude is enough
        any_argument(name, [b for w in args for b in _bash_words(w, state)], state)
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


def _output(name: str, given: list, state: State, piped):
    """What a lister, ``Join-Path``, ``Write-Output`` or a filter hands to the next command."""
    if name in PASS or name == "new-temporaryfile":
        return piped if name in PASS else ("paths", [TEMP_FILE])
    if name == "write-output":
        return "paths", [a for e in given for a in expand(e, state)] or [UNKNOWN]
    if name == "join-path":
        joined = [""]
        for e in given:
            joined = [j + "/" + a if j else a for j in joined for a in expand(e, state)][:MAX_ALTERNATIVES]
        return "paths", [_abs(j, state.cwd) for j in joined]
    roots = _paths(given, state) or [state.cwd]
    return "paths", roots + [r.rstrip("/") + "/" + UNKNOWN for r in roots]


def _line(text: str, state: State) -> None:
    """Text PowerShell runs as a line of its own (``Invoke-Expression``, ``-Command``, ``Start-Process``)."""
    if UNKNOWN not in text:
        run(parse(plain_text(text)), state.copy(), None)
    elif "claude" in state.text:
        raise Denied("PowerShell code that cannot be known, on a line that names .claude")


def _shell(kind: str, args: list, state: State) -> None:
    """``powershell``/``pwsh`` and ``cmd`` (``^`` escapes read away): the line they are given is judged."""
    texts = [plain_text(a) for w in args for b in _bash_words(w, state) for a in b[:1]]
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
        if (name == "ec" or name[:1] == "e" and "encodedcommand".startswith(name)) and i + 1 < len(args):
            return _line(_decoded(texts[i + 1]), state)
        if name and "command".startswith(name) and i + 1 < len(args):
            return _line(" ".join(texts[i + 1:]), state)
        if name and "file".startswith(name):
            return any_argument("powershell -File", [b for w in args[i + 1:] for b in _bash_words(w, state)], state)
        if name in PWSH_VALUES or any(full.startswith(name) for full in PWSH_VALUES if len(name) > 1):
            i += 1  # -ExecutionPolicy Bypass: the value is no command
        i += 1
    return None


def _decoded(text: str) -> str:
    import base64
    try:
        return base64.b64decode(text, validate=False).decode("utf-16-le", "replace")
    except ValueError:  # binascii.Error included
        return UNKNOWN
