#!/usr/bin/env python3
"""SessionStart: a short orientation: what the store holds, how to save. Always exits 0 (see launch.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
try:
    from launch import run
except ImportError as exc:  # a broken install must never break the session
    sys.stderr.write("[team-memory] hook disabled: %s\n" % exc)
    sys.exit(0)

if __name__ == "__main__":
    run("SessionStart")
