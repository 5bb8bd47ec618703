#!/usr/bin/env python3
"""UserPromptSubmit: print the memories relevant to the prompt. Stdlib only; always exits 0.

hooks.json runs it as ``python3 -S``: without ``site`` the interpreter starts in a fraction
of the time, and nothing here needs site-packages (an optional extra that does loads
``site`` itself, when it needs it). ``os.path`` rather than ``pathlib`` for the same reason.
Its command is ``python3 -S ... || python -S ... || py -3 -S ...`` (the first interpreter that
exists and runs it); under a Python older than 3.9 every launcher exits 1 at once, so the next
one in that chain is tried.
"""
import gc
import os
import sys

if sys.version_info < (3, 9):  # exit 1, so hooks.json's command tries the next interpreter (python, py -3)
    sys.exit("[team-memory] needs Python 3.9 or newer, not " + sys.version.split()[0])
gc.disable()  # the imports below make thousands of objects that live to the end: no collection pays

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "scripts"))
try:
    from team_memory.base import bytecache
    bytecache.install()  # compiled code in the user's cache when Python keeps none (see bytecache)
    from team_memory.records.hookio import run_hook
    from team_memory.recall.retrieve import context_for_prompt
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] retrieval disabled: {exc}", file=sys.stderr)
    sys.exit(0)
gc.freeze()  # ... nor a look at them later (nor at exit): collect only what the hook makes
gc.enable()

if __name__ == "__main__":
    sys.exit(run_hook("UserPromptSubmit", context_for_prompt))
