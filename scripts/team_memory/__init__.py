"""team-memory: a drop-in, git-committed memory folder for Claude Code.

The package is the shared core imported by every hook launcher in ``hooks/``
and by the CLI launcher ``scripts/memory.py``. Runtime code uses only the
Python standard library (rapidfuzz is an optional extra, imported lazily).
"""
from __future__ import annotations

__version__ = "0.9.2"
