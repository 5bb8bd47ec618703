"""``find`` for the write guard: which paths an expression can match, and what its actions write.

Roots, ``-name``/``-iname``, ``-path`` and ``-maxdepth`` narrow the matched paths;
``-prune`` and ``-not -path`` can leave a store out; ``-o`` (other than after
``-prune``) keeps every path under the roots. ``-delete`` writes the matched paths,
``-exec CMD {}`` is judged as ``CMD`` run on them, ``-fprint FILE`` writes ``FILE``.
"""
from __future__ import annotations

from . import shellwords as sj
from .shellpaths import absolute, fullmatch
from .shellscan import QUEST, STAR, UNKNOWN

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


def find_targets(args: list, state):
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
