"""What each kind of program can write, for ``shelljudge``: one function per family.

``command(name, words, raw, state, stdin)`` raises ``shelljudge.Denied`` when the
command can change a store and returns what it prints for a following pipe:
``("paths", patterns)`` when it lists paths (``find``, ``ls``, ``echo``), ``("text",
body, word)`` for text that an interpreter on the other end would run, else None.
"""
from __future__ import annotations

import os

from . import shelljudge as sj
from .shellpaths import absolute, is_plain
from .shellscan import STAR, UNKNOWN, parse

MAX_PATCH_BYTES = 4 * 1024 * 1024
_GIT_READ_ONLY_WITH_PATHS = {"add", "diff", "log", "show", "blame", "grep", "ls-files", "status", "commit",
                             "check-ignore", "annotate", "difftool", "shortlog", "whatchanged", "ls-tree"}


def command(name: str, words: list, raw: list, state, stdin):
    args = words[1:]
    if name in ("cd", "pushd", "popd"):
        return _cd(name, args, state)
    if name in ("read", "mapfile", "readarray"):
        for w in sj._operands(args, "adnNptu"):
            state.vars[sj._text(w)] = _given(stdin)
        return None
    if name in ("memory.py",) or _is_cli(name, args):
        return None
    handler = _HANDLERS.get(name)
    if handler is not None:
        return handler(name, args, state, stdin)
    base = name.rstrip("0123456789.")
    if base in sj.SHELLS:
        return _shell(args, state, stdin)
    if base in sj.INTERPRETERS:
        return _interpreter(base, args, state, stdin)
    if name in sj.READERS:
        return _reader(name, args, state, stdin)
    if name in sj.REMOVERS:
        recursive = bool(sj._flags(args) & {"-r", "-R", "--recursive", "-d"} - {"-d"}) or name == "trash"
        for w in sj._operands(args):
            sj._check(w, state, recursive or name in ("trash", "trash-put", "gio"), f"{name} of")
        return None
    if name in sj.COPIERS:
        return _copy(name, args, state)
    if name in sj.META:
        recursive = bool(sj._flags(args) & sj.RECURSIVE)
        for w in sj._operands(args, "sgmoSbCl" if name in ("truncate", "install", "split") else ""):
            sj._check(w, state, recursive, f"{name} of")
        return None
    _any_argument(name, args, state)
    return None


def _is_cli(name: str, args: list) -> bool:
    """The team-memory CLI itself (``python3 .../memory.py ...``): the sanctioned way to write."""
    return name.startswith("python") and bool(args) and os.path.basename(sj._text(args[0])) == "memory.py"


def _any_argument(name: str, args: list, state) -> None:
    """An unknown program: denied only if an argument (or an option's value) names a store or inside one."""
    for w in args:
        alts = [a.split("=", 1)[1] if a.startswith("-") and "=" in a else a for a in w]
        if all(a.startswith("-") for a in alts):
            continue
        sj._check(alts, state, False, f"{name} given")


