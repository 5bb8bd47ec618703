"""Can a Bash line write into a memory store? ``judge(command, cwd, stores)``: None, or a short text saying how.

Commands are followed in order; readers pass, known writers are checked on what they write, any other program on the
arguments that name a store. Whole-tree git operations pass: they move a team's memories (PostToolUse reports them).
"""
from __future__ import annotations

import os
import re

from .shellpaths import (MAX_ALTERNATIVES, Denied, State, absolute, check, expand, flags_of,
                         may_name_store, names_store, operands, plain_text, reach, shown, verdict, word_text)
from .shellscan import QUEST, STAR, UNKNOWN, parse

# A wrapper runs the command after its options: the short options that take a value.
WRAPPERS = dict(w.partition(":")[::2] for w in (
    "sudo:ugpCDrtUh doas:uC nice:n ionice:cnp nohup time:f command builtin exec:a stdbuf:ioe timeout:ks chrt taskset "
    "unbuffer caffeinate:tw busybox toybox strace:eoposu ltrace:eoposu watch:nd flock:wE setsid noglob xvfb-run "
    "catchsegv rlwrap env:uCS").split())
_SKIP_ONE = {"timeout", "taskset", "chrt", "flock"}  # a duration, a mask, a lock file before the command
KEYWORDS = set("if then else elif fi do done while until ! { } esac in function coproc select".split())
READERS = set((
    "cat less more head tail grep egrep fgrep rg ag ack ls ll tree wc file stat du df diff cmp comm jq cut tr nl od "
    "hexdump md5sum sha1sum sha256sum sha512sum shasum cksum basename dirname realpath readlink echo printf test [ "
    "[[ true false pwd which type whereis column fold fmt strings bat date printenv id whoami uname hostname ps sleep "
    "wait exit return set shopt unset history seq yes expr let paste join man help zcat zless base64 xxd sort uniq "
    "awk gawk sed git lsof pgrep kill jobs fg bg shift source . hash tput clear rev tac look getent nproc free "
    "uptime : mktemp").split())
SHELLS = set("sh bash zsh dash ksh fish ash busybox-sh".split())
INTERPRETERS = set("python node nodejs deno bun ruby perl php lua luajit rscript osascript pwsh tclsh julia groovy "
                   "jshell".split())
WRITERS = set("rm rmdir unlink shred srm trash trash-put gio chmod chown chgrp setfacl chattr xattr touch truncate "
              "mkdir mkfifo mknod tee sponge dos2unix unix2dos gunzip gzip bunzip2 bzip2 unxz xz zstd unzstd split "
              "csplit ex ed vi vim nvim nano emacs code subl setfattr restorecon chcon".split())  # on every operand
COPIERS = set("cp mv install rsync scp ln link rclone gcp gmv ditto".split())
_GIT_READ_ONLY_WITH_PATHS = set("add diff log show blame grep ls-files status commit check-ignore annotate difftool "
                                "shortlog whatchanged ls-tree".split())
# Programs that write the value of an option; curl, wget and zip write more (see ``_reader``).
OUTPUTS = {"dd": "of=", "curl": "-o --output", "wget": "-O --output-document -P --directory-prefix", "zip": "",
           "sort": "-o --output", "base64": "-o --output", "mktemp": "-p --tmpdir"}
CODE_OPTIONS = tuple("-c -e -E --eval -r -p --print -pe -ne -le -lne -lpe -pie -i.bak".split())


def judge(command: str, cwd: str, stores: list):
    """None if the line cannot change a store, else what can (a short text)."""
    state, flags = State(cwd, stores, command), {}
    read = command.replace("\\\n", "").replace("\\", "").replace("'", "").replace('"', "")  # quotes read away
    return verdict(lambda: run_commands(parse(command, 0, flags), state, None), flags, command, "a command line",
                   lambda: may_name_store(read, stores) or "$'" in command)  # $'\x2e...': not decoded here


def run_commands(commands: list, state: State, stdin) -> None:
    """Judge commands in order; ``stdin`` is what the first one reads from a pipe."""
    piped = stdin
    for cmd in commands:
        state.tick("a command line")
        if cmd.nested:
            inner = state.copy()
            if state.judge:  # PowerShell: $_ in a script block is what the pipe hands on
                inner.vars["ps__"] = piped_paths(piped)
            run_commands(cmd.nested, inner, None)
        out = _redirects(cmd.redirects, state)
        produced = (state.judge or judge_command)([expand(w, state) for w in cmd.words], cmd.words, state, out or piped)
        piped = produced if cmd.sep in ("|", "|&") else None


