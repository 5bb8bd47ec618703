"""Writing the machine cache: a new base after a full build, a new delta after a patch.

Each file is replaced atomically (temp file, ``os.replace``) in ``<store>/.cache``, a folder
that is never a link and never written through one; neither is fsynced (a truncated or
foreign file is detected and rebuilt). The format is ``cache``'s; the hook only reads it, so
the hook's path never loads this module.
"""
from __future__ import annotations

import os
import sys
import time

from ..base.fsutil import atomic_write_bytes
from ..base.safefs import make_dir, open_create
from .cache import (CACHE_DIR, FILE_COLUMNS, FORMAT, ITEMSIZE, MAGIC, encode_value, json_dumps, open_part,
                   cache_path, delta_path, usual_block_line, usual_sort_key)


def cache_folder(memory_root: str) -> str:
    """``<store>/.cache``, created if missing; never a link (``safefs.UnsafePath``), never written through one."""
    folder = make_dir(os.path.join(memory_root, CACHE_DIR))
    try:
        fd = open_create(os.path.join(folder, ".gitignore"), os.O_WRONLY | os.O_EXCL)
    except FileExistsError:  # already there (or a link: O_EXCL never follows one)
        return folder
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("# team-memory machine cache: derived, rebuilt automatically\n*\n")
    return folder


def _last_gen(path: str) -> int:
    """The highest generation the base or the delta at ``path`` speaks of (0 when none)."""
    gens = [0]
    for part, key in ((path, "gen"), (delta_path(path), "base_gen")):
        got = open_part(part, optional=True)
        if got is not None:
            os.close(got[0])
            value = got[1].get(key)
            if isinstance(value, int):
                gens.append(value)
    return max(gens)


def write_cache(memory_root: str, meta: dict, sections: dict) -> None:
    """Write a new base (every section) atomically, then drop the delta of the old one.

    ``sections``: name -> bytes, in order.
    """
    cache_folder(memory_root)
    path = cache_path(memory_root)
    gen = max(time.time_ns(), _last_gen(path) + 1)
    _write_file(path, dict(meta, gen=gen), sections)
    try:
        os.unlink(delta_path(path))
    except OSError:
        pass


def write_delta(memory_root: str, base_gen: int, meta: dict, sections: dict) -> None:
    """Replace the delta of base ``base_gen`` atomically (the base is left as it is)."""
    cache_folder(memory_root)
    _write_file(delta_path(cache_path(memory_root)), dict(meta, base_gen=base_gen), sections)


def _write_file(target: str, meta: dict, sections: dict) -> None:
    """One cache file (magic line, header, sections), replaced atomically, not fsynced."""
    table, offset = {}, 0
    for name, data in sections.items():
        table[name] = [offset, len(data)]
        offset += len(data)
    meta = dict(meta, format=FORMAT, byteorder=sys.byteorder, itemsize=ITEMSIZE, sections=table, data_size=offset)
    head = json_dumps(meta).encode("utf-8")
    atomic_write_bytes(target, [MAGIC + str(len(head)).encode() + b"\n" + head, *sections.values()], durable=False)


def pack_item(item: list) -> list:
    """The stored form of ``[entry | None, features | None, sort key, block line | None, time]``
    (the time goes to the ``etime``/``xtime`` sections: ``f64_bytes``)."""
    entry, features, key, block = item[:4]
    if entry is None:
        return [None, None, key]
    return [entry["category"], entry["title"], entry["path"], entry["tags"], features,
            None if key == usual_sort_key(entry) else key,
            None if block == usual_block_line(entry) else block]


def files_section(table: dict) -> bytes:
    """``table``: name -> ``(inode, mtime_ns, size, id, ctime_ns)``, as the ``f:<cat>`` section."""
    import struct
    names = []
    for name in table:
        if "\n" in name or "\r" in name or name.startswith('"'):
            name = "".join(encode_value(name))
        names.append(name)
    head = "\n".join(names).encode("utf-8", "surrogateescape") + b"\0"
    head += b"\0" * (-len(head) % 8)
    n = len(names)
    if not n:
        return head
    return head + b"".join(struct.pack("=%d%s" % (n, code), *column)
                           for code, column in zip(FILE_COLUMNS, zip(*table.values())))


def f64_bytes(values) -> bytes:
    """Native 64-bit floats (the ``etime`` and ``xtime`` sections)."""
    import struct
    values = values if isinstance(values, (list, tuple)) else list(values)
    return struct.pack("=%dd" % len(values), *map(float, values))


def u32_bytes(values) -> bytes:
    import struct
    values = values if isinstance(values, (list, tuple)) else list(values)
    return struct.pack("=%dI" % len(values), *values)
