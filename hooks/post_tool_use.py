#!/usr/bin/env python3
"""PostToolUse: report memory files a tool changed anyway (invalid, removed, rewritten; never moves
one), and recall the memories tied to the file a tool read or wrote. Stdlib only; always exits 0.

Run as ``python3 -S`` (see user_prompt_submit.py). The guard part exits at once, before the
guard is imported, when the call cannot concern a memory store (most calls); recall by file
is one look-up in the derived file map (``tooluse.posttool``).
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
    from team_memory.tooluse.posttool import run_post_tool_use
except Exception as exc:  # a broken install must never break the session
    print(f"[team-memory] write check disabled: {exc}", file=sys.stderr)
    sys.exit(0)
gc.freeze()  # ... nor a look at them later (nor at exit): collect only what the hook makes
gc.enable()

if __name__ == "__main__":
    sys.exit(run_post_tool_use())
