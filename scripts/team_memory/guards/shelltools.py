"""Programs that write where an option, an archive or an expression says, for ``shelljudge``: dd, curl/wget,
tar/unzip/7z/zip, patch and ``git apply``, git's commands that take paths, and ``find``.

Whole-tree git operations (``checkout BRANCH``, ``pull``, ``reset --hard``, a plain ``stash``) are allowed: they are
how a team's memories move, and PostToolUse reports what they remove. A pathspec that reaches a store is denied.
``find``: roots, ``-name``/``-path`` and ``-maxdepth`` narrow what it matches, ``-prune`` and ``-not -path`` can
leave a store out, ``-o`` keeps every path; ``-delete``, ``-exec CMD {}`` and ``-fprint`` act on it.
"""
from __future__ import annotations

import os

from . import shellpaths as sj
from ..base.safefs import open_read
from .shellpaths import absolute, fullmatch, is_plain, names_store
from .shellscan import QUEST, STAR, UNKNOWN

MAX_PATCH_BYTES = 4 * 1024 * 1024
_GIT_READ_ONLY_WITH_PATHS = {"add", "diff", "log", "show", "blame", "grep", "ls-files", "status", "commit",
                             "check-ignore", "annotate", "difftool", "shortlog", "whatchanged", "ls-tree"}


def option_values(args: list, names: tuple, state, what: str) -> None:
    for i, w in enumerate(args):
        t = sj.word_text(w)
        if t in names and i + 1 < len(args):
            sj.check(args[i + 1], state, False, what)
        elif any(t.startswith(n + "=") for n in names if n.startswith("--")):
            sj.check([a.split("=", 1)[1] for a in w], state, False, what)
        elif len(names[0]) == 2 and t.startswith(names[0]) and len(t) > 2 and not t.startswith("--"):
            sj.check([a[2:] for a in w], state, False, what)


def option_word(args: list, short: str, long: str):
    """The value of ``-X VALUE``, ``--long VALUE`` or ``--long=VALUE`` (a word's alternatives), else None."""
    for i, w in enumerate(args):
        t = sj.word_text(w)
        if t in (short, long) and i + 1 < len(args):
            return args[i + 1]
        if t.startswith(long + "="):
            return [a.split("=", 1)[1] for a in w]
    return None


def last_name(pattern: str) -> str:
    if pattern.endswith(("/", "/.")) or UNKNOWN in pattern.rsplit("/", 1)[-1]:
        return UNKNOWN  # the folder's content: any names
    return pattern.rstrip("/").rsplit("/", 1)[-1]


def zip_output(name, args, state, stdin):
    """zip: only the archive (the first operand) is written; the inputs are read."""
    ops = sj.operands(args, "bnitxP")
    if ops:
        sj.check(ops[0], state, False, f"{name} archive")
    return None


def dd_output(name, args, state, stdin):
    for w in args:
        if sj.word_text(w).startswith("of="):
            sj.check([a[3:] for a in w], state, False, "dd of=")
    return None


def download(name, args, state, stdin):
    option_values(args, ("-o", "--output") if name == "curl" else ("-O", "--output-document"), state, f"{name} to")
    if name == "wget":
        option_values(args, ("-P", "--directory-prefix"), state, "wget into")
    flags = sj.flags_of(args)
    if (name == "curl" and flags & {"-O", "--remote-name"}) or (name == "wget" and "-O" not in flags):
        sj.check([state.cwd + "/" + STAR], state, False, f"{name} into")
    return None


def extract_archive(name, args, state, stdin):
    first = sj.word_text(args[0]) if args else ""
    flags = sj.flags_of(args)
    if name in ("tar", "bsdtar", "gtar"):
        extract = (not first.startswith("-") and "x" in first) or flags & {"-x", "--extract", "--get"}
        if not extract:
            option_values(args, ("-f", "--file"), state, f"{name} -f")
            return None
        dest = option_word(args, "-C", "--directory") or [state.cwd]
    elif name == "unzip":
        if flags & {"-l", "-t", "-v", "-Z", "-p"}:
            return None
        dest = next((args[i + 1] for i, w in enumerate(args) if sj.word_text(w) == "-d" and i + 1 < len(args)),
                    [state.cwd])
    else:  # 7z x -oDIR
        dest = next(([a[2:] for a in w] for w in args if sj.word_text(w).startswith("-o")), [state.cwd])
        if not first.startswith(("x", "e")):
            return None
    sj.check([absolute(a, state.cwd) + "/" + UNKNOWN for a in dest], state, False, f"{name} extracting into")
    return None


