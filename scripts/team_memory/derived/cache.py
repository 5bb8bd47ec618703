"""The machine cache, ``.claude/memory/.cache/retrieval.bin``, and ``Index``, the one index recall scores over.

Derived, git-ignored, rewritten whole under the store lock (``refresh``), read without a lock; without a
usable file the same bytes are built in memory (``encode``)::

    team-memory cache 7
    <header: JSON>   config, text_policy, version, count, written_ns, folders {folder: mtime_ns}, index and map
                     (their stamps), files {category: count}, names (bytes), categories {name: [first id, count]}
    <names>          the memory files' names (as the file system has them), "/" between them, category by category
    <ctimes>         their ctimes, 8 bytes each: the prompt hook compares them as one list (issue 33: 10,000 memories)
    <stamps: JSON>   [[inode, mtime_ns, size, id (-1: not indexed)], ...] in the same order (``refresh`` only)
    e<id, 7 digits>\t<JSON: [category, title, path, tags, time, tag tokens, title tokens, body tokens, related]>
    t<token>\t<tag ids>\t<title ids>\t<body ids>    ids "," joined, or "x" and a hex bitmap
    v\t<the tag and title tokens, " " joined>

The lines after the stamps are sorted as bytes: a prompt bisects to its own words' lines (``seek``). Anyone
can commit the file: every line is checked as parsed (``CacheInvalid``), and a path in it is only a key.
"""
from __future__ import annotations

import os

from ..base import fastjson

CACHE_DIR = ".cache"
CACHE_NAME = "retrieval.bin"
MAP_NAME = "files.map"  # the file map (``filemap``), beside the cache
MAGIC = b"team-memory cache 7\n"
MAX_CACHE_BYTES = 512 * 1024 * 1024
ID_DIGITS = 7
DENSE_FLOOR = 32  # ids of a token's field kept as a bitmap from this many (and n / 64) on: the bound adds them as one int


class CacheInvalid(ValueError):
    """The cache file is missing, foreign or damaged: it is rebuilt."""


def cache_path(memory_root: str) -> str:
    return os.path.join(memory_root, CACHE_DIR, CACHE_NAME)


def cache_folder(memory_root: str) -> str:
    """``<store>/.cache``, created if missing (with its ``.gitignore``); never a link, never written through one."""
    from ..base.safefs import make_dir, open_create
    folder = make_dir(os.path.join(memory_root, CACHE_DIR))
    try:
        fd = open_create(os.path.join(folder, ".gitignore"), os.O_WRONLY | os.O_EXCL)
    except FileExistsError:  # already there (or a link: O_EXCL never follows one)
        return folder
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("# team-memory machine cache: derived, rebuilt automatically\n*\n")
    return folder


def bits_of(ids, size: int) -> int:
    """A bitmap (bit i set for each id i) as an int; ``size`` bytes are enough for every id."""
    buf = bytearray(size)
    for i in ids:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")


_NONZERO = bytes([0] + [1] * 255)
# Python 3.10+: a bitmap's ids counted without writing it out in binary (3.5 M instructions a prompt at 10,000)
_ones = getattr(int, "bit_count", None) or (lambda bits: bin(bits).count("1"))


def ids_of_bits(bits: int) -> list:
    """The ids whose bits are set, ascending."""
    out = []
    if bits <= 0:
        return out
    data = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
    nonzero = data.translate(_NONZERO)
    p = nonzero.find(1)
    while p != -1:
        byte, base = data[p], p << 3
        for b in range(8):
            if byte >> b & 1:
                out.append(base + b)
        p = nonzero.find(1, p + 1)
    return out


def encode(header: dict, table: tuple, items: list) -> bytes:
    """The cache's bytes: ``table`` ``(names, ctimes, stamps)`` of the files, ``items`` in index order."""
    from struct import pack  # (``array`` would load ``collections``: 12 M instructions)
    dumps = fastjson.dumps
    n = len(items)
    lines = []
    postings: dict = {}  # token -> [tag ids, title ids, body ids]
    categories: dict = {}  # category -> [first id, count]
    for i, (entry, when, tokens, related) in enumerate(items):
        categories.setdefault(entry["category"], [i, 0])[1] += 1
        lines.append(b"e%07d\t" % i + dumps([entry["category"], entry["title"], entry["path"], entry["tags"], when,
                                             *tokens, related]).encode("utf-8"))
        seen = set()
        for field, words in enumerate(tokens):
            for token in words:
                if token not in seen:
                    seen.add(token)
                    postings.setdefault(token, ([], [], []))[field].append(i)
    dense, size = max(DENSE_FLOOR, n // 64), (n + 7) // 8
    for token, fields in postings.items():
        tiers = ["x%x" % bits_of(ids, size) if len(ids) >= dense else ",".join(map(str, ids)) for ids in fields]
        lines.append(("t%s\t%s" % (token, "\t".join(tiers))).encode("utf-8"))
    surface = sorted(token for token, fields in postings.items() if fields[0] or fields[1])  # the tag and title tokens
    lines.append(("v\t" + " ".join(surface)).encode("utf-8"))
    lines.sort()
    names = b"/".join(map(os.fsencode, table[0]))
    header = dict(header, count=n, categories=categories, names=len(names))
    return b"".join([MAGIC, dumps(header).encode("utf-8"), b"\n", names, pack("%dq" % len(table[1]), *table[1]), b"\n",
                     dumps(table[2]).encode("utf-8"), b"\n", b"\n".join(lines), b"\n"])


def json_line(data: bytes, start: int, what: str, kind=dict):
    """The JSON object (or ``kind``) on the line at ``start``; ``CacheInvalid`` for anything else."""
    try:
        value = fastjson.loads(data[start:data.find(b"\n", start)])
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, kind):
        raise CacheInvalid(f"unreadable {what}")
    return value


