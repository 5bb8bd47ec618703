"""Writing the file map (``filemap`` describes its format and reads it for the hook)."""
from __future__ import annotations

from ..records.relpaths import literal_prefix
from .filemap import BLOCK_BYTES, MAGIC, MAX_MAP_BYTES, map_path


def encode_map(related: dict) -> bytes:
    """The map's bytes for ``related`` (``{memory path: [entries]}``; the format: ``filemap``)."""
    lines = sorted({f"{literal_prefix(entry)}\t{entry}\t{memory}".encode("utf-8", "surrogateescape")
                    for memory, entries in related.items() if "\t" not in memory and "\n" not in memory
                    for entry in entries})
    index, offset, block_start, segments = [], 0, None, set()
    for line in lines:
        key = line[:line.index(b"\t")]
        segments.add(key.split(b"/", 1)[0])
        if block_start is None or offset - block_start >= BLOCK_BYTES:
            block_start = offset
            index.append(key + b"\t%d\n" % offset)
        offset += len(line) + 1
    seg_bytes = b"\t".join(sorted(segments)) + b"\n" if segments else b""
    index_bytes = b"".join(index)
    return (MAGIC + b"%d %d\n" % (len(seg_bytes), len(index_bytes)) + seg_bytes + index_bytes
            + b"".join(line + b"\n" for line in lines))


def write_map(memory_root: str, related: dict) -> None:
    """Replace the map (atomically, in a ``.cache`` that is never a link) with one built from ``related``
    (``{memory path: [entries]}``). The caller holds the store lock."""
    from ..base.config import warn
    from ..base.fsutil import atomic_write_bytes
    from .cache import cache_folder
    data = encode_map(related)
    if len(data) > MAX_MAP_BYTES:
        warn(f"the file map would be {len(data)} bytes (more than {MAX_MAP_BYTES}); recall by file is off "
             f"until fewer related_files entries are stored")
        data = encode_map({})
    cache_folder(memory_root)
    atomic_write_bytes(map_path(memory_root), data, durable=False)