def apply_patch(name, args, state, stdin):
    """patch / git apply: what the patch names (read, bounded) decides; unreadable: where it applies."""
    files = [w for w in sj.operands(args, "pidDoBrFzVYg" if name == "patch" else "pCS")]
    if name == "patch":
        option_values(args, ("-i", "--input"), state, "patch")
        patches = [args[i + 1] for i, w in enumerate(args) if sj.word_text(w) in ("-i", "--input") and i + 1 < len(args)]
        for w in files:
            sj.check(w, state, False, "patch of")
        if stdin and stdin[0] == "file":
            patches.append(stdin[1])
    else:
        patches = files
    texts = [_read_patch(w, state) for w in patches] or [None]
    if any(t is None for t in texts):
        sj.check([state.cwd + "/" + UNKNOWN], state, False, f"{name} (a patch that cannot be read) in")
    elif any(sj.code_reaches(t, state) for t in texts):
        raise sj.Denied(f"{name} of a patch that changes .claude/memory/")
    return None


def _read_patch(word: list, state):
    if len(word) != 1 or not is_plain(word[0]) or sj.word_text(word) == "-":
        return None
    path = absolute(word[0], state.cwd)
    try:
        fd = open_read(path)  # O_NOFOLLOW, or lstat/fstat where there is none
        try:
            import stat
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return os.read(fd, MAX_PATCH_BYTES).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        return None


def git_command(args: list, state):
    i = 0
    while i < len(args):
        t = sj.word_text(args[i])
        if t == "-C" and i + 1 < len(args):
            state = state.copy()
            state.cwd = absolute(args[i + 1][0], state.cwd)
            i += 2
        elif t in ("-c", "--config-env", "--git-dir", "--work-tree", "--namespace"):
            if t in ("-c", "--config-env") and any(names_store(sj.word_text(w), state.stores) for w in args):
                raise sj.Denied("git given a setting on a line that names .claude")  # alias.x='!rm ...', core.pager
            i += 2
        elif t.startswith("-"):
            i += 1
        else:
            break
    if i >= len(args):
        return ("paths", [UNKNOWN])
    sub, rest = sj.word_text(args[i]), args[i + 1:]
    flags = sj.flags_of(rest)
    if sub in _GIT_READ_ONLY_WITH_PATHS:
        return ("paths", [state.cwd + "/" + UNKNOWN])
    if sub == "apply" or sub == "am":
        if not flags & {"--cached", "--check", "--stat", "--numstat", "--summary"} or "--index" in flags:
            return apply_patch("git " + sub, rest, state, None)
        return None
    if sub == "restore" and ("--staged" in flags or "-S" in flags) and not flags & {"--worktree", "-W"}:
        return None
    if sub == "rm" and "--cached" in flags:
        return None
    if sub == "clean":
        if flags & {"-n", "--dry-run"}:
            return None
        excluded = [sj.word_text(rest[i + 1]).strip("/") for i, w in enumerate(rest[:-1]) if sj.word_text(w) == "-e"]
        excluded += [sj.word_text(w).split("=", 1)[1].strip("/") for w in rest if sj.word_text(w).startswith("--exclude=")]
        if any(e.lower() in (".claude", "memory", ".claude/memory", "/.claude") for e in excluded):
            return None  # git clean -e .claude: the store is left alone
        paths = sj.operands(rest, "e") or [[state.cwd]]
        for w in paths:
            sj.check(w, state, True, "git clean of")
        return None
    if sub == "stash":
        ops = sj.operands(rest, "m")
        if "--" not in [sj.word_text(w) for w in rest] and not (ops and sj.word_text(ops[0]) == "push" and ops[1:]):
            return None  # the whole tree: how teams move work around; PostToolUse reports what it removes
        paths = [w for w in ops if sj.word_text(w) not in ("push", "save")]
        for w in paths:
            sj.check(w, state, True, "git stash of")
        return None
    if sub in ("checkout", "restore", "rm", "mv"):
        takes = "bBsm" if sub != "mv" else ""
        ops = sj.operands(rest, takes)
        if sub == "mv" and len(ops) >= 2:
            for w in ops[:-1]:
                sj.check(w, state, True, "git mv of")
            dest = [absolute(a, state.cwd) for a in ops[-1]]
            names = [last_name(a) for w in ops[:-1] for a in w]
            sj.check(dest + [d + "/" + n for d in dest for n in names], state, False, "git mv into")
            return None
        for w in ops:
            sj.check(w, state, True, f"git {sub} of")
        return None
    return None


_NAMES = {"-name", "-iname"}
_PATHS = {"-path", "-ipath", "-wholename", "-iwholename"}
_VALUED = {"-maxdepth", "-mindepth", "-type", "-xtype", "-newer", "-mtime", "-mmin", "-atime", "-amin", "-ctime",
           "-cmin", "-size", "-user", "-group", "-perm", "-regex", "-iregex", "-regextype", "-uid", "-gid",
           "-links", "-inum", "-samefile", "-lname", "-ilname", "-used", "-fstype", "-context", "-printf",
           "-newermt", "-anewer", "-cnewer", "-files0-from"}
