"""The file map, ``<store>/.cache/files.map``: which active memories name a file in their ``related_files``.

Recall by file asks "which memories are about ``app/session.py``?" on every Read, Edit and Write without
listing the store. ``refresh`` writes the map (``write_map``); the hook reads it without a lock::

    team-memory file map 2
    <size of the first segments> <size of the block index>
    <first segments: every key's first path segment, "\t" between them>
    <block index: "<key>\t<offset>" per block of about ``BLOCK_BYTES``>
    <lines: "<key>\t<entry>\t<memory>">, sorted as bytes

``key`` is the entry less a trailing ``/`` or a glob's literal folders (``""`` for ``**/*.sql``). A lookup reads
the head, then only the blocks of the file's key and the folders above it: a few small reads at any size.
"""
from __future__ import annotations

import os

MAP_REL = (".cache", "files.map")  # beside the machine cache (``cache.CACHE_DIR``; not imported: the hook's speed)
MAGIC = b"team-memory file map 2\n"
MAX_MAP_BYTES = 16 * 1024 * 1024  # a bigger map is not written (``refresh.write_map`` warns) and never read
MAX_TESTED = 2000  # lines matched against one path at most (a teammate's thousands of top-level globs)
MAX_PATHS = 8  # paths of one tool call looked up
BLOCK_BYTES = 4096  # lines per block of the index (a lookup reads about one block per folder level)
HEAD_BYTES = 4096  # read first: the magic, the sizes, the first segments and (for most maps) the whole index


def map_path(memory_root: str) -> str:
    return os.path.join(memory_root, *MAP_REL)


def read_head(fd: int):
    """``(first segments, block keys, offsets, where the lines start)`` of an open map; ``ValueError`` for no map."""
    data = os.pread(fd, HEAD_BYTES, 0)
    end = data.find(b"\n", len(MAGIC))
    sizes = data[len(MAGIC):end].split(b" ") if 0 <= end - len(MAGIC) <= 24 else []
    if not data.startswith(MAGIC) or len(sizes) != 2 or not all(s.isdigit() for s in sizes):
        raise ValueError("not a file map")
    seg_size, index_size = map(int, sizes)
    body = end + 1 + seg_size + index_size
    if body > MAX_MAP_BYTES:
        raise ValueError("not a file map")  # a forged size is never allocated
    if len(data) < body:  # a block index longer than the first read: read whole (a head past the file is no map)
        data = os.pread(fd, body, 0)
        if len(data) < body:
            raise ValueError("not a file map")
    segments = set(data[end + 1:end + seg_size].split(b"\t")) if seg_size else set()
    keys, offsets = [], []
    for line in data[end + 1 + seg_size:body].split(b"\n")[:-1]:
        key, _, offset = line.rpartition(b"\t")
        if not offset.isdigit() or len(offset) > 9:  # an offset is never past the map's bound
            raise ValueError("not a file map")
        keys.append(key)
        offsets.append(int(offset))
    return segments, keys, offsets, body


def lookup(cwd: str, paths: list):
    """``(memory root, [(file, memory path)])`` for a tool call's files from the map alone; None for none."""
    if not _worth_a_look(cwd, paths[:MAX_PATHS]):
        return None  # the common case: decided with ``os`` alone, nothing more imported
    from ..base.safefs import find_memory_root, project_root_of
    try:
        memory_root = find_memory_root(cwd)
    except OSError:  # a store reached through a link is never used
        return None
    if memory_root is None:
        return None
    from ..records.relpaths import repo_relative
    root = project_root_of(memory_root)
    files = []
    for path in paths[:MAX_PATHS]:
        rel = repo_relative(path, cwd, root)
        if rel is None and isinstance(path, str) and path and "\x00" not in path:
            full = os.path.join(cwd, os.path.expanduser(path))
            rel = repo_relative(os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full)),
                                cwd, os.path.realpath(root))
        if rel and rel not in files:
            files.append(rel)
    found = memories_for(memory_root, files) if files else []
    return (memory_root, found) if found else None


def _worth_a_look(cwd: str, paths: list) -> bool:
    """With ``os`` alone: False only when the map of the store ``find_memory_root`` would take names none of these."""
    start = here = os.path.realpath(cwd)
    fulls = []
    for path in paths:
        if isinstance(path, str) and path and "\x00" not in path:
            joined = os.path.join(cwd, os.path.expanduser(path))  # as lookup resolves it: ".." after a link too
            fulls += [os.path.normpath(joined),
                      os.path.join(os.path.realpath(os.path.dirname(joined)), os.path.basename(joined))]
    while fulls:
        if os.path.lexists(os.path.join(here, ".claude", "memory")) and (
                here == start or here != os.path.realpath(os.path.expanduser("~"))):
            return _map_names(here, fulls)
        if os.path.exists(os.path.join(here, ".git")):
            return False
        up = os.path.dirname(here)
        if up == here:
            return False
        here = up
    return False