def _reader(name: str, args: list, state, stdin):
    flags = sj._flags(args)
    if name == "sed" and (flags & {"-i", "--in-place"} or any(sj._text(a).startswith("-i") for a in args)):
        for w in sj._operands(args, "ef")[1:] if not flags & {"-e", "-f"} else sj._operands(args, "ef"):
            sj._check(w, state, False, "sed -i of")
    elif name in ("awk", "gawk") and any(sj._text(a) == "inplace" for a in args):
        for w in sj._operands(args, "fvF")[1:]:
            sj._check(w, state, False, f"{name} -i inplace of")
    elif name in ("awk", "gawk"):
        program = next((sj._text(a) for a in sj._operands(args, "fvF")), "")
        if any(c in program for c in (">", "system", "|")) and sj.code_reaches(program, state):
            raise sj.Denied(f"{name} program that can write")
    elif name == "sort" and flags & {"-o", "--output"}:
        _option_values(args, ("-o", "--output"), state, "sort -o")
    elif name == "uniq" or (name == "xxd" and "-r" not in flags):
        ops = sj._operands(args, "fsw")
        if len(ops) > 1:
            sj._check(ops[1], state, False, f"{name} output")
    elif name == "base64":
        _option_values(args, ("-o", "--output"), state, "base64 -o")
    elif name == "git":
        return _git(args, state)
    elif name == "mktemp":
        ops = sj._operands(args, "p")
        for w in ops:
            sj._check(w, state, False, "mktemp in")
        _option_values(args, ("-p", "--tmpdir"), state, "mktemp in")
    elif name == "source":
        _any_argument(name, args, state)
    if name == "ls":
        return ("paths", [absolute(a, state.cwd) + "/" + STAR for w in sj._operands(args) for a in w] or
                [state.cwd + "/" + STAR])
    if name in ("echo", "printf"):
        return ("text", " ".join(sj._text(w) for w in sj._operands(args)).replace("\\n", "\n"))
    if name == "cat" and not args:
        return stdin if stdin and stdin[0] == "text" else None
    if name in ("grep", "rg", "ag", "ack", "egrep", "fgrep"):
        roots = sj._operands(args, "efABCmdD")[1:] or [[state.cwd]]
        return ("paths", [absolute(a, state.cwd) + "/" + UNKNOWN for w in roots for a in w] +
                [absolute(a, state.cwd) for w in roots for a in w])
    return ("paths", [UNKNOWN])


def _option_values(args: list, names: tuple, state, what: str) -> None:
    for i, w in enumerate(args):
        t = sj._text(w)
        if t in names and i + 1 < len(args):
            sj._check(args[i + 1], state, False, what)
        elif any(t.startswith(n + "=") for n in names if n.startswith("--")):
            sj._check([a.split("=", 1)[1] for a in w], state, False, what)
        elif len(names[0]) == 2 and t.startswith(names[0]) and len(t) > 2 and not t.startswith("--"):
            sj._check([a[2:] for a in w], state, False, what)


def _option_word(args: list, short: str, long: str):
    """The value of ``-X VALUE``, ``--long VALUE`` or ``--long=VALUE`` (a word's alternatives), else None."""
    for i, w in enumerate(args):
        t = sj._text(w)
        if t in (short, long) and i + 1 < len(args):
            return args[i + 1]
        if t.startswith(long + "="):
            return [a.split("=", 1)[1] for a in w]
    return None


def _cd(name: str, args: list, state):
    ops = sj._operands(args)
    if name == "popd" or (ops and sj._text(ops[0]) == "-"):
        state.cwd = UNKNOWN
    elif not ops:
        state.cwd = os.path.expanduser("~")
    else:
        target = ops[0]
        state.cwd = absolute(target[0], state.cwd) if len(target) == 1 else UNKNOWN
    return None


def _copy(name: str, args: list, state):
    """cp/mv/install/rsync/scp/ln: the destination (and each source's name inside it); mv moves sources away."""
    flags = sj._flags(args)
    target = _option_word(args, "-t", "--target-directory")
    ops = [w for w in sj._operands(args, "tSmogbe" if name != "rsync" else "efeB") if w is not target]
    if target is None:
        if len(ops) == 1 and name in ("ln", "link"):
            target, sources = [state.cwd], ops
        elif len(ops) < 2:
            return None
        else:
            target, sources = ops[-1], ops[:-1]
    else:
        sources = ops
    if name in ("scp", "rsync", "rclone") and any(":" in a.split("/", 1)[0] and not a.startswith("/") for a in target):
        return None  # host:path: written on another machine
    if name in ("mv", "gmv") or "--remove-source-files" in flags:
        for w in sources:
            sj._check(w, state, True, f"{name} of")
    if name == "link" or (name == "ln" and not flags & {"-s", "--symbolic"}):
        for w in sources:
            sj._check(w, state, False, f"hard {name} to")  # a second name for a memory file: written from outside
    dest = [absolute(a, state.cwd) for a in target]
    sj._check(dest, state, False, f"{name} into")
    if "-T" in flags or "--no-target-directory" in flags:
        return None
    names = [_last_name(a) for w in sources for a in w]
    whole = name in ("mv", "gmv", "rclone", "ditto") or bool(flags & {"-r", "-R", "-a", "--recursive", "--archive"})
    sj._check([d + "/" + n for d in dest for n in names][:sj.MAX_ALTERNATIVES * 2], state, whole, f"{name} into")
    return None