def is_count(value, bound: int = 10 ** ID_DIGITS) -> bool:
    """An int (not a bool) in ``[0, bound)``: what an id, a size or a count read from a file must be."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < bound


def seek(data: bytes, key: bytes, lo: int, hi: int) -> int:
    """The start of the first line of ``data[lo:hi]`` (sorted whole lines, each with its newline) >= ``key``."""
    while lo < hi:
        mid = (lo + hi) // 2
        start = max(lo, data.rfind(b"\n", lo, mid) + 1)
        end = data.find(b"\n", mid, hi)
        if data[start:end] < key:
            lo = end + 1
        else:
            hi = start
    return lo


class Index:
    """One store's memories over cache bytes, each part parsed when first asked for (``CacheInvalid``)."""

    def __init__(self, data):
        self.data = data  # bytes, or the file mapped read-only (``refresh``)
        if data[:len(MAGIC)] != MAGIC or data[-1:] != b"\n":
            raise CacheInvalid("not a team-memory cache")
        header = self.header = json_line(data, len(MAGIC), "header")
        files = header.get("files")
        if not (is_count(header.get("count")) and isinstance(files, dict) and all(map(is_count, files.values()))
                and is_count(header.get("names"), MAX_CACHE_BYTES)):
            raise CacheInvalid("unreadable header")
        self.n = header["count"]
        self.names_at = data.find(b"\n", len(MAGIC)) + 1
        self.ctimes_at = self.names_at + header["names"]
        self.stamps_at = self.ctimes_at + 8 * sum(files.values()) + 1
        self.body = data.find(b"\n", self.stamps_at) + 1  # after the stamps
        if data[self.stamps_at - 1:self.stamps_at] != b"\n" or self.body <= 0:
            raise CacheInvalid("no file table")
        self._entries, self._tiers = {}, {}  # id -> item, token -> tiers: each line parsed once

    def table(self) -> tuple:
        """``(names as bytes, ctimes)`` of the memory files the cache was built from, category by category."""
        total = sum(self.header["files"].values())
        names = self.data[self.names_at:self.ctimes_at].split(b"/") if total else []
        if len(names) != total:
            raise CacheInvalid("unreadable file table")
        return names, memoryview(self.data[self.ctimes_at:self.stamps_at - 1]).cast("q").tolist()

    def _line(self, key: bytes):
        """The rest of the line that starts with ``key``, or None."""
        data = self.data
        at = seek(data, key, self.body, len(data))
        return data[at + len(key):data.find(b"\n", at)] if data[at:at + len(key)] == key else None

    def item(self, i: int) -> list:
        """``[category, title, path, tags, time, tag tokens, title tokens, body tokens, related]`` of id ``i``."""
        got = self._entries.get(i)
        if got is None:
            line = self._line(b"e%07d\t" % i) if 0 <= i < self.n else None
            try:
                got = fastjson.loads(line) if line is not None else None
            except (ValueError, RecursionError):
                got = None
            if not (isinstance(got, list) and len(got) == 9 and all(isinstance(v, str) for v in got[:3])
                    and isinstance(got[3], list) and all(isinstance(t, str) for t in got[3])
                    and isinstance(got[4], (int, float)) and all(isinstance(v, list) for v in got[5:])):
                raise CacheInvalid(f"entry {i} unreadable")
            self._entries[i] = got
        return got

    def entry(self, i: int) -> dict:
        """The index entry of id ``i``: ``{category, title, path, tags}``."""
        return dict(zip(("category", "title", "path", "tags"), self.item(i)))

    def tiers(self, token: str) -> list:
        """``[(field, bitmap or None, ids or None, count)]`` of ``token`` (field 0 tags, 1 title, 2 body)."""
        got = self._tiers.get(token)
        if got is None:
            line = self._line(("t%s\t" % token).encode("utf-8"))
            got = self._tiers[token] = self._parse(line) if line is not None else []
        return got

    def _parse(self, line: bytes) -> list:
        parts, out = line.split(b"\t"), []
        try:
            if len(parts) != 3:
                raise ValueError
            for field, text in enumerate(parts):
                if not text:
                    continue
                if text[:1] == b"x":
                    bits = int(text[1:], 16)
                    if bits <= 0 or bits >> self.n:
                        raise ValueError
                    out.append((field, bits, None, _ones(bits)))
                else:
                    ids = [int(x) for x in text.split(b",")]
                    if min(ids) < 0 or max(ids) >= self.n:
                        raise ValueError
                    out.append((field, None, ids, len(ids)))
        except ValueError:
            raise CacheInvalid("a token line unreadable") from None
        return out

    def tokens_from(self, prefix: str) -> list:
        """The tokens that start with ``prefix``, ascending (``prefix`` itself included), their lines parsed."""
        data, key = self.data, ("t" + prefix).encode("utf-8")
        at, out = seek(data, key, self.body, len(data)), []
        while data[at:at + len(key)] == key:
            tab, end = data.find(b"\t", at), data.find(b"\n", at)
            token = data[at + 1:tab].decode("utf-8")
            if token not in self._tiers:
                self._tiers[token] = self._parse(data[tab + 1:end])
            out.append(token)
            at = end + 1
        return out

    def surface(self) -> list:
        """Every tag and title token."""
        line = self._line(b"v\t")
        return line.decode("utf-8").split() if line else []

    def ids_of(self, category: str) -> range:
        """The ids of one display category (index order keeps a category's entries together)."""
        runs = self.header.get("categories")
        run = runs.get(category) if isinstance(runs, dict) else None
        if not (isinstance(run, list) and len(run) == 2 and all(map(is_count, run)) and sum(run) <= self.n):
            return range(0)
        return range(run[0], run[0] + run[1])
