"""Compiled code for this package kept in the user's cache folder, when Python keeps none.

Every hook is a new interpreter. Python normally caches each module's compiled code in a
``__pycache__`` folder beside it, but not with ``PYTHONDONTWRITEBYTECODE=1`` (common in
containers) nor when the plugin folder is read-only: then each run compiles the ~20 modules
a hook imports again, which costs more than the hook's own work. ``install()`` (called by
every launcher before anything else of the package is imported) checks for that case and,
only then, loads this package's modules through ``CachingLoader``, which keeps their code in
``$XDG_CACHE_HOME/team-memory/pycache`` (else ``~/.cache/team-memory/pycache``).

Why a loader of our own rather than ``sys.pycache_prefix``: with a prefix Python also looks
for the *standard library's* compiled code there (not beside it), and
``PYTHONDONTWRITEBYTECODE`` stops writing even with a prefix; clearing
``sys.dont_write_bytecode`` would lift the user's setting for every module. The loader is
installed as a path hook that answers only for this package's own folder, so the user's
setting holds for everything else, and nothing is written inside the repository or the
plugin folder. A cache file is used only when its header names this interpreter
(``sys.version``), the source's path and its exact size and modification time; it is written
atomically (temporary file + ``os.replace``), and any problem just means compiling, as before.
"""
from __future__ import annotations

import marshal
import os
import sys

try:  # the objects behind importlib.machinery, already loaded: no import to pay for
    from _frozen_importlib_external import SOURCE_SUFFIXES, FileFinder, SourceFileLoader
except ImportError:  # pragma: no cover - another implementation
    from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # team_memory/, above this layer


def cache_home() -> str:
    """Where compiled code goes: under ``$XDG_CACHE_HOME`` (absolute), else ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "team-memory", "pycache", sys.implementation.cache_tag or "python")


def python_caches_here(folder: str = PACKAGE_DIR) -> bool:
    """True when Python's own ``__pycache__`` beside the sources can be written."""
    if sys.dont_write_bytecode:
        return False
    pycache = os.path.join(folder, "__pycache__")
    return os.access(pycache if os.path.isdir(pycache) else folder, os.W_OK)


class CachingLoader(SourceFileLoader):
    """A source loader that keeps compiled code in ``cache_home()`` instead of ``__pycache__``."""

    def get_code(self, fullname):
        source_path = self.get_filename(fullname)
        st = os.stat(source_path)
        header = f"{sys.version}\n{source_path}\n{st.st_mtime_ns} {st.st_size}\n".encode("utf-8", "replace")
        cached = os.path.join(_folder, fullname + ".bin")
        try:
            with open(cached, "rb") as f:
                data = f.read()
            if data.startswith(header):
                return marshal.loads(memoryview(data)[len(header):])
        except (OSError, ValueError, EOFError, TypeError):
            pass
        code = self.source_to_code(self.get_data(source_path), source_path)
        tmp = f"{cached}.{os.getpid()}.tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(header + marshal.dumps(code))
            os.replace(tmp, cached)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return code


_folder = ""


def _path_hook(path: str):
    if path != PACKAGE_DIR:  # the package folder or one of its layer folders, nothing else
        path = os.path.abspath(path)
        if path != PACKAGE_DIR and os.path.dirname(path) != PACKAGE_DIR:
            raise ImportError("not team-memory's package folder")
    return FileFinder(path, (CachingLoader, SOURCE_SUFFIXES))


def _in_checkout(folder: str) -> bool:
    """True when ``folder`` lies in the plugin folder or in the repository Claude Code works in."""
    real = os.path.realpath(folder).replace(os.sep, "/") + "/"  # compared as / text (base.pathtext's rule)
    tops = [os.path.dirname(os.path.dirname(PACKAGE_DIR))]  # the plugin (or drop-in runtime) folder
    try:
        here = os.getcwd()  # hooks run in the project: its repository is the nearest .git above
    except OSError:
        here = None
    while here:
        if os.path.exists(os.path.join(here, ".git")):
            tops.append(here)
            break
        here = os.path.dirname(here) if os.path.dirname(here) != here else None
    return any(real.startswith(os.path.realpath(top).replace(os.sep, "/").rstrip("/") + "/") for top in tops)


def install() -> bool:
    """Load the rest of this package through ``CachingLoader`` when Python would not cache it."""
    global _folder
    if python_caches_here() or _path_hook in sys.path_hooks:
        return False
    # mirrored like ``sys.pycache_prefix``: one folder per checkout, so two versions never meet
    folder = os.path.join(cache_home(), PACKAGE_DIR.replace(":", "").lstrip("\\/"))
    if _in_checkout(folder):
        return False  # a cache folder inside the plugin or the repository: leave Python's default
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return False
    _folder = folder
    sys.path_hooks.insert(0, _path_hook)
    for package in (__package__.rpartition(".")[0], __package__):  # team_memory and this layer, loaded already
        for entry in getattr(sys.modules.get(package), "__path__", [PACKAGE_DIR]):
            sys.path_importer_cache.pop(entry, None)  # the finders that found them: ask the hooks again
    return True