def _redirects(redirects: list, state: State):
    """Check output redirections; return what the command reads on stdin (text, a file or None)."""
    stdin = None
    for op, target in redirects:
        if op in ("<<", "<<<"):
            body = "".join(v for k, v in target if k == "s") if op == "<<" else word_text(expand(target, state))
            stdin = ("text", body)
        elif op == "<":
            stdin = ("file", expand(target, state))
        elif op in (">&", "<&") and ("".join(v for _, v in target).isdigit() or target == [("s", "-")]):
            continue
        elif ">" in op:
            check(expand(target, state), state, False, f"output redirection {op}")
    return stdin


def judge_command(words: list, raw: list, state: State, stdin):
    """Judge one simple command; return what it prints for a pipe (("paths", alts), ("text", s) or None)."""
    state.in_time()  # xargs, sudo, env... hand their command back here, not through run_commands
    words, raw = _assignments(words, raw, state)
    while words:
        name = os.path.basename(word_text(words[0]))
        if name == "function" and len(words) > 1:  # function f { ...; }: the body is judged as f() {...} is
            words, raw = words[2:], raw[2:]
        elif name in KEYWORDS:
            words, raw = words[1:], raw[1:]
        elif name == "for" and len(words) >= 2:
            values = [a for w in words[3:] for a in w] if len(words) > 2 and word_text(words[2]) == "in" else [UNKNOWN]
            state.vars[word_text(words[1])] = values[:MAX_ALTERNATIVES] or [UNKNOWN]
            return None
        elif name == "case":
            return None
        elif name in WRAPPERS:
            words, raw = _unwrap(name, words, raw, state)
        else:
            break
    return command(os.path.basename(word_text(words[0])).lower(), words, raw, state, stdin) if words else None


def _assignments(words: list, raw: list, state: State):
    """Leading ``NAME=value`` words: kept for later commands when alone (or after ``export``...); the rest."""
    keep = []
    lead = 1 if words and word_text(words[0]) in ("export", "declare", "local", "readonly", "typeset") else 0
    i = lead
    while i < len(words):
        part = raw[i][0] if raw[i] else ("", "")
        name = part[1].split("=", 1)[0] if part[0] == "s" and "=" in part[1] else ""
        if not name or not name.replace("_", "a").isalnum() or name[0].isdigit():
            break
        keep.append((name, _assigned(raw[i], state)))
        i += 1
    if i == len(words) or lead:
        state.vars.update(keep)
        return [], []
    return words[i:], raw[i:]


def _assigned(word: list, state: State) -> list:
    first, rest = word[0][1].split("=", 1)[1], word[1:]
    if not first and len(rest) == 1 and rest[0][0] == "u" and "mktemp" in state.text:
        return [os.path.join(os.environ.get("TMPDIR") or "/tmp", "tmp.mktemp-new")]  # a fresh name: never a store
    return expand([("s", first)] + rest, state)


def _unwrap(name: str, words: list, raw: list, state: State):
    """The command a wrapper runs: past its options (their values too) and, for sudo and env, ``NAME=value``;
    ``env -C DIR`` moves, ``env -S STRING`` runs STRING as a line."""
    i = 1
    while i < len(words):
        t, value = word_text(words[i]), words[i + 1] if i + 1 < len(words) else [UNKNOWN]
        if name == "env" and t in ("-C", "--chdir"):
            state.cwd = absolute(value[0], state.cwd)
        elif name == "env" and t in ("-S", "--split-string"):
            run_commands(parse(word_text(value)), state.copy(), None)
            return [], []
        if t.startswith("-") and (len(t) > 1 or name == "env"):
            long_value = name == "env" and t in ("--unset", "--chdir")
            i += 2 if long_value or (len(t) == 2 and t[1] in WRAPPERS[name]) else 1
        elif name in ("sudo", "env") and "=" in t:
            i += 1
        else:
            break
    i += name in _SKIP_ONE and i < len(words)
    return words[i:], raw[i:]


def _check_each(words: list, state: State, removes: bool, what: str) -> None:
    check([a for w in words for a in w], state, removes, what)


