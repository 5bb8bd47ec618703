"""``related_files``: repository-relative files, folders (every file under it) or globs (``*?[`` and ``**``).

Matched against the whole path; nothing here touches the file system; no ``re`` (hooks' start-up).
"""
from __future__ import annotations

import os

MAX_ENTRY = 300
MAX_ENTRIES = 50
GLOB_CHARS = frozenset("*?[")


def normalise(entry) -> str:
    """The stored form of one ``related_files`` entry; ``ValueError`` saying why it is refused."""
    if not isinstance(entry, str):
        raise ValueError("must be text")
    text = entry.strip().replace("\\", "/")
    if not text:
        raise ValueError("must not be empty")
    if len(text) > MAX_ENTRY:
        raise ValueError(f"is {len(text)} characters long (at most {MAX_ENTRY})")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ValueError("contains a control character")
    folder = text.endswith("/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    head = parts[0] if parts else ""  # "./~" is "~": the rule holds for the stored form too
    if text.startswith("/") or head.startswith("~") or (len(head) > 1 and head[1] == ":" and head[0].isalpha()):
        raise ValueError("must be relative to the repository root (no leading /, ~ or drive letter)")
    if not parts:
        raise ValueError("names the repository root itself; name a file, a folder or a glob inside it")
    if ".." in parts:
        raise ValueError("must not contain '..' (paths stay inside the repository)")
    if any(p.lower() == ".git" for p in parts):
        raise ValueError("must not name git's own folder (.git)")
    stored = "/".join(parts) + ("/" if folder else "")
    # dropping a leading "./" can bare a space ('./ x' -> ' x'): normalise again, so normalising is idempotent
    return stored if stored == stored.strip() else normalise(stored)


def problem(entry) -> str | None:
    """Why ``entry`` is refused, or None."""
    try:
        normalise(entry)
    except ValueError as exc:
        return str(exc)
    return None


def normalised(entries):
    """``(entry, stored form)`` of each of the first ``MAX_ENTRIES`` entries not refused (none for no list)."""
    for entry in entries[:MAX_ENTRIES] if isinstance(entries, list) else ():
        try:
            yield entry, normalise(entry)
        except ValueError:
            continue


def usable(entries) -> list:
    """A stored ``related_files`` value's usable entries: normalised, in order, each once."""
    return list(dict.fromkeys(stored for _, stored in normalised(entries)))


def is_glob(entry: str) -> bool:
    return any(c in GLOB_CHARS for c in entry)


def literal_prefix(entry: str) -> str:
    """The folders before ``entry``'s first glob segment (all of it, less a trailing ``/``, for no glob)."""
    parts = entry.rstrip("/").split("/")
    return "/".join(parts[:next((i for i, part in enumerate(parts) if is_glob(part)), len(parts))])


def matches(entry: str, path: str) -> bool:
    """Does the normalised ``entry`` name the repository-relative file ``path`` (``a/b.py``)?"""
    if not is_glob(entry):
        folder = entry.rstrip("/")
        return path == folder or path.startswith(folder + "/")
    pattern = entry.rstrip("/").split("/")
    names = path.split("/")
    if entry.endswith("/"):  # a folder glob: any file under a folder it matches
        return any(_segments(pattern, names[:k]) for k in range(1, len(names)))
    return _segments(pattern, names)


def _segments(pattern: list, names: list) -> bool:
    """Does ``pattern`` (``**``: any segments) match all ``names``? Each position pair decided once: not exponential."""
    if "**" not in pattern:
        return len(pattern) == len(names) and all(_name(p, n) for p, n in zip(pattern, names))
    done: dict = {}

    def match(p: int, n: int) -> bool:
        known = done.get((p, n))
        if known is not None:
            return known
        if p == len(pattern):
            result = n == len(names)
        elif pattern[p] == "**":
            result = match(p + 1, n) or (n < len(names) and match(p, n + 1))
        else:
            result = n < len(names) and _name(pattern[p], names[n]) and match(p + 1, n + 1)
        done[(p, n)] = result
        return result
    return match(0, 0)


def _name(pattern: str, name: str) -> bool:
    """One segment against a pattern of ``*``, ``?`` and ``[...]`` (``[!...]`` negates)."""
    p = n = 0
    star_p, star_n = -1, 0
    while n < len(name):
        if p < len(pattern) and pattern[p] == "*":
            star_p, star_n, p = p, n, p + 1
            continue
        if p < len(pattern):
            step = _one(pattern, p, name[n])
            if step:
                p, n = p + step, n + 1
                continue
        if star_p < 0:
            return False
        star_n += 1
        p, n = star_p + 1, star_n
    return all(c == "*" for c in pattern[p:])


def _one(pattern: str, p: int, char: str) -> int:
    """How many pattern characters match ``char`` at ``p`` (0: no match)."""
    c = pattern[p]
    if c == "?":
        return 1
    if c == "[":
        negate = pattern[p + 1:p + 2] == "!"
        j = p + 1 + negate
        j += 1 if pattern[j:j + 1] == "]" else 0  # a "]" first is a member, as in fnmatch
        end = pattern.find("]", j)
        if end > 0:
            body, i, member = pattern[p + 1 + negate:end], 0, False
            while i < len(body) and not member:
                span = 3 if i + 2 < len(body) and body[i + 1] == "-" else 1  # a range "a-z", or one character
                member = body[i] <= char <= body[i + span - 1]
                i += span
            return end - p + 1 if member != negate else 0
    return 1 if c == char else 0


def repo_relative(path: str, cwd: str, root: str) -> str | None:
    """``path`` (absolute, or relative to ``cwd``) normalised inside ``root`` as written (no link resolved), or None."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)) if not os.path.isabs(path) else path)
    from ..base.pathtext import inside, slashed
    base = os.path.normpath(root)
    if full == base or not inside(full, base):
        return None
    rel = slashed(full)[len(slashed(base).rstrip("/")) + 1:]
    try:
        return normalise(rel)
    except ValueError:
        return None
