"""The machine cache beside ``index.md``: ``.claude/memory/.cache/retrieval.bin`` and ``retrieval.delta``.

Derived, git-ignored, never the truth: it holds what the hook needs to rank without
re-reading or re-tokenising anything, and is thrown away and rebuilt whenever it is
missing, foreign (another format, byte order, strategy or configuration), corrupt, or
does not match the ``index.md`` it was written with.

Both files: a magic line, the decimal length of a JSON header, the header, then sections
at the byte offsets the header lists (u32: native unsigned 32-bit ints). The base, written
by a full build::

    keys   sorted index keys, "\\n"-joined (UTF-8)       -- from strategy.index_keys
    koff   u32, K+1 byte offsets of the keys in ``keys`` (the last one past the end + 1):
           keys are found by bisecting the bytes, never by splitting them all
    kpost  u32, K+1 offsets into post
    post   u32, entry ids per key (postings)
    kbit   u32, per key the number of its bitmap in ``bits``, or NO_BITS
    bits   one bitmap of ``bits_size`` bytes (bit i: id i) per dense key, a key filed under
           at least ``dense_min(n)`` entries: the hook adds such postings with whole-int
           bit operations instead of one Python step per id
    fvoc   the title and tag tokens (keys ending in 3 or 2), unique, sorted by length then
           text, "\\n"-joined; the header's ``fvoc`` lists ``[length, start, end]`` per length
           (the fuzzy step's pre-check reads only the lengths it needs)
    eoff   u32, M+1 offsets into ents
    ents   one JSON text per entry id: [category, title, path, tags, features, sort key | null,
           block line | null] (null: the usual one, derived), or [null, null, sort key] for an
           index line that does not parse
    etime  f64 (native 64-bit floats), per entry id when its record was last written
           (``updated_at``, else ``created_at``, POSIX seconds; 0.0 unknown): the SessionStart
           orientation's newest memories without opening a file
    pos    u32, the index position of each id (DEAD once removed)
    order  u32, the ids in index order
    ocat   bytes, the category code of each index position
    f:<cat>  the JSON files seen in that category's folder: their names ("\\n"-joined, a name
           with a line break written as a JSON string), a zero byte, 8-byte padding, then five
           columns of native 64-bit ints: inodes, mtime_ns, sizes, ids (id -1: not in the index),
           ctime_ns (the hook's per-file check compares the ctime column as bytes)

Ids are stable between incremental updates: a changed memory gets a new id, the old one
is marked DEAD (and listed in the header's ``dead``). An update leaves the base as it is
and rewrites the small delta (see ``Cache``): ``eoff``, ``pos``, ``order``, ``ocat``, the
file tables of the folders changed since the base, ``xents`` (the entries added since,
their ``eoff`` offsets running on past the base's ``ents``) and their postings in ``xkeys``
(keys), ``xoff`` (offsets) and ``xids`` (ids), and their times in ``xtime``. The header
records the stamps of the category folders and of ``index.md``; the file tables let the
hook check every memory file (one ``lstat`` each: an in-place rewrite changes no folder,
but always the file's ctime, which no tool can set back). Each file is replaced atomically
(temp file, ``os.replace``); neither is fsynced: after a crash a truncated or foreign file
is detected and rebuilt.
"""
from __future__ import annotations

import os
import sys

from ..base import fastjson
from ..base.safefs import open_read

CACHE_DIR = ".cache"
CACHE_NAME = "retrieval.bin"
MAGIC = b"team-memory retrieval cache\n"
FORMAT = 5  # 5: titles and tags through the exposure rule of issue 24 (the marker is text, tags hidden before cleaning)
DEAD = 0xFFFFFFFF
NO_BITS = 0xFFFFFFFF
NO_CATEGORY = 255
# A key filed under at least dense_min(n) of n entries also gets a bitmap (n / 8 bytes, at most
# twice its postings' 4 bytes an id).
DENSE_FLOOR = 32
DENSE_RATIO = 64
# A folder changed less than this long before its stamp was taken may change again within
# the same file-system time tick, unseen: such a stamp is re-checked, not trusted. File
# systems with whole-second times get two seconds; nanosecond ones two ticks of the clock
# the kernel stamps files with (Linux: CLOCK_REALTIME_COARSE, 1/HZ: 1-10 ms), 20 ms where
# that clock cannot be asked.
RACY_NS = 2_000_000_000
RACY_FINE_NS = 20_000_000
_fine_window = None


