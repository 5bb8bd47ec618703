#!/usr/bin/env python3
"""Stop: ask Claude, once per stretch, to save what the conversation decided or learned. Stdlib only; always exits 0.

Run as ``python3 -S`` (see user_prompt_submit.py).
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
    from team_memory.capture.capture import on_stop
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] Stop hook disabled: {exc}", file=sys.stderr)
    sys.exit(0)
gc.freeze()  # ... nor a look at them later (nor at exit): collect only what the hook makes
gc.enable()

if __name__ == "__main__":
    sys.exit(run_hook("Stop", on_stop))
