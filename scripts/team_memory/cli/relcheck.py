"""``doctor``'s checks of ``related_files``: the command that fixes refused entries, and entries reached through
a symbolic link.

A hand-edited memory whose only problems are refused entries is fixed by ``update ID --related-file ...``
with the entries that are fine (an absolute path inside the project in its relative form) (``--no-related-files`` when none is); anything else wrong sends the user to
``edit``. An entry that is a link, or lies under one, in the working tree is reported: recall and the git
checks name files by their path and never follow a link, so such an entry does not mean what it seems to.
The check is ``os.lstat`` on each folder of the path from the project root (a link is seen, never entered or
opened); a glob is checked up to its first pattern segment.
"""
from __future__ import annotations

import os
import shlex
import stat

from ..records import relpaths


def update_fix(cli: str, ref: str, record, problems, project_root: str) -> str | None:
    """``update REF --related-file ...`` keeping the good entries (an absolute path inside the project in its
    relative form), when refused entries are the only problems."""
    if not problems or not all(p.field.startswith("related_files") for p in problems):
        return None
    entries = record.get("related_files") if isinstance(record, dict) else None
    inside = [relpaths.repo_relative(e, project_root, project_root) if isinstance(e, str) and e.startswith(("/", "~"))
              else e for e in entries] if isinstance(entries, list) else entries
    kept = relpaths.usable(inside)
    from ..records.exposure import hide
    if any(hide(e) != e for e in kept):  # an entry holding a secret or private text is never quoted back
        return None
    args = " ".join(f"--related-file {shlex.quote(e)}" for e in kept) if kept else "--no-related-files"
    return f"{cli} update {ref} {args} (keeps the entries that are fine), or edit it: {cli} edit {ref}"


def linked_entries(project_root: str, entries, seen: dict | None = None) -> list:
    """``[(index, entry, link)]``: the entries that are, or lie under, a symbolic link (``link`` is its
    project-relative path). ``seen`` caches ``lstat`` answers across calls."""
    seen = {} if seen is None else seen
    out = []
    for i, entry in enumerate(entries[:relpaths.MAX_ENTRIES] if isinstance(entries, list) else ()):
        try:
            parts = relpaths.normalise(entry).rstrip("/").split("/")
        except ValueError:
            continue  # refused: reported as invalid
        for depth in range(1, len(parts) + 1):
            if relpaths.is_glob(parts[depth - 1]):
                break
            rel = "/".join(parts[:depth])
            if rel not in seen:
                try:
                    seen[rel] = os.lstat(os.path.join(project_root, *parts[:depth])).st_mode
                except (OSError, ValueError):
                    seen[rel] = None
            mode = seen[rel]
            if mode is not None and stat.S_ISLNK(mode):
                out.append((i, entry, rel))
                break
            if mode is None or not stat.S_ISDIR(mode):
                break
    return out
