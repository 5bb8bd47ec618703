#!/usr/bin/env python3
"""The one launcher of the five hook scripts: ``hooks/<event>.py`` calls ``run("<Event>")``.

Stdlib only; a hook always exits 0, whatever goes wrong (one line on stderr), except under a Python
older than 3.9: then it exits 1 at once, so hooks.json's command (``python3 -S ... || python -S ...
|| py -3 -S ...``) tries the next interpreter; Claude Code blocks only on exit 2, so even the last
one failing never blocks the session. This file parses on any Python 3 (no newer syntax before the
check). Hooks run as ``python3 -S``: no ``site``, a fraction of the start-up time.
"""
import gc
import os
import sys

if sys.version_info < (3, 9):
    sys.exit("[team-memory] needs Python 3.9 or newer, not " + sys.version.split()[0])

# event -> its handler module in team_memory.handlers
HANDLERS = {"UserPromptSubmit": "user_prompt_submit", "SessionStart": "session_start", "Stop": "stop",
            "PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}


def run(event):
    """Run ``event``'s handler through the fail-open boundary (``records.hookio.run_hook``) and exit."""
    gc.disable()  # the imports below make thousands of objects that live to the end: no collection pays
    scripts = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "scripts")
    sys.path.insert(0, scripts)
    try:
        if not _python_caches(os.path.join(scripts, "team_memory")):
            from team_memory.base import bytecache
            bytecache.install()  # compiled code in the user's cache when Python keeps none (see bytecache)
        from team_memory.records.hookio import run_hook
        handler = __import__("team_memory.handlers." + HANDLERS[event], fromlist=["handle"]).handle
    except Exception as exc:  # a broken install must never break the session
        print("[team-memory] %s hook disabled: %s" % (event, exc), file=sys.stderr)
        sys.exit(0)
    gc.freeze()  # ... nor a look at them later (nor at exit): collect only what the hook makes
    gc.enable()
    sys.exit(run_hook(event, handler))


def _python_caches(package):
    """``bytecache.python_caches_here``, without importing it where Python keeps compiled code itself (0.2 ms of a
    tool hook's 1.4x budget, docs/benchmarks.md)."""
    if sys.dont_write_bytecode:
        return False
    pycache = os.path.join(package, "__pycache__")
    return os.access(pycache if os.path.isdir(pycache) else package, os.W_OK)