def _last_name(pattern: str) -> str:
    if pattern.endswith(("/", "/.")) or UNKNOWN in pattern.rsplit("/", 1)[-1]:
        return UNKNOWN  # the folder's content: any names
    return pattern.rstrip("/").rsplit("/", 1)[-1]


def _zip(name, args, state, stdin):
    """zip: only the archive (the first operand) is written; the inputs are read."""
    ops = sj._operands(args, "bnitxP")
    if ops:
        sj._check(ops[0], state, False, f"{name} archive")
    return None


def _dd(name, args, state, stdin):
    for w in args:
        if sj._text(w).startswith("of="):
            sj._check([a[3:] for a in w], state, False, "dd of=")
    return None


def _download(name, args, state, stdin):
    _option_values(args, ("-o", "--output") if name == "curl" else ("-O", "--output-document"), state, f"{name} to")
    if name == "wget":
        _option_values(args, ("-P", "--directory-prefix"), state, "wget into")
    flags = sj._flags(args)
    if (name == "curl" and flags & {"-O", "--remote-name"}) or (name == "wget" and "-O" not in flags):
        sj._check([state.cwd + "/" + STAR], state, False, f"{name} into")
    return None


def _archive(name, args, state, stdin):
    first = sj._text(args[0]) if args else ""
    flags = sj._flags(args)
    if name in ("tar", "bsdtar", "gtar"):
        extract = (not first.startswith("-") and "x" in first) or flags & {"-x", "--extract", "--get"}
        if not extract:
            _option_values(args, ("-f", "--file"), state, f"{name} -f")
            return None
        dest = _option_word(args, "-C", "--directory") or [state.cwd]
    elif name == "unzip":
        if flags & {"-l", "-t", "-v", "-Z", "-p"}:
            return None
        dest = next((args[i + 1] for i, w in enumerate(args) if sj._text(w) == "-d" and i + 1 < len(args)),
                    [state.cwd])
    else:  # 7z x -oDIR
        dest = next(([a[2:] for a in w] for w in args if sj._text(w).startswith("-o")), [state.cwd])
        if not first.startswith(("x", "e")):
            return None
    sj._check([absolute(a, state.cwd) + "/" + UNKNOWN for a in dest], state, False, f"{name} extracting into")
    return None


def _patch(name, args, state, stdin):
    """patch / git apply: what the patch names (read, bounded) decides; unreadable: where it applies."""
    files = [w for w in sj._operands(args, "pidDoBrFzVYg" if name == "patch" else "pCS")]
    if name == "patch":
        _option_values(args, ("-i", "--input"), state, "patch")
        patches = [args[i + 1] for i, w in enumerate(args) if sj._text(w) in ("-i", "--input") and i + 1 < len(args)]
        for w in files:
            sj._check(w, state, False, "patch of")
        if stdin and stdin[0] == "file":
            patches.append(stdin[1])
    else:
        patches = files
    texts = [_read_patch(w, state) for w in patches] or [None]
    if any(t is None for t in texts):
        sj._check([state.cwd + "/" + UNKNOWN], state, False, f"{name} (a patch that cannot be read) in")
    elif any(sj.code_reaches(t, state) for t in texts):
        raise sj.Denied(f"{name} of a patch that changes .claude/memory/")
    return None