def command(name: str, words: list, raw: list, state: State, stdin):
    """What one program does, by its family; returns what it prints for a pipe."""
    args, base = words[1:], name.rstrip("0123456789.")
    if name in ("cd", "pushd", "popd"):
        ops = operands(args) or [[os.path.expanduser("~")]]
        known = name != "popd" and len(ops[0]) == 1 and word_text(ops[0]) != "-"
        state.cwd = absolute(ops[0][0], state.cwd) if known else UNKNOWN
    elif name in ("read", "mapfile", "readarray"):
        state.vars.update((word_text(w), piped_paths(stdin)) for w in operands(args, "adnNptu"))
    elif name == "memory.py":  # the team-memory CLI (run by python: in _interpreter)
        pass
    elif name in HANDLERS:
        return HANDLERS[name](name, args, state, stdin)
    elif base in SHELLS:
        _shell(args, state, stdin)
    elif base in INTERPRETERS or name == "py":  # Windows' Python launcher: ``py -3 ARGS`` runs ``python ARGS``
        _interpreter("python" if name == "py" else base, args, state, stdin)
    elif name in READERS or name in OUTPUTS:
        return _reader(name, args, state, stdin)
    elif name in COPIERS:
        _copy(name, args, state)
    elif name in WRITERS:
        whole = bool(flags_of(args) & {"-r", "-R", "--recursive"}) or name in ("trash", "trash-put", "gio")
        _check_each(operands(args, "sgmoSbCl" if name in ("truncate", "split") else ""), state, whole, f"{name} of")
    else:
        any_argument(name, args, state)
    return None


def any_argument(name: str, args: list, state: State) -> None:
    """An unknown program: denied if an argument the line spells out names ``.claude`` or can reach a store."""
    for w in args:
        if any(names_store(plain_text(a), state.stores) for a in w):
            raise Denied(f"{shown(name)} given a word that names .claude")
        alts = [a.split("=", 1)[1] if a.startswith("-") and "=" in a else a for a in w]
        alts = [a for a in alts if not a.startswith("-") and (UNKNOWN not in a or ".claude" in a.lower())]
        if alts:
            check(alts, state, False, f"{name} given")


def _reader(name: str, args: list, state: State, stdin):
    """A program that reads, unless an option makes it write (``sed -i``, ``sort -o``...); what it prints."""
    flags = flags_of(args)
    _check_each(option_values(args, OUTPUTS.get(name, "").split()), state, False, f"{name} to")
    if name in ("curl", "wget", "zip"):  # curl -O, wget: into the working folder; zip: its first operand
        check([state.cwd + "/" + STAR] if name != "zip" else [a for w in operands(args, "bnitxP")[:1] for a in w],
              state, False, f"{name} into")
    if (name == "sed" and (flags & {"-i", "--in-place"} or any(word_text(a).startswith("-i") for a in args))) or (
            name in ("awk", "gawk") and any(word_text(a) == "inplace" for a in args)):  # after the program
        _check_each(operands(args, "efvF")[0 if flags & {"-e", "-f"} else 1:], state, False, f"{name} in place of")
    elif name in ("awk", "gawk"):
        program = next((word_text(a) for a in operands(args, "fvF")), "")
        if any(c in program for c in (">", "system", "|")) and code_reaches(program, state):
            raise Denied(f"{name} program that can write")
    elif name == "uniq" or (name == "xxd" and "-r" not in flags):
        _check_each(operands(args, "fsw")[1:2], state, False, f"{name} output")
    elif name == "git":
        return git_command(args, state)
    elif name == "mktemp":
        _check_each(operands(args, "p"), state, False, "mktemp in")
    elif name in ("source", "."):
        if stdin and stdin[0] == "text":  # source /dev/stdin <<< 'code': the code runs here
            run_commands(parse(stdin[1]), state.copy(), None)
        if any(UNKNOWN in a for w in args for a in w) and names_store(state.text, state.stores):
            raise Denied(f"{name} of code that cannot be known, on a line that names .claude")  # source <(...)
        any_argument(name, args, state)
    if name == "ls":  # what it prints, for a pipe
        return "paths", [absolute(a, state.cwd) + "/" + STAR for w in operands(args) or [[state.cwd]] for a in w]
    if name in ("echo", "printf"):
        return "text", " ".join(word_text(w) for w in operands(args)).replace("\\n", "\n")
    if name == "cat" and not args:
        return stdin if stdin and stdin[0] == "text" else None
    if name in ("grep", "rg", "ag", "ack", "egrep", "fgrep"):
        roots = [a for w in operands(args, "efABCmdD")[1:] or [[state.cwd]] for a in w]
        return "paths", [absolute(a, state.cwd) + suffix for suffix in ("/" + UNKNOWN, "") for a in roots]
    return "paths", [UNKNOWN]


