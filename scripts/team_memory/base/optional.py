"""Optional extras (``rapidfuzz``) under ``python3 -S``: on the first miss, the site-packages folders, then
``site.main()``; code that never needs the extra pays nothing.
"""
from __future__ import annotations

import os
import sys

_site_done = False


def _imported(name: str):
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def import_optional(name: str):
    """The module ``name``, or None when it is not installed."""
    global _site_done
    module = _imported(name)
    if module is not None or not sys.flags.no_site or _site_done:
        return module
    import importlib
    import site
    candidates = site.getsitepackages() + ([] if sys.flags.no_user_site else [site.getusersitepackages()])
    folders = [d for d in candidates if d not in sys.path and os.path.isdir(d)]
    sys.path.extend(folders)
    importlib.invalidate_caches()
    module = _imported(name)
    if module is None:
        for d in folders:
            sys.path.remove(d)
        _site_done = True
        site.main()
        module = _imported(name)
    return module
