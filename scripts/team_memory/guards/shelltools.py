"""Programs that write where an option, an archive or an expression says, for ``shelljudge``: dd, curl/wget,
tar/unzip/7z/zip, patch and ``git apply``, git's commands that take paths, and ``find``.

Whole-tree git operations (``checkout BRANCH``, ``pull``, ``reset --hard``, a plain ``stash``) are allowed: they are
how a team's memories move, and PostToolUse reports what they remove. A pathspec that reaches a store is denied.
``find``: roots, ``-name``/``-path`` and ``-maxdepth`` narrow what it matches, ``-prune`` and ``-not -path`` can
leave a store out, ``-o`` keeps every path; ``-delete``, ``-exec CMD {}`` and ``-fprint`` act on it.
"""
from __future__ import annotations

import os

from ..base.safefs import open_read
from .shellpaths import (Denied, absolute, check, code_reaches, flags_of, fullmatch, is_plain, names_store, operands,
                         word_text)
from .shellscan import QUEST, STAR, UNKNOWN

MAX_PATCH_BYTES = 4 * 1024 * 1024
_GIT_READ_ONLY_WITH_PATHS = set("add diff log show blame grep ls-files status commit check-ignore annotate difftool "
                                "shortlog whatchanged ls-tree".split())
_FIND_VALUED = set("-maxdepth -mindepth -type -xtype -newer -mtime -mmin -atime -amin -ctime -cmin -size -user -group "
                   "-perm -regex -iregex -regextype -uid -gid -links -inum -samefile -lname -ilname -used -fstype "
                   "-context -printf -newermt -anewer -cnewer -files0-from".split())
_FIND_PATHS = ("-path", "-ipath", "-wholename", "-iwholename")


def option_values(args: list, names: tuple, state, what: str) -> None:
    """Check the value of each ``-o VALUE``, ``-oVALUE``, ``--output VALUE`` or ``--output=VALUE`` (``names``)."""
    for i, w in enumerate(args):
        t = word_text(w)
        if t in names and i + 1 < len(args):
            check(args[i + 1], state, False, what)
        elif any(t.startswith(n + "=") for n in names if n.startswith("--")):
            check([a.split("=", 1)[1] for a in w], state, False, what)
        elif len(names[0]) == 2 and t.startswith(names[0]) and len(t) > 2 and not t.startswith("--"):
            check([a[2:] for a in w], state, False, what)


def option_word(args: list, short: str, long: str):
    """The value of ``-X VALUE``, ``--long VALUE`` or ``--long=VALUE`` (a word's alternatives), else None."""
    for i, w in enumerate(args):
        t = word_text(w)
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
    check([a for w in operands(args, "bnitxP")[:1] for a in w], state, False, f"{name} archive")


def dd_output(name, args, state, stdin):
    check([a[3:] for w in args if word_text(w).startswith("of=") for a in w], state, False, "dd of=")


def download(name, args, state, stdin):
    option_values(args, ("-o", "--output") if name == "curl" else ("-O", "--output-document"), state, f"{name} to")
    if name == "wget":
        option_values(args, ("-P", "--directory-prefix"), state, "wget into")
    flags = flags_of(args)
    if (name == "curl" and flags & {"-O", "--remote-name"}) or (name == "wget" and "-O" not in flags):
        check([state.cwd + "/" + STAR], state, False, f"{name} into")


def extract_archive(name, args, state, stdin):
    """tar -x (-C DIR), unzip (-d DIR), 7z x (-oDIR): anything may land under the folder they extract into."""
    first, flags = word_text(args[0]) if args else "", flags_of(args)
    if name in ("tar", "bsdtar", "gtar"):
        if not ((not first.startswith("-") and "x" in first) or flags & {"-x", "--extract", "--get"}):
            return option_values(args, ("-f", "--file"), state, f"{name} -f")
        dest = option_word(args, "-C", "--directory") or [state.cwd]
    elif name == "unzip":
        if flags & {"-l", "-t", "-v", "-Z", "-p"}:
            return None
        dest = next((args[i + 1] for i, w in enumerate(args) if word_text(w) == "-d" and i + 1 < len(args)),
                    [state.cwd])
    else:  # 7z x -oDIR
        if not first.startswith(("x", "e")):
            return None
        dest = next(([a[2:] for a in w] for w in args if word_text(w).startswith("-o")), [state.cwd])
    return check([absolute(a, state.cwd) + "/" + UNKNOWN for a in dest], state, False, f"{name} extracting into")