def _copy(name: str, args: list, state: State) -> None:
    """cp/mv/install/rsync/scp/ln: the destination (and each source's name inside it); mv moves sources away."""
    flags = flags_of(args)
    target = None  # rsync's, scp's and rclone's -t is no target folder
    if name not in ("rsync", "scp", "rclone"):
        target = (option_values(args, ("-t", "--target-directory")) or [None])[0]
    sources = [w for w in operands(args, "tSmogbe" if name != "rsync" else "efeB") if w is not target]
    if target is None:
        if len(sources) == 1 and len(sources[0]) > 1:
            target = sources[0]  # mv a/{x,y}.json: braces make the sources and the target
        elif len(sources) == 1 and name in ("ln", "link"):
            target = [state.cwd]
        elif len(sources) < 2:
            return
        else:
            target, sources = sources[-1], sources[:-1]
    if name in ("mv", "gmv", "git mv") or "--remove-source-files" in flags:
        _check_each(sources, state, True, f"{name} of")
    if name == "link" or (name == "ln" and not flags & {"-s", "--symbolic"}):
        _check_each(sources, state, False, f"hard {name} to")  # a second name for a memory file: a write from outside
    dest = [absolute(a, state.cwd) for a in target]
    check(dest, state, False, f"{name} into")
    if not flags & {"-T", "--no-target-directory"}:
        names = [last_name(a) for w in sources for a in w]
        whole = name in ("mv", "gmv", "rclone", "ditto") or bool(flags & {"-r", "-R", "-a", "--recursive", "--archive"})
        check([d + "/" + n for d in dest for n in names][:MAX_ALTERNATIVES * 2], state, whole, f"{name} into")


def _xargs(name, args, state: State, stdin):
    """xargs/parallel: the command it runs, given what the pipe listed (``-I`` replaced where it says)."""
    i, replace = 0, None
    while i < len(args):
        t = word_text(args[i])
        if not t.startswith("-") or t == "-":
            break
        if t in ("-I", "--replace") and i + 1 < len(args):
            replace = word_text(args[i + 1])
        elif t.startswith("-I") and len(t) > 2:
            replace = t[2:]
        i += 2 if len(t) == 2 and t[1] in "IiLlnPsdEa" else 1
    run_given(args[i:], replace, piped_paths(stdin), state)


def run_given(words: list, marker, given: list, state: State) -> None:
    """Judge the command ``words``, ``marker`` in a word replaced by each of ``given`` (no marker: ``given`` added)."""
    if marker:
        words = [[a.replace(marker, g) for a in w for g in given] if any(marker in a for a in w) else w for w in words]
    elif words:
        words = words + [given]
    if words:
        judge_command(words, [[("s", word_text(w))] for w in words], state, None)


def piped_paths(stdin) -> list:
    """The paths a pipe hands to ``xargs``/``read``: listed paths, or the words of echoed text."""
    if stdin and stdin[0] == "paths":
        return stdin[1] or [UNKNOWN]
    if stdin and stdin[0] == "text" and "$?" not in stdin[1]:
        return stdin[1].split()[:MAX_ALTERNATIVES] or [UNKNOWN]
    return [UNKNOWN]


def _shell(args: list, state: State, stdin) -> None:
    """sh/bash -c CODE (each spelling it can have), or code on stdin: judged as a line; a script: its arguments."""
    code = next(([plain_text(a) for a in args[i + 1]] for i, w in enumerate(args) if word_text(w).startswith("-")
                 and not word_text(w).startswith("--") and "c" in word_text(w) and i + 1 < len(args)), None)
    ops = operands(args, "oO")
    if code is None and (not ops or word_text(ops[0]) == "-" or "-s" in flags_of(args)):
        code = [stdin[1]] if stdin and stdin[0] == "text" else []
    if code is None:
        return any_argument("sh", args, state)
    for text in code:
        if "$?" in text and "claude" in state.text.lower():
            raise Denied("a shell given code that cannot be known, on a line that names .claude")
        run_commands(parse(text), state.copy(), None)
    return None


