"""Path text compared in one spelling: ``/`` between parts, whatever the platform (``tests/platform_mask.py``)."""
from __future__ import annotations

import os

_OTHER = tuple(s for s in (os.sep, os.altsep) if s and s != "/")


def slashed(path: str) -> str:
    """``path`` with ``/`` between its parts (on Linux and macOS: ``path`` itself)."""
    for sep in _OTHER or ((os.sep,) if os.sep != "/" else ()):
        path = path.replace(sep, "/")
    return path


def inside(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or lies under it, as text (nothing resolved)."""
    path, root = slashed(path), slashed(root).rstrip("/")
    return path == root or path.startswith(root + "/")