def fine_window() -> int:
    """Two ticks of the clock file times come from, within 2-20 ms."""
    global _fine_window
    if _fine_window is None:
        window = RACY_FINE_NS
        if sys.platform.startswith("linux"):
            import time
            try:
                tick = time.clock_getres(getattr(time, "CLOCK_REALTIME_COARSE", 5))
                window = min(RACY_FINE_NS, max(2_000_000, int(2 * tick * 1e9)))
            except (OSError, ValueError, OverflowError):
                pass
        _fine_window = window
    return _fine_window


def racy(mtime_ns, taken_ns) -> bool:
    """True when a folder stamp ``mtime_ns`` taken at ``taken_ns`` cannot be trusted yet."""
    if mtime_ns is None:
        return False
    window = RACY_NS if mtime_ns % 1_000_000_000 == 0 else fine_window()
    return taken_ns - mtime_ns < window


class CacheInvalid(Exception):
    """The cache file is missing, foreign or corrupt."""


def cache_path(memory_root: str) -> str:
    return os.path.join(memory_root, CACHE_DIR, CACHE_NAME)


def dense_min(n: int) -> int:
    """Postings at least this long (of ``n`` entries) also get a bitmap."""
    return max(DENSE_FLOOR, n // DENSE_RATIO)


def bits_of(ids, size: int) -> int:
    """A bitmap (bit i set for each id i) as an int; ``size`` bytes are enough for every id."""
    buf = bytearray(size)
    for i in ids:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")


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


_NONZERO = bytes([0] + [1] * 255)


def file_stamp(path: str):
    """``[mtime_ns, size, inode]`` of a file, or None when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def folder_mtime(path: str):
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _u32(data: bytes) -> memoryview:
    """Native unsigned 32-bit ints over ``data`` (no ``array`` import: it pulls in ``collections``)."""
    return memoryview(data).cast("I")


_NONE_U32 = _u32(b"")
ITEMSIZE = _u32(bytes(4)).itemsize


json_dumps = fastjson.dumps
encode_value = fastjson.encode


def delta_path(path: str) -> str:
    """The delta file beside a cache file (``retrieval.bin`` -> ``retrieval.delta``)."""
    return path[:-len(".bin")] + ".delta" if path.endswith(".bin") else path + ".delta"


MAX_HEADER_DIGITS = 10  # a header of up to 9,999,999,999 bytes; any longer length is not ours


def _count(value, most: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= most


def _read_part(fd: int):
    """``(meta, data start)`` of one cache file, checked against its own size: a cache is a file anyone
    can commit, so every length and count it states is checked against the bytes really there before
    anything is read or allocated (``99999999999999`` as the header's length meant a MemoryError on
    every prompt; ``10**30`` an OverflowError)."""
    real = os.fstat(fd).st_size
    head = os.pread(fd, 4096, 0)
    if not head.startswith(MAGIC):
        raise CacheInvalid("not a team-memory cache")
    nl = head.find(b"\n", len(MAGIC))
    digits = head[len(MAGIC):nl]
    if nl < 0 or not digits.isdigit() or len(digits) > MAX_HEADER_DIGITS:
        raise CacheInvalid("unreadable header")
    size = int(digits)
    start = nl + 1
    if start + size > real:
        raise CacheInvalid("header longer than the file")
    raw = head[start:start + size]
    if len(raw) < size:
        raw += os.pread(fd, size - len(raw), start + len(raw))
    meta = fastjson.loads(raw)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CacheInvalid("another cache format")
    if meta.get("byteorder") != sys.byteorder or meta.get("itemsize") != ITEMSIZE:
        raise CacheInvalid("written on another kind of machine")
    data_start = start + size
    data_size = meta.get("data_size")
    if not _count(data_size, real) or real != data_start + data_size:
        raise CacheInvalid("truncated")
    _check_meta(meta, data_size)
    return meta, data_start


def _check_meta(meta: dict, data_size: int) -> None:
    """Every section inside the data, every count no larger than the data could hold."""
    sections = meta.get("sections")
    if not isinstance(sections, dict):
        raise CacheInvalid("no sections")
    for name, place in sections.items():
        if not (isinstance(name, str) and isinstance(place, list) and len(place) == 2
                and _count(place[0], data_size) and _count(place[1], data_size - place[0])):
            raise CacheInvalid("a section outside the file")
    for key, most in (("n_ids", data_size // ITEMSIZE), ("bits_size", data_size), ("count", data_size)):
        if key in meta and not _count(meta[key], most):
            raise CacheInvalid(f"{key} out of range")
    for key in ("gen", "base_gen"):
        if key in meta and not isinstance(meta[key], int):
            raise CacheInvalid(f"{key} not a number")
    fvoc, dead = meta.get("fvoc", []), meta.get("dead", [])
    if not (isinstance(fvoc, list) and all(isinstance(f, list) and len(f) == 3 and all(_count(x, 1 << 40) for x in f)
                                           for f in fvoc)):  # the base's offsets (a delta repeats them): read checked
        raise CacheInvalid("fvoc out of range")
    if not (isinstance(dead, list) and len(dead) <= data_size and all(_count(x, data_size) for x in dead)):
        raise CacheInvalid("dead out of range")


def open_part(path: str, optional: bool = False):
    """``(fd, meta, data start)``; None for an optional file that is missing or unusable."""
    try:  # never read through a link (team-memory never makes one), never blocked by a FIFO
        fd = open_read(path)  # O_NOFOLLOW, or lstat/fstat where there is none
    except OSError:
        if optional:
            return None
        raise CacheInvalid("missing") from None
    try:
        meta, start = _read_part(fd)
    except (CacheInvalid, OSError, ValueError, TypeError, KeyError, AttributeError, ArithmeticError, MemoryError,
            RecursionError) as exc:
        os.close(fd)
        if optional:
            return None
        raise exc if isinstance(exc, CacheInvalid) else CacheInvalid("unreadable header") from None
    return fd, meta, start


class Cache:
    """A read-only view of the cache: the base file and, when it belongs to it, the delta beside it.

    A full build writes the base (``retrieval.bin``, generation ``gen``) and removes the delta.
    An incremental update leaves the big base as it is and rewrites only the small delta
    (``retrieval.delta``: the header, the index order and positions, the entries patched in
    since the base, the file tables of the folders that changed), marked with the ``gen`` of
    the base it extends; a delta for another base is ignored. The delta is read before the
    base, so a base replaced in between is noticed (its ``gen`` is newer than the delta's).
    Sections are read on first use, from whichever file holds them.
    """

    def __init__(self, path: str):
        self.path = path
        self.fds: list = []
        self.fd = None
        if os.path.islink(os.path.dirname(path)):  # a .cache folder that is a link is never read through
            raise CacheInvalid("the cache folder is a symbolic link")
        try:
            self._open()
        except CacheInvalid:
            self.close()
            raise
        except (OSError, ValueError, TypeError, KeyError, AttributeError, ArithmeticError, MemoryError):
            self.close()
            raise CacheInvalid("unreadable header") from None
        self._loaded: dict = {}
        self._ent_cache: dict = {}

    def _open(self) -> None:
        for _ in range(3):
            delta = open_part(delta_path(self.path), optional=True)
            if delta is not None:
                self.fds.append(delta[0])
            base_fd, base_meta, base_start = open_part(self.path)
            self.fds.append(base_fd)
            self.fd = base_fd
            gen = base_meta.get("gen", 0)
            if delta is not None and delta[1].get("base_gen", -1) > gen:  # the base was replaced meanwhile
                self.close()
                continue
            self.loc = {name: (base_fd, base_start + off, length) for name, (off, length) in base_meta["sections"].items()}
            self.base_ents = base_meta["sections"]["ents"][1]
            self.in_delta: set = set()
            self.meta = base_meta
            if delta is not None and delta[1].get("base_gen") == gen:
                fd, meta, start = delta
                for name, (off, length) in meta["sections"].items():
                    self.loc[name] = (fd, start + off, length)
                    self.in_delta.add(name)
                self.meta = meta
            self.gen = gen
            self.n_ids = self.meta["n_ids"]
            return
        raise CacheInvalid("base and delta keep changing")

    def close(self) -> None:
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []
        self.fd = None

    # --- raw sections -------------------------------------------------------------
    def _read(self, name: str, start: int, length: int) -> bytes:
        """``length`` bytes of section ``name`` from ``start`` (checked)."""
        fd, off, size = self.loc[name]
        if start + length > size:
            raise CacheInvalid(f"read past section {name}")
        data = os.pread(fd, length, off + start) if length else b""
        if len(data) != length:
            raise CacheInvalid(f"short section {name}")
        return data

    def raw(self, name: str) -> bytes:
        return self._read(name, 0, self.loc[name][2])

    def section(self, name: str, kind: str):
        value = self._loaded.get(name)
        if value is None:
            data = self.raw(name)
            if kind == "u32":
                value = _u32(data)
            elif kind == "lines":
                value = data.decode("utf-8").split("\n") if data else []
            else:
                value = data
            self._loaded[name] = value
        return value

    @property
    def keys(self) -> list:
        return self.section("keys", "lines")

    @property
    def pos(self) -> array:
        return self.section("pos", "u32")

    @property
    def order(self) -> array:
        return self.section("order", "u32")

    @property
    def ocat(self) -> bytes:
        return self.section("ocat", "bytes")

    # --- lookups ------------------------------------------------------------------
    def _blob(self):
        """``(keys as bytes, koff)``: what the bisection reads."""
        blob = self._loaded.get("keys_blob")
        if blob is None:
            blob = self._loaded["keys_blob"] = (self.raw("keys"), self.section("koff", "u32"))
        return blob

    def n_keys(self) -> int:
        return len(self._blob()[1]) - 1

    def _bisect(self, target: bytes) -> int:
        """The first key index whose key is not below ``target`` (UTF-8 bytes sort as the text does)."""
        blob, koff = self._blob()
        lo, hi = 0, len(koff) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if blob[koff[mid]:koff[mid + 1] - 1] < target:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def key_index(self, key: str) -> int:
        """The index of ``key`` among the main keys, or -1."""
        target = key.encode("utf-8", "surrogatepass")
        k = self._bisect(target)
        blob, koff = self._blob()
        return k if k < len(koff) - 1 and blob[koff[k]:koff[k + 1] - 1] == target else -1

    def key_range(self, prefix: str) -> tuple:
        """``(lo, hi)``: the main keys that start with ``prefix`` (0xff never occurs in UTF-8)."""
        target = prefix.encode("utf-8", "surrogatepass")
        return self._bisect(target), self._bisect(target + b"\xff")

    def keys_between(self, lo: int, hi: int) -> list:
        if lo >= hi:
            return []
        blob, koff = self._blob()
        return blob[koff[lo]:koff[hi] - 1].decode("utf-8").split("\n")

    def counts_between(self, lo: int, hi: int) -> array:
        """``kpost[lo:hi + 1]``: postings of key k are ``post[kpost[k]:kpost[k + 1]]``."""
        if lo >= hi:
            return _NONE_U32
        return _u32(self._read("kpost", lo * 4, (hi - lo + 1) * 4))

    def postings_between(self, lo: int, hi: int):
        """``(ids, bounds)``: the ids filed under keys ``lo``..``hi-1`` in one read, and
        ``bounds`` (``kpost[lo:hi + 1]`` less ``kpost[lo]``): key ``lo + j`` holds
        ``ids[bounds[j]:bounds[j + 1]]``."""
        kp = self.counts_between(lo, hi)
        if not kp:
            return _NONE_U32, kp
        base = kp[0]
        ids = _u32(self._read("post", base * 4, (kp[-1] - base) * 4)) if kp[-1] > base else _NONE_U32
        if base:
            kp = [b - base for b in kp]
        return ids, kp

    def _postings_range(self, lo: int, hi: int) -> array:
        return self.postings_between(lo, hi)[0]

    def bitmap_number(self, k: int) -> int:
        """The number of key ``k``'s bitmap, or NO_BITS for a sparse key."""
        if k * 4 >= self.loc["kbit"][2]:
            return NO_BITS
        return _u32(self._read("kbit", k * 4, 4))[0]

    def bitmaps_between(self, lo: int, hi: int) -> array:
        """``kbit[lo:hi]``."""
        if lo >= hi:
            return _NONE_U32
        return _u32(self._read("kbit", lo * 4, (hi - lo) * 4))

    def bitmap(self, number: int) -> int:
        """Bitmap ``number`` as an int (bit i: id i)."""
        size = self.meta["bits_size"]
        return int.from_bytes(self._read("bits", number * size, size), "little")

    def fuzzy_vocabulary(self, lengths) -> dict:
        """length -> the title and tag tokens of that length (patched-in and removed ones too), for ``lengths``."""
        wanted = set(lengths)
        out: dict = {}
        for length, start, end in self.meta["fvoc"]:
            if length in wanted and end > start:
                out[length] = self._read("fvoc", start, end - start).decode("utf-8").split("\n")
        for key in self.xpost:
            if key[-1] in "32" and len(key) - 2 in wanted:
                out.setdefault(len(key) - 2, []).append(key[:-2])
        return out

    @property
    def xpost(self) -> dict:
        """key -> ids patched in since the base was written (the delta's ``xkeys``/``xoff``/``xids``)."""
        got = self._loaded.get("xpost")
        if got is None:
            got = {}
            if "xkeys" in self.loc:
                blob = self.raw("xkeys")
                keys = blob.decode("utf-8").split("\n") if blob else []
                xoff = _u32(self.raw("xoff"))
                ids = _u32(self.raw("xids"))
                if len(xoff) != len(keys) + 1 or xoff[-1] != len(ids):
                    raise CacheInvalid("patched-in postings out of step")
                got = {key: ids[xoff[i]:xoff[i + 1]].tolist() for i, key in enumerate(keys)}
            self._loaded["xpost"] = got
        return got

    def exact(self, key: str):
        """Ids filed under ``key``."""
        k = self.key_index(key)
        out = list(self._postings_range(k, k + 1)) if k >= 0 else []
        out.extend(self.xpost.get(key, ()))
        return out

    def prefixed(self, prefix: str):
        """Ids filed under any key that starts with ``prefix``."""
        out = list(self._postings_range(*self.key_range(prefix)))
        for key, ids in self.xpost.items():
            if key.startswith(prefix):
                out.extend(ids)
        return out

    def keys_with_prefix(self, prefix: str) -> list:
        """Every index key that starts with ``prefix`` (patched-in keys included), unsorted."""
        out = self.keys_between(*self.key_range(prefix))
        out.extend(k for k in self.xpost if k.startswith(prefix))
        return out

    def exact_set(self, key: str) -> set:
        """``set(exact(key))``, built without a Python loop."""
        k = self.key_index(key)
        out = set(self._postings_range(k, k + 1)) if k >= 0 else set()
        extra = self.xpost.get(key)
        if extra:
            out.update(extra)
        return out

    def dead_ids(self) -> set:
        """Ids replaced or removed by incremental updates (still in the postings)."""
        dead = self.meta.get("dead")
        if dead is not None:
            return set(dead)
        if self.n_ids == len(self.order):
            return set()
        return set(range(self.n_ids)) - set(self.order)

    def live_keys(self, suffixes: str) -> list:
        """Keys ending in one of ``suffixes`` that hold at least one live id (the fuzzy step's vocabulary).

        Only a key with no more postings than there are dead ids can be all dead, so only
        such keys are read.
        """
        dead = self.dead_ids()
        xpost = self.xpost
        out = []
        if dead:
            kpost = self.section("kpost", "u32")
        for i, key in enumerate(self.keys):
            if key[-1] in suffixes:
                if dead and kpost[i + 1] - kpost[i] + len(xpost.get(key, ())) <= len(dead):
                    if not (self.exact_set(key) - dead):
                        continue
                out.append(key)
        main = set(self.keys) if xpost else ()
        for key in xpost:
            if key[-1] in suffixes and key not in main and (set(xpost[key]) - dead):
                out.append(key)
        return out

    def all_keys(self) -> list:
        return self.keys + list(self.xpost)

    def live(self, ident: int) -> bool:
        """True when ``ident`` is an entry of the current index (not replaced or removed)."""
        return self.pos[ident] != DEAD

    def items(self):
        """``(id, item)`` for every live id, in index order (the ``ents`` section read once)."""
        eoff = self.section("eoff", "u32")
        ents = self.raw("ents") + (self.raw("xents") if "xents" in self.loc else b"")
        for ident in self.order:
            yield ident, unpack_item(fastjson.loads(ents[eoff[ident]:eoff[ident + 1]]))

    def item(self, ident: int) -> list:
        """``[entry | None, features | None, sort key, block line | None]`` of one id."""
        got = self._ent_cache.get(ident)
        if got is None:
            start, end = _u32(self._read("eoff", ident * 4, 8))
            if start >= self.base_ents:  # patched in since the base was written
                data = self._read("xents", start - self.base_ents, end - start)
            else:
                data = self._read("ents", start, end - start)
            got = self._ent_cache[ident] = unpack_item(fastjson.loads(data))
        return got

    def times(self, ids) -> list:
        """When the record of each id was last written (POSIX seconds, 0.0 when unknown), from
        ``etime`` (the base's ids) and ``xtime`` (those patched in since): no item is parsed."""
        etime = memoryview(self.raw("etime")).cast("d")
        xtime = memoryview(self.raw("xtime")).cast("d") if "xtime" in self.loc else etime[:0]
        n = len(etime)
        try:
            return [etime[i] if i < n else xtime[i - n] for i in ids]
        except IndexError:
            raise CacheInvalid("times out of step") from None

    def time_of(self, ident: int) -> float:
        """``times`` of one id."""
        return self.times((ident,))[0]

    def ids_of_category(self, code: int):
        """Ids of one category code, in index order."""
        ocat, order = self.ocat, self.order
        needle = bytes((code,))
        p = ocat.find(needle)
        while p != -1:
            yield p, order[p]
            p = ocat.find(needle, p + 1)

    def folder_files(self, folder: str) -> dict:
        """name -> ``(ino, mtime_ns, size, id, ctime_ns)`` (id -1: not in the index) for one folder."""
        name = "f:" + folder
        if name not in self.loc:
            return {}
        return parse_files_section(self.raw(name))

    def live_ids(self) -> list:
        return list(self.order)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_cache(memory_root: str):
    """The store's cache, or None when it is missing, foreign, corrupt or linked out of the store."""
    path = cache_path(memory_root)
    try:  # Cache refuses a linked .cache folder; its files are opened with O_NOFOLLOW
        return Cache(path)
    except CacheInvalid:
        return None


def escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def usual_block_line(entry: dict) -> str:
    """An entry's ``<memory-context>`` line when its title needs no cleaning (the usual case)."""
    line = f"- [{entry['category']}] {escape_xml(entry['title'])} -> {escape_xml(entry['path'])}"
    tags = sorted({escape_xml(t) for t in entry["tags"]})
    return line + f" #tags:{','.join(tags)}" if tags else line


def usual_sort_key(entry: dict) -> list:
    return [entry["category"], entry["title"].lower(), entry["path"]]


def unpack_item(stored: list) -> list:
    if stored[0] is None:
        return [None, None, stored[2], None]
    entry = {"category": stored[0], "title": stored[1], "path": stored[2], "tags": stored[3]}
    return [entry, stored[4], stored[5] or usual_sort_key(entry), stored[6] or usual_block_line(entry)]


def parse_files_section(data: bytes) -> dict:
    cut = data.index(b"\0")
    names = data[:cut].decode("utf-8", "surrogateescape").split("\n") if cut else []
    if any(n.startswith('"') for n in names):
        names = [fastjson.loads(n) if n.startswith('"') else n for n in names]
    start = cut + 1 + (-(cut + 1) % 8)
    n = len(names)
    if len(data) - start != 8 * len(FILE_COLUMNS) * n:
        raise CacheInvalid("file table out of step")
    view = memoryview(data)
    columns = [view[start + 8 * n * k:start + 8 * n * (k + 1)].cast(code) for k, code in enumerate(FILE_COLUMNS)]
    return dict(zip(names, zip(*columns)))


FILE_COLUMNS = "QqQqq"  # inode, mtime_ns, size, id, ctime_ns (8 bytes each)
CTIME_COLUMN = 4
