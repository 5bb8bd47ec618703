"""team-memory: a drop-in, git-committed memory folder for Claude Code.

The shared core that every hook launcher in ``hooks/`` and the CLI launcher ``scripts/memory.py`` import;
runtime code uses only the Python standard library (rapidfuzz is an optional extra, imported lazily).
"""
from __future__ import annotations

__version__ = "0.9.3"