def _map_names(project: str, fulls: list) -> bool:
    """Whether the map of ``project``'s store has lines keyed by any of ``fulls`` (absolute paths)."""
    fd = None
    try:
        path = project
        for name in (".claude", "memory", *MAP_REL[:-1]):  # real folders, as the store rule wants them
            path = os.path.join(path, name)
            if os.lstat(path).st_mode & 0o170000 != 0o040000:
                return True  # a link (or not a folder): lookup's store rule decides (it refuses it)
        map_path = os.path.join(path, MAP_REL[-1])
        if hasattr(os, "O_NOFOLLOW"):  # the first look needs os alone
            fd = os.open(map_path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        else:  # Windows: lstat before, fstat after (safefs.open_regular)
            from ..base.safefs import open_regular
            fd = open_regular(map_path)[0]
        if os.fstat(fd).st_size > MAX_MAP_BYTES:
            return False  # lookup never reads such a map either
        top = project.replace(os.sep, "/").rstrip("/") + "/"  # path text compared with / (base.pathtext's rule)
        rels = ["/".join(p for p in f[len(top):].strip().split("/") if p not in ("", "."))
                for f in (f.replace(os.sep, "/").replace("\\", "/") for f in fulls) if f.startswith(top)]
        rels = [r for r in rels if r]
        return bool(rels) and bool(_candidates(fd, rels))
    except (FileNotFoundError, NotADirectoryError):
        return False  # no map: nothing
    except (OSError, ValueError):
        return True  # a link, worse, or no map's head: lookup decides
    finally:
        if fd is not None:
            os.close(fd)


def memories_for(memory_root: str, paths: list) -> list:
    """``[(path, memory path)]`` naming each file (its own key first, then folders above); ``[]`` without a map."""
    from ..base.safefs import is_real_dir, open_regular
    path = map_path(memory_root)
    if not is_real_dir(os.path.dirname(path)):
        return []  # .cache is a link: nothing is read through it (the store itself was checked by its finder)
    try:
        fd, st = open_regular(path)
    except OSError:
        return []
    try:
        if st.st_size > MAX_MAP_BYTES:
            return []
        candidates = _candidates(fd, paths)
    except (OSError, ValueError, ArithmeticError, MemoryError):  # any doubt: no answer (the next refresh rewrites it)
        return []
    finally:
        os.close(fd)
    if not candidates:
        return []
    from ..records.relpaths import matches
    found, verdicts = {}, {}  # memory -> the first path it names
    for path, line in candidates:
        entry, _, memory = line.decode("utf-8", "surrogateescape").partition("\t")
        verdict = verdicts.get((entry, path))
        if verdict is None:  # many memories share an entry ("src/**/*.py"): matched once
            verdict = verdicts[(entry, path)] = matches(entry, path)
        if verdict:
            found.setdefault(memory, path)
    return [(path, memory) for memory, path in found.items()]


def _candidates(fd: int, paths: list) -> list:
    """``[(path, b"<entry>\\t<memory>")]`` of the lines keyed by each path or a folder above it."""
    segments, keys, offsets, body = read_head(fd)
    out = []
    for path in paths:
        parts = path.split("/")
        wanted = ["/".join(parts[:k]) for k in range(len(parts), 0, -1)]  # the most specific first
        if parts[0].encode("utf-8", "surrogateescape") not in segments:
            wanted = []  # no entry under this file's top folder (the common case: nothing more is read)
        for key in wanted + ([""] if b"" in segments else []):
            from bisect import bisect_left  # (only once a key is looked up)
            key = key.encode("utf-8", "surrogateescape")
            block = max(bisect_left(keys, key) - 1, 0)  # the block where key's lines would start
            if keys:
                out.extend((path, rest) for rest in _run(fd, body + offsets[block], key, MAX_TESTED - len(out)))
    return out


def _run(fd: int, start: int, key: bytes, limit: int) -> list:
    """The rest (``<entry>\\t<memory>``) of the lines keyed ``key``, reading on from offset ``start``."""
    target = key + b"\t"
    out, carry = [], b""
    while limit > 0:
        chunk = os.pread(fd, BLOCK_BYTES + 512, start)
        if not chunk:
            return out
        start += len(chunk)
        lines = (carry + chunk).split(b"\n")
        carry = lines.pop()
        if len(carry) > BLOCK_BYTES:
            return out  # no line of ours is this long: a forged map ends here
        for line in lines:
            if line.startswith(target):
                out.append(line[len(target):])
                if len(out) >= limit:
                    return out
            elif line[:len(target)] > target:
                return out  # past the run
    return out
