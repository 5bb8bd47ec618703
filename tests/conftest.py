"""Every test runs against a store in ``tmp_path``; HOME and the working folder are moved there too,
so nothing a test does can touch the real home directory or the checkout."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def _isolate(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)  # compiled hook code (bytecache) under the test home
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def project(tmp_path):
    """An empty project with a memory store: returns the project folder."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "memory").mkdir(parents=True)
    return root


@pytest.fixture
def memory_root(project):
    return project / ".claude" / "memory"