def apply_patch(name, args, state, stdin):
    """patch / git apply: what the patch names (read, bounded) decides; unreadable: where it applies."""
    patches = operands(args, "pidDoBrFzVYg" if name == "patch" else "pCS")
    if name == "patch":
        option_values(args, ("-i", "--input"), state, "patch")
        check([a for w in patches for a in w], state, False, "patch of")
        patches = [args[i + 1] for i, w in enumerate(args) if word_text(w) in ("-i", "--input") and i + 1 < len(args)]
        patches += [stdin[1]] if stdin and stdin[0] == "file" else []
    texts = [_read_patch(w, state) for w in patches] or [None]
    if None in texts:
        check([state.cwd + "/" + UNKNOWN], state, False, f"{name} (a patch that cannot be read) in")
    elif any(code_reaches(t, state) for t in texts):
        raise Denied(f"{name} of a patch that changes .claude/memory/")


def _read_patch(word: list, state):
    if len(word) != 1 or not is_plain(word[0]) or word_text(word) == "-":
        return None
    try:
        fd = open_read(absolute(word[0], state.cwd))  # O_NOFOLLOW, or lstat/fstat where there is none
        try:
            import stat
            return os.read(fd, MAX_PATCH_BYTES).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) \
                else None
        finally:
            os.close(fd)
    except OSError:
        return None


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
    if i >= len(args):
        return "paths", [UNKNOWN]
    sub, rest = word_text(args[i]), args[i + 1:]
    flags, texts = flags_of(rest), [word_text(w) for w in rest]
    if sub in _GIT_READ_ONLY_WITH_PATHS:
        return "paths", [state.cwd + "/" + UNKNOWN]
    if sub in ("apply", "am"):
        if not flags & {"--cached", "--check", "--stat", "--numstat", "--summary"} or "--index" in flags:
            apply_patch("git " + sub, rest, state, None)
    elif sub == "clean" and not flags & {"-n", "--dry-run"}:
        excluded = [texts[k + 1] for k, t in enumerate(texts[:-1]) if t == "-e"]
        excluded += [t.split("=", 1)[1] for t in texts if t.startswith("--exclude=")]
        if not any(e.strip("/").lower() in (".claude", "memory", ".claude/memory") for e in excluded):
            check([a for w in operands(rest, "e") or [[state.cwd]] for a in w], state, True, "git clean of")
    elif sub == "stash":
        ops = operands(rest, "m")
        if "--" in texts or (ops and word_text(ops[0]) == "push" and ops[1:]):  # else the whole tree: allowed
            check([a for w in ops if word_text(w) not in ("push", "save") for a in w], state, True, "git stash of")
    elif sub == "mv" and len(operands(rest)) >= 2:
        ops = operands(rest)
        check([a for w in ops[:-1] for a in w], state, True, "git mv of")
        dest = [absolute(a, state.cwd) for a in ops[-1]]
        names = [last_name(a) for w in ops[:-1] for a in w]
        check(dest + [d + "/" + n for d in dest for n in names], state, False, "git mv into")
    elif sub in ("checkout", "restore", "rm", "mv") and not (sub == "rm" and "--cached" in flags) and not (
            sub == "restore" and flags & {"--staged", "-S"} and not flags & {"--worktree", "-W"}):
        check([a for w in operands(rest, "bBsm" if sub != "mv" else "") for a in w], state, True, f"git {sub} of")
    return None