def _interpreter(lang: str, args: list, state: State, stdin) -> None:
    """python/node/perl...: inline code (``-c``, ``-e``, stdin) judged as the comment above ``_PRINTING`` says; a script
    on its arguments."""
    lead = next((t for t in map(word_text, args) if t not in ("-3", "-S", "-u", "-B", "-E", "-I", "-s")), "")
    if lang == "python" and os.path.basename(lead) == "memory.py":
        return  # the team-memory CLI (python3 -S .../memory.py, py -3 .../memory.py): the sanctioned way to write
    code, i = None, 0
    inplace = lang in ("perl", "ruby") and any(word_text(a).startswith("-") and not word_text(a).startswith("--")
                                                and "i" in word_text(a)[1:].split("e")[0] for a in args)
    while i < len(args):
        t = word_text(args[i])
        if t in CODE_OPTIONS or (lang in ("perl", "ruby") and t[:1] == "-" and t[1:].isalnum() and t.endswith("e")):
            if i + 1 < len(args):
                code = (code or "") + "\n" + word_text(args[i + 1])
                i += 1
        elif t == "-m" and lang == "python" and i + 1 < len(args):
            module = word_text(args[i + 1])
            if module != "json.tool" or len(operands(args[i + 2:])) > 1:
                any_argument(module, args[i + 2:], state)
            return
        elif t == "eval" and lang in ("deno", "bun") and i == 0 and i + 1 < len(args):
            code, i = word_text(args[i + 1]), i + 1
        elif not t.startswith("-"):
            any_argument(lang, args[i:], state)  # a script file, or the code's own arguments
            if code is None:
                return
            break
        i += 1
    code = code if code is not None else stdin[1] if stdin and stdin[0] == "text" else None
    if inplace:
        _check_each(operands(args), state, False, f"{lang} -i of")
    if not code or not writes(lang, code):
        return
    removes = any(word in code for word in ("rm", "unlink", "remove", "rename", "move", "delete"))
    check(list(dict.fromkeys(m.group("path") for m in re.finditer(_LITERAL, code))), state, removes,
          f"{lang} code writing")
    if code_reaches(code, state):
        raise Denied(f"{lang} code that can write into .claude/memory/")


def _eval(name, args, state: State, stdin):
    run_commands(parse(" ".join(word_text(w) for w in args)), state.copy(), None)


def option_values(args: list, names: list) -> list:
    """Values given to ``names``: ``-o V``, ``-xo V``, ``-oV``, ``-o=V``, ``--output V``, ``--output=V``, ``of=V``."""
    out = []
    for i, w in enumerate(args):
        t = word_text(w)
        for n in names:
            if (t == n or len(n) == 2 and t[:1] == "-" != t[1:2] and t.endswith(n[1])) and i + 1 < len(args):
                out.append(args[i + 1])
            elif t.startswith(n) and t != n:
                cut = len(n) + (t[len(n)] == "=")
                out.append([a[cut:] for a in w])
    return out


def last_name(pattern: str) -> str:
    if pattern.endswith(("/", "/.")) or UNKNOWN in pattern.rsplit("/", 1)[-1]:
        return UNKNOWN  # the folder's content: any names
    return pattern.rstrip("/").rsplit("/", 1)[-1]


def unpack(name, args, state, stdin):
    """tar -x, unzip, 7z x, patch, git apply: anything may land under the folder they write in (``-C``, ``-d``, ``-o``;
    a patch is not read, so given ``-d`` any folder); tar otherwise writes its ``-f``."""
    first, flags = word_text(args[0]) if args else "", flags_of(args)
    mode = "" if first.startswith("-") else first
    if name in ("tar", "bsdtar", "gtar") and not ("x" in mode or flags & {"-x", "--extract", "--get"}):
        return _check_each(option_values(args, ("-f", "--file")), state, False, f"{name} -f")  # tar -t too
    if (name == "unzip" and flags & {"-l", "-t", "-v", "-Z", "-p"}) or (name == "7z" and mode[:1] not in ("x", "e")):
        return None
    if name in ("patch", "git apply", "git am"):
        _check_each(operands(args, "d"), state, False, f"{name} of")
        moved = any(t.startswith("--directory") or (t[:1] == "-" != t[1:2] and "d" in t) for t in map(word_text, args))
        folders = [UNKNOWN if moved else state.cwd]
    elif name == "7z":  # -oDIR only (-so: to stdout)
        folders = ([[a[2:] for a in w] for w in args if word_text(w).startswith("-o")] or [[state.cwd]])[0]
    else:
        folders = (option_values(args, ("-d",) if name == "unzip" else ("-C", "--directory")) or [[state.cwd]])[0]
    return check([absolute(a, state.cwd) + "/" + UNKNOWN for a in folders], state, False, f"{name} writing into")