def _read_patch(word: list, state):
    if len(word) != 1 or not is_plain(word[0]) or sj._text(word) == "-":
        return None
    path = absolute(word[0], state.cwd)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        try:
            import stat
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return os.read(fd, MAX_PATCH_BYTES).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        return None


def _git(args: list, state):
    i = 0
    while i < len(args):
        t = sj._text(args[i])
        if t == "-C" and i + 1 < len(args):
            state = state.copy()
            state.cwd = absolute(args[i + 1][0], state.cwd)
            i += 2
        elif t in ("-c", "--git-dir", "--work-tree", "--namespace"):
            i += 2
        elif t.startswith("-"):
            i += 1
        else:
            break
    if i >= len(args):
        return ("paths", [UNKNOWN])
    sub, rest = sj._text(args[i]), args[i + 1:]
    flags = sj._flags(rest)
    if sub in _GIT_READ_ONLY_WITH_PATHS:
        return ("paths", [state.cwd + "/" + UNKNOWN])
    if sub == "apply" or sub == "am":
        if not flags & {"--cached", "--check", "--stat", "--numstat", "--summary"} or "--index" in flags:
            return _patch("git " + sub, rest, state, None)
        return None
    if sub == "restore" and ("--staged" in flags or "-S" in flags) and not flags & {"--worktree", "-W"}:
        return None
    if sub == "rm" and "--cached" in flags:
        return None
    if sub == "clean":
        if flags & {"-n", "--dry-run"}:
            return None
        paths = sj._operands(rest, "e") or [[state.cwd]]
        for w in paths:
            sj._check(w, state, True, "git clean of")
        return None
    if sub == "stash":
        ops = sj._operands(rest, "m")
        if "--" not in [sj._text(w) for w in rest] and not (ops and sj._text(ops[0]) == "push" and ops[1:]):
            return None  # the whole tree: how teams move work around; PostToolUse reports what it removes
        paths = [w for w in ops if sj._text(w) not in ("push", "save")]
        for w in paths:
            sj._check(w, state, True, "git stash of")
        return None
    if sub in ("checkout", "restore", "rm", "mv"):
        takes = "bBsm" if sub != "mv" else ""
        ops = sj._operands(rest, takes)
        if sub == "mv" and len(ops) >= 2:
            for w in ops[:-1]:
                sj._check(w, state, True, "git mv of")
            dest = [absolute(a, state.cwd) for a in ops[-1]]
            names = [_last_name(a) for w in ops[:-1] for a in w]
            sj._check(dest + [d + "/" + n for d in dest for n in names], state, False, "git mv into")
            return None
        for w in ops:
            sj._check(w, state, True, f"git {sub} of")
        return None
    return None


def _find(name, args, state, stdin):
    """find: the paths it can match (roots, -name/-path, exclusions) against -delete/-exec/-fprint."""
    from .shellfind import find_targets
    return find_targets(args, state)


def _xargs(name, args, state, stdin):
    i, replace = 0, None
    takes = "IiLlnPsdEa"
    while i < len(args):
        t = sj._text(args[i])
        if not t.startswith("-") or t == "-":
            break
        if t in ("-I", "--replace") and i + 1 < len(args):
            replace = sj._text(args[i + 1])
        elif t.startswith("-I") and len(t) > 2:
            replace = t[2:]
        if len(t) == 2 and t[1] in takes:
            i += 1
        i += 1
    inner = args[i:]
    if not inner:
        return None
    given = _given(stdin)
    if replace:
        inner = [[a.replace(replace, g) for a in w for g in given] if any(replace in a for a in w) else w
                 for w in inner]
    else:
        inner = inner + [given]
    sj._command(inner, [[("s", sj._text(w))] for w in inner], state, None)
    return None


