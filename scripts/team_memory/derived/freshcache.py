"""The hook's one call: ``fresh_cache``, an up-to-date machine cache within a time budget.

``freshness.stale_folders`` says whether the cache still matches ``index.md``, the
configuration, every category folder and every memory file; a changed folder is patched in
(``patch``), anything else rebuilt (``upkeep``). It never waits for the store lock: when
another process holds it, it works from what is on disk. Upkeep that takes longer than the
hook's budget is handed to a detached process (``finish_in_background``) under the lock.
"""
from __future__ import annotations

import os
import time

from . import cache as cachemod
from .cache import Cache, CacheInvalid
from .freshness import cache_compatible, stale_folders
from ..base.config import category_folders, warn


HOOK_BUDGET_S = 2.0  # seconds of upkeep a hook may spend before it hands the rest over


BUDGET_ENV = "TEAM_MEMORY_HOOK_BUDGET"


class Building(Exception):
    """No usable cache yet: it is being built (in the background, or by another process)."""


def hook_budget() -> float:
    """The hook's upkeep budget in seconds: ``$TEAM_MEMORY_HOOK_BUDGET``, else ``HOOK_BUDGET_S``."""
    try:
        return max(0.0, float(os.environ.get(BUDGET_ENV) or HOOK_BUDGET_S))
    except ValueError:
        return HOOK_BUDGET_S


def _checked(path: str, config: dict, strategy, unsure: bool = True):
    """``(cache | None, compatible, stale folders | None)`` of the cache at ``path``."""
    try:
        cache = Cache(path)
    except CacheInvalid:
        return None, False, None
    try:
        from .filemap import head_is_sound
        ok = cache_compatible(cache, config, strategy) and head_is_sound(os.path.dirname(os.path.dirname(path)))
        return cache, ok, stale_folders(cache, category_folders(config), unsure=unsure) if ok else None
    except (KeyError, TypeError, ValueError, CacheInvalid):
        return cache, False, None


def fresh_cache(memory_root: str, config: dict, strategy, budget=None):
    """An up-to-date cache for the hook, or None to fall back to the plain path. Never waits.

    Brings the cache up to date under the store lock when the lock is free. With ``budget``
    (seconds; the hook's), upkeep that takes longer is handed to a detached background
    process (``finish_in_background``) and the caller gets what is ready: the cache as it
    was when it is usable (stale), else ``Building``. Without a budget (the CLI) it works
    to the end. When another process holds the lock: the cache on disk if usable, else
    ``Building`` with a budget, None without.
    """
    path = cachemod.cache_path(memory_root)
    cache, ok, stale = _checked(path, config, strategy)
    if ok and not stale:
        return cache
    _close(cache)
    from ..base.fsutil import LockBusy, store_lock
    # the upkeep, only when something changed (the prompt hook on a current cache loads none of it)
    from .patch import apply_changes_locked
    from .reader import OutOfTime
    from .upkeep import rebuild_locked
    try:
        with store_lock(memory_root, blocking=False):
            deadline = None if budget is None else time.monotonic() + budget
            if ok:
                apply_changes_locked(memory_root, config, (), strategy, deadline=deadline, stale=stale)
            else:
                rebuild_locked(memory_root, config, strategy, deadline)
    except OutOfTime:
        why = ("the index is being built in the background" if hand_over(memory_root)
               else "the index could not be built within the hook's time")
        cache = _ready(path, config, strategy, budget, why)
        if cache is not None:
            warn(f"{why}; recalled from it as it was")
        return cache
    except LockBusy:  # a writer (or a background build) is at work: use what is on disk
        return _ready(path, config, strategy, budget, "another process is building the index")
    except OSError:  # a read-only checkout, say
        return None
    cache, ok, _ = _checked(path, config, strategy)
    return cache if ok else _close(cache)


def _ready(path: str, config: dict, strategy, budget, why: str):
    """The cache on disk when it suits this configuration (possibly stale), else ``Building``/None."""
    cache, ok, _ = _checked(path, config, strategy)
    if ok:
        return cache
    _close(cache)
    if budget is not None:
        raise Building(why)
    return None


def hand_over(memory_root: str, module: str = "team_memory.derived.freshcache",
              function: str = "finish_in_background") -> bool:
    """Start ``module.function(memory_root)`` (by default ``finish_in_background``) in a detached
    process; False when it cannot be started.

    Its own session (a hook's time-out kills the hook, not it), no inherited pipes (the
    client waits for none of them: ``base.detach``); the function takes its lock itself, or
    leaves when busy. At most one is started for ``function`` within ``startgate.LIFETIME_S``
    seconds, however many hooks ask at once (a marker in ``.cache``, ``base.startgate``).
    ``module`` and ``function`` are this package's own names, never text from a file.
    """
    import sys
    from ..base.detach import start_detached
    from ..base.startgate import first_to_start
    folder = os.path.join(memory_root, cachemod.CACHE_DIR)
    try:
        if not os.path.isdir(folder) or os.path.islink(folder):
            from .cachewrite import cache_folder
            folder = cache_folder(memory_root)  # (made with its .gitignore; never a link)
    except OSError:
        return False
    marker = f"{function}.starting"
    claim = first_to_start(folder, marker)
    if not claim:
        return False  # another hook started it moments ago
    scripts = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = (f"import sys; sys.path.insert(0, sys.argv[1]); from team_memory.base.startgate import run_then_release; "
            f"run_then_release('{module}', '{function}', *sys.argv[2:])")
    if start_detached([sys.executable or "python3", "-S", "-c", code, scripts, memory_root, folder, marker, str(claim)]):
        return True
    from ..base.startgate import release
    release(folder, marker, claim)  # nothing started: the next hook may try
    return False


def finish_in_background(memory_root: str) -> int:
    """The upkeep a hook handed over: bring ``index.md`` and the cache up to date under the
    store lock, with no time limit. Leaves at once when another process holds the lock."""
    from ..base.config import load_config
    from ..base.fsutil import LockBusy, store_lock
    from .patch import apply_changes_locked
    config = load_config(memory_root)
    try:
        with store_lock(memory_root, blocking=False):
            apply_changes_locked(memory_root, config, check_all=True)
    except LockBusy:
        return 1
    return 0


def cache_is_current(memory_root: str, config: dict) -> bool:
    """True when the cache suits ``config`` and every memory file is the one it recorded
    (a file stamped too recently to be sure of counts as current: the hook re-checks it)."""
    from ..text.features import features_for
    cache, ok, stale = _checked(cachemod.cache_path(memory_root), config, features_for(config), unsure=False)
    _close(cache)
    return ok and not stale


def _close(cache):
    if cache is not None:
        cache.close()
    return None