def git_command(args: list, state):
    """git: its commands that write the paths they are given (checkout, restore, rm, mv, clean, stash, apply)."""
    i = 0
    while i < len(args) and word_text(args[i]).startswith("-"):
        t = word_text(args[i])
        if t == "-C" and i + 1 < len(args):
            state = state.copy()
            state.cwd = absolute(args[i + 1][0], state.cwd)
        elif t in ("-c", "--config-env") and any(names_store(word_text(w), state.stores) for w in args):
            raise Denied("git given a setting on a line that names .claude")  # alias.x='!rm ...', core.pager
        i += 2 if t in ("-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace") else 1
    if i >= len(args) or word_text(args[i]) in _GIT_READ_ONLY_WITH_PATHS:
        return "paths", [UNKNOWN]  # what it prints, for a pipe
    sub, rest = word_text(args[i]), args[i + 1:]
    if sub in ("apply", "am"):  # even --check or --cached: read plainly
        unpack("git " + sub, rest, state, None)
    elif sub == "mv" and len(operands(rest)) >= 2:
        _copy("git mv", rest, state)
    elif sub in ("checkout", "restore", "rm", "mv", "clean", "stash"):  # a pathspec read plainly (clean: the folder)
        flags, ops = flags_of(rest), operands(rest, "bBsme")
        if {"rm": {"--cached"}, "clean": {"-n", "--dry-run"}}.get(sub, set()) & flags or (
                sub == "restore" and flags & {"--staged", "-S"} and not flags & {"--worktree", "-W"}):
            return None  # nothing in the work tree changes
        if sub == "stash" and not ("--" in map(word_text, rest) or ops and word_text(ops[0]) == "push"):
            return None  # the whole tree: allowed
        ops = [w for w in ops if sub != "stash" or word_text(w) not in ("push", "save")]
        check([a for w in ops or ([[state.cwd]] if sub == "clean" else []) for a in w], state, True, f"git {sub} of")
    return None


def find_targets(name, args: list, state, stdin):
    """find: what it can match (its roots, narrowed by ``-name`` alone), checked against what its actions write."""
    i = 0
    while i < len(args) and word_text(args[i]) in ("-H", "-L", "-P"):
        i += 1
    roots = []
    while i < len(args) and not word_text(args[i]).startswith(("-", "(", "!", ")")):
        roots.append(args[i])
        i += 1
    names, wide, execs, branches = [], False, [], 1
    while i < len(args):
        t, value = word_text(args[i]), word_text(args[i + 1]) if i + 1 < len(args) else ""
        wide |= t in ("!", "-not", "-path", "-ipath", "-wholename", "-iwholename")  # then any name under the roots
        branches += t in ("-o", "-or", ",")
        if t in ("-name", "-iname"):
            names.append(value)
            i += 1
        elif t in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            check(args[i + 1] if i + 1 < len(args) else [UNKNOWN], state, False, f"find {t}")
        elif t == "-delete":
            execs.append(None)
        elif t in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and word_text(args[j]) not in (";", "+"):
                j += 1
            execs.append(args[i + 1:j])
            i = j
        elif t[:1] == "-" and value and not value.startswith(("-", "(", ")", "!", ",")):
            i += 1  # an option's value (read plainly: any word that is no option, bracket or operator)
        i += 1
    tails = ["", "/" + UNKNOWN] if wide or len(names) < branches else [  # -name A -o -name B: either
        middle + n.replace("*", STAR).replace("?", QUEST) for n in names for middle in ("/", "/" + UNKNOWN + "/")]
    matched = [absolute(r, state.cwd) + tail for root in roots or [["."]] for r in root for tail in tails]
    for action in execs:
        if action is None:
            check(matched, state, False, "find -delete of")
        else:
            run_given(action, "{}", matched, state)
    return "paths", matched


