"""Optional extras (``rapidfuzz``) for code that may run without ``site``.

The hook runs as ``python3 -S`` so the interpreter starts fast, which also leaves
site-packages off ``sys.path``. Code that wants an optional extra calls
``import_optional(name)`` at the moment it needs it: the first miss under ``-S`` runs
``site.main()`` (adding site-packages and ``.pth`` files, as a normal start would) and
tries again. Nothing is paid on the common path that never needs the extra.
"""
from __future__ import annotations

import sys


def import_optional(name: str):
    """The module ``name``, or None when it is not installed."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        pass
    if sys.flags.no_site and "site" not in sys.modules:
        import site
        site.main()
        try:
            return importlib.import_module(name)
        except ImportError:
            return None
    return None