_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
_FPRINT = {"-fprint", "-fprint0", "-fls"}


def _glob(text: str, slash_too: bool) -> str:
    return text.replace("*", UNKNOWN if slash_too else STAR).replace("?", QUEST)


def find_targets(name, args: list, state, stdin):
    """find: the paths it can match (roots, -name/-path, exclusions), checked against what its actions write."""
    i = 0
    while i < len(args) and sj.word_text(args[i]) in ("-H", "-L", "-P"):
        i += 1
    roots = []
    while i < len(args) and not sj.word_text(args[i]).startswith(("-", "(", "!", ")")):
        roots.append(args[i])
        i += 1
    roots = roots or [["."]]
    pos_names, pos_paths, excluded, execs = [], [], [], []
    has_or = negate = False
    branches = 1
    maxdepth, previous = None, ""
    while i < len(args):
        t = sj.word_text(args[i])
        value = sj.word_text(args[i + 1]) if i + 1 < len(args) else ""
        if t in ("-o", "-or", ","):
            if previous == "-prune" and (pos_paths or pos_names):
                excluded.append((pos_paths or pos_names).pop())  # A -prune -o B: A's subtree is left out
            else:
                has_or, branches = True, branches + 1
        elif t in ("!", "-not"):
            negate = True
            previous = t
            i += 1
            continue
        elif t in _NAMES or t in _PATHS:
            entry = (t in _PATHS, value)
            (excluded if negate else (pos_paths if t in _PATHS else pos_names)).append(entry)
            i += 1
        elif t == "-maxdepth":
            maxdepth = value
            i += 1
        elif t in _VALUED:
            i += 1 + (t == "-fprintf")
        elif t in _FPRINT or t == "-fprintf":
            sj.check(args[i + 1] if i + 1 < len(args) else [UNKNOWN], state, False, f"find {t}")
            i += 1 + (t == "-fprintf")
        elif t == "-delete":
            execs.append(None)
        elif t in _EXEC:
            j = i + 1
            while j < len(args) and sj.word_text(args[j]) not in (";", "+"):
                j += 1
            execs.append(args[i + 1:j])
            i = j
        negate, previous = False, t
        i += 1
    if has_or and len(pos_names) >= branches and not pos_paths:
        has_or = False  # -name A -o -name B: the union of the names
    matched = []
    for root in roots:
        for r in root:
            base = absolute(r, state.cwd)
            if _excluded(base, r, excluded, state):
                continue
            matched.extend(_matched(base, r, pos_names, pos_paths, has_or, maxdepth))
    if not matched:
        return ("paths", [])
    for action in execs:
        if action is None:
            sj.check(matched, state, False, "find -delete of")
        elif action:
            words = [[a.replace("{}", m) for a in w for m in (matched if "{}" in a else [""])] for w in action]
            state.command(words, [[("s", sj.word_text(w))] for w in action], state, None)
    return ("paths", matched)


def _rooted(pattern: str, base: str, given: str) -> str:
    if given and pattern.startswith(given.rstrip("/")):
        return base + pattern[len(given.rstrip("/")):]
    return pattern if pattern.startswith(UNKNOWN) else base + "/" + UNKNOWN + "/" + pattern.lstrip("./")


def _matched(base, given, names, paths, has_or, maxdepth) -> list:
    shallow = maxdepth in ("0", "1")
    below = base + "/" + (STAR if shallow else UNKNOWN)
    if has_or or not (names or paths):
        return [base, below] if maxdepth != "0" else [base]
    if paths:
        return [_rooted(_glob(p, True), base, given) for _, p in paths]
    out = []
    for _, n in names:
        n = _glob(n, False)
        out.extend([base + "/" + n] if shallow else [base + "/" + n, base + "/" + UNKNOWN + "/" + n])
    return out


def _excluded(base, given, excluded, state) -> bool:
    """True when every store under ``base`` is left out by ``-prune`` or ``-not -path``."""
    if not excluded:
        return False
    for store in state.stores:
        probes = [store, store + "/decisions/x.json", store + "/index.md"]
        parts = store.split("/")
        hidden = False
        for is_path, pattern in excluded:
            if is_path:
                pat = _rooted(_glob(pattern, True), base, given)
                if fullmatch(pat, store) or all(fullmatch(pat, p) for p in probes[1:]) or \
                        any(fullmatch(pat, "/".join(parts[:k])) for k in range(2, len(parts))):
                    hidden = True
            elif any(fullmatch(_glob(pattern, False), part) for part in parts[-2:]):
                hidden = True
        if not hidden:
            return False
    return True