HANDLERS = {"tar": unpack, "bsdtar": unpack, "gtar": unpack, "unzip": unpack, "7z": unpack, "patch": unpack,
             "find": find_targets, "xargs": _xargs, "parallel": _xargs, "eval": _eval}


# Inline code handed to an interpreter (``python -c``, ``node -e``, a here-document...): ``writes``: it calls
# something that changes a file or runs a program (printing and ``str.replace(a, b)`` do not count); ``code_reaches``:
# it names ``.claude`` or a store, builds names a reader cannot follow (``chr(``, base64, escapes), or runs inside a
# store, or above one and walks folders or names ``memory``. Code that does both is denied, and so is code that writes
# with a quoted path that reaches a store (a link into one included).
_PRINTING = (r"(sys\.)?(stdout|stderr)\.write\s*\(|process\.(stdout|stderr)\.write\s*\(|"
             r"\$stdout\.write|STDOUT\.write|\bprint\s*\(")
_WRITES = {
    "python": r"""\bopen\s*\(([^,()]|\([^()]*\))*,\s*(['"][^'"]*[wax+]|(?!encoding|errors|newline)[A-Za-z_])|"""
              r"""\.open\s*\(\s*(['"][^'"]*[wax+]|[A-Za-z_])|mode\s*=\s*(['"][^'"]*[wax+]|[A-Za-z_])|"""
              r"""\.write_(text|bytes)\s*\(|"""
              r"""\.(unlink|rmdir|mkdir|touch|rename|symlink_to|hardlink_to|link_to|chmod|lchmod)\s*\(|"""
              r"""\bos\.(remove|unlink|rename|renames|replace|rmdir|removedirs|makedirs|mkdir|link|symlink|"""
              r"""truncate|open|system|popen|exec\w*|spawn\w*|fdopen|chmod|utime|write)\b|\bshutil\b|"""
              r"""\bsubprocess\b|\bexec\s*\(|\beval\s*\(|\bcompile\s*\(|__import__|\bimportlib\b|\bfileinput\b|"""
              r"""\.replace\s*\(\s*[^,()]*\)|\bpty\b|\bctypes\b|\bgetattr\s*\(""",
}
_GENERIC = (r"""write|remove|unlink|delete|rename|move|copy|mkdir|rmdir|truncate|system|exec|eval|spawn|popen|shell|"""
            r"""append|\brm|\bcp\w*\s*\(|child_process|function\s*\(|require\s*\(\s*[^'"]|import\s*\(|deno|bun\.|"""
            r"""open\s*\(|\.open\b|link|chmod|chown|utime|touch|rmtree|fileutils|pathname|\bsend\b|\bqx\b|%x|`|\$\^I|"""
            r"""-i\b|put_contents|passthru|assert|tempnam|(?<![=-])>""")  # node, ruby, perl, php, any other (not => ->)
_OBFUSCATED = (r"\bchr\s*\(|fromCharCode|b64decode|base64|atob\s*\(|unhexlify|fromhex|\\x[0-9a-f]{2}|"
               r"\\[0-7]{3}|\\u[0-9a-f]{4}|\[::-1\]|rot13|codecs|\bpack\s*\(|\bjoin\s*\(|reverse\s*\(")
_WALKS = r"\bwalk\b|rglob|listdir|scandir|readdir|opendir|\bDir\[|\*\*|\bFind\b|\.iterdir"
_LITERAL = r"""(?P<q>['"])(?P<path>[^'"\\$`{}]+)(?P=q)"""  # a quoted path: one the code writes is checked as well


def writes(lang: str, code: str) -> bool:
    """Can this code create, change, move or delete a file (or run another program that could)?"""
    pattern = _WRITES.get(lang, _GENERIC)
    return re.search(pattern, re.sub(_PRINTING, "", code, flags=re.I), re.I) is not None


def code_reaches(code: str, state: State) -> bool:
    """Can inline code reach a store (see the comment above ``_PRINTING``)?"""
    lowered = code.lower()
    if "claude" in lowered or any(s.lower() in lowered for s in state.stores) or re.search(_OBFUSCATED, code, re.I):
        return True
    if reach(state.cwd, state.stores, False):
        return True
    return reach(state.cwd, state.stores, True) and ("memory" in lowered or re.search(_WALKS, code, re.I) is not None)