def _given(stdin) -> list:
    """The paths a pipe hands to ``xargs``/``read``: listed paths, or the words of echoed text."""
    if stdin and stdin[0] == "paths":
        return stdin[1] or [UNKNOWN]
    if stdin and stdin[0] == "text" and "$?" not in stdin[1]:
        return stdin[1].split()[: sj.MAX_ALTERNATIVES] or [UNKNOWN]
    return [UNKNOWN]


def _shell(args: list, state, stdin):
    ops = sj._operands(args, "oO")
    code = None
    for i, w in enumerate(args):
        t = sj._text(w)
        if t.startswith("-") and not t.startswith("--") and "c" in t and i + 1 < len(args):
            code = [sj.plain_text(a) for a in args[i + 1]]
            break
    if code is None and (not ops or sj._text(ops[0]) == "-" or "-s" in sj._flags(args)):
        code = [stdin[1]] if stdin and stdin[0] == "text" else None
        if code is None:
            return None
    if code is None:
        _any_argument("sh", args, state)
        return None
    for text in code:  # each spelling the code can have (xargs -I, braces)
        if "$?" in text and "claude" in state.text.lower():
            raise sj.Denied("a shell given code that cannot be known, on a line that names .claude")
        sj._run(parse(text), state.copy(), None)
    return None


def _interpreter(lang: str, args: list, state, stdin):
    code, i = None, 0
    inplace = lang in ("perl", "ruby") and any(sj._text(a).startswith("-") and "i" in sj._text(a)[1:].split("e")[0]
                                                and not sj._text(a).startswith("--") for a in args)
    while i < len(args):
        t = sj._text(args[i])
        if t in ("-c", "-e", "-E", "--eval", "-r", "-p", "--print", "-pe", "-ne", "-le", "-lne", "-lpe", "-pie",
                 "-i.bak") or (lang in ("perl", "ruby") and t[:1] == "-" and t[1:].isalnum() and t.endswith("e")):
            if i + 1 < len(args):
                code = (code or "") + "\n" + sj._text(args[i + 1])
                i += 1
        elif t == "-m" and lang == "python" and i + 1 < len(args):
            module = sj._text(args[i + 1])
            if module == "json.tool" and len(sj._operands(args[i + 2:])) <= 1:
                return None
            _any_argument(module, args[i + 2:], state)
            return None
        elif t == "eval" and lang in ("deno", "bun") and i == 0 and i + 1 < len(args):
            code = sj._text(args[i + 1])
            i += 1
        elif not t.startswith("-"):
            _any_argument(lang, args[i:], state)  # a script file, or the code's own arguments
            if code is None:
                return None
            break
        i += 1
    if code is None:
        code = stdin[1] if stdin and stdin[0] == "text" else None
    if inplace:
        for w in sj._operands(args)[1:] if code is None else [w for w in sj._operands(args)
                                                              if sj._text(w) not in code]:
            sj._check(w, state, False, f"{lang} -i of")
    if code:
        _code(lang, code, state)
    return None


def _code(lang: str, code: str, state) -> None:
    """Inline code: judged on the quoted paths it writes when all are known, else on whether it can name a store."""
    from .codescan import literal_targets, writes
    if not writes(lang, code):
        return
    targets = literal_targets(lang, code)
    if targets is not None:
        for path in targets:
            sj._check([path], state, False, f"{lang} code writing")
    elif sj.code_reaches(code, state):
        raise sj.Denied(f"{lang} code that can write into .claude/memory/")


def _eval(name, args, state, stdin):
    text = " ".join(sj._text(w) for w in args)
    if "$?" in text and "claude" not in state.text.lower():
        return None  # eval "$(ssh-agent)": an unknown string that nothing ties to the store
    sj._run(parse(text), state.copy(), None)
    return None


_HANDLERS = {"dd": _dd, "curl": _download, "wget": _download, "tar": _archive, "bsdtar": _archive,
             "gtar": _archive, "unzip": _archive, "7z": _archive, "patch": _patch, "find": _find,
             "xargs": _xargs, "parallel": _xargs, "eval": _eval, "zip": _zip}
