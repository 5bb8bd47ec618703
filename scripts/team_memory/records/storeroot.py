"""Where a store is: the nearest ``.claude/memory`` folder, the repository and project roots.

Apart from ``store`` (which re-exports them) so a hook that only needs to find the store, such
as recall by file on a Read, does not load the configuration and the record reader.
"""
from __future__ import annotations

import os

from ..base.model import MEMORY_REL
from ..base.safefs import check_store


def find_memory_root(start: str | None = None) -> str | None:
    """The nearest ``.claude/memory`` folder at or above ``start``, not above the repository root.

    The walk starts from ``start``'s real path, so a linked folder in the working tree cannot
    lead it elsewhere; a store reached through a link (``.claude`` or ``.claude/memory``) raises
    ``safefs.UnsafeStore`` rather than being used (see ``safefs``).
    """
    start = os.path.realpath(start or os.getcwd())
    here = start
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    home = os.path.realpath(os.path.expanduser("~"))
    for folder in folders_up(here):
        candidate = os.path.join(folder, *MEMORY_REL)
        # ~/.claude is Claude Code's own settings folder: only a store when we start there.
        if os.path.lexists(candidate) and (folder != home or folder == start):
            return check_store(candidate)
        if os.path.exists(os.path.join(folder, ".git")):
            return None
    return None


def folders_up(path: str):
    """``path`` (absolute), its parent, and so on up to the file system root."""
    here = os.path.abspath(path)
    while True:
        yield here
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent


def repo_root_of(start: str) -> str | None:
    """The nearest folder at or above ``start`` that holds ``.git`` (a repository or worktree root), or None."""
    for folder in folders_up(start):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
    return None


def project_root_of(memory_root: str) -> str:
    """``<project>/.claude/memory`` -> ``<project>``."""
    return os.path.dirname(os.path.dirname(os.path.abspath(memory_root)))