def _glob(text: str, slash_too: bool) -> str:
    return text.replace("*", UNKNOWN if slash_too else STAR).replace("?", QUEST)


def find_targets(name, args: list, state, stdin):
    """find: the paths it can match (roots, -name/-path, exclusions), checked against what its actions write."""
    i = 0
    while i < len(args) and word_text(args[i]) in ("-H", "-L", "-P"):
        i += 1
    roots = []
    while i < len(args) and not word_text(args[i]).startswith(("-", "(", "!", ")")):
        roots.append(args[i])
        i += 1
    names, paths, excluded, execs, branches = [], [], [], [], 1
    has_or, negate, maxdepth, previous = False, False, None, ""
    while i < len(args):
        t = word_text(args[i])
        value = word_text(args[i + 1]) if i + 1 < len(args) else ""
        if t in ("-o", "-or", ","):
            if previous == "-prune" and (paths or names):
                excluded.append((paths or names).pop())  # A -prune -o B: A's subtree is left out
            else:
                has_or, branches = True, branches + 1
        elif t in ("-name", "-iname") + _FIND_PATHS:
            (excluded if negate else paths if t in _FIND_PATHS else names).append((t in _FIND_PATHS, value))
            i += 1
        elif t in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            check(args[i + 1] if i + 1 < len(args) else [UNKNOWN], state, False, f"find {t}")
            i += 1 + (t == "-fprintf")
        elif t in _FIND_VALUED:
            maxdepth = value if t == "-maxdepth" else maxdepth
            i += 1
        elif t == "-delete":
            execs.append(None)
        elif t in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and word_text(args[j]) not in (";", "+"):
                j += 1
            execs.append(args[i + 1:j])
            i = j
        negate, previous = t in ("!", "-not"), t
        i += 1
    has_or = has_or and (len(names) < branches or bool(paths))  # -name A -o -name B: the union of the names
    matched = [m for root in roots or [["."]] for r in root for m in _matched(absolute(r, state.cwd), r, names, paths,
                                                                               excluded, has_or, maxdepth, state)]
    for action in execs if matched else []:
        if action is None:
            check(matched, state, False, "find -delete of")
        elif action:
            words = [[a.replace("{}", m) for a in w for m in (matched if "{}" in a else [""])] for w in action]
            state.command(words, [[("s", word_text(w))] for w in action], state, None)
    return "paths", matched


def _rooted(pattern: str, base: str, given: str) -> str:
    if given and pattern.startswith(given.rstrip("/")):
        return base + pattern[len(given.rstrip("/")):]
    return pattern if pattern.startswith(UNKNOWN) else base + "/" + UNKNOWN + "/" + pattern.lstrip("./")


def _matched(base, given, names, paths, excluded, has_or, maxdepth, state) -> list:
    """What ``find`` can match under one root (nothing when every store under it is left out)."""
    if excluded and all(_excluded(store, base, given, excluded) for store in state.stores):
        return []
    shallow = maxdepth in ("0", "1")
    if has_or or not (names or paths):
        return [base, base + "/" + (STAR if shallow else UNKNOWN)] if maxdepth != "0" else [base]
    if paths:
        return [_rooted(_glob(p, True), base, given) for _, p in paths]
    return [base + middle + _glob(n, False) for _, n in names for middle in (["/"] if shallow else
                                                                             ["/", "/" + UNKNOWN + "/"])]


def _excluded(store, base, given, excluded) -> bool:
    """Is ``store`` left out by one of ``-prune``'s or ``-not -path``'s patterns?"""
    parts = store.split("/")
    for is_path, pattern in excluded:
        if is_path:
            pat = _rooted(_glob(pattern, True), base, given)
            if fullmatch(pat, store) or all(fullmatch(pat, store + p) for p in ("/decisions/x.json", "/index.md")) \
                    or any(fullmatch(pat, "/".join(parts[:k])) for k in range(2, len(parts))):
                return True
        elif any(fullmatch(_glob(pattern, False), part) for part in parts[-2:]):
            return True
    return False
