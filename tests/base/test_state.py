"""Runtime state lives outside the repository, per store and session, and reads loosely."""
from __future__ import annotations

import os

from team_memory.base import state


def test_round_trip_outside_repo(memory_root, tmp_path, monkeypatch):
    monkeypatch.setenv("TEAM_MEMORY_STATE_DIR", str(tmp_path / "st"))
    assert state.load_state(str(memory_root), "triage", "s1") == {}
    state.save_state(str(memory_root), "triage", "s1", {"offset": 42})
    assert state.load_state(str(memory_root), "triage", "s1") == {"offset": 42}
    assert state.load_state(str(memory_root), "triage", "s2") == {}
    path = state.state_path(str(memory_root), "triage", "s1")
    assert str(tmp_path / "st") in path and str(memory_root) not in path


def test_corrupt_state_reads_empty(memory_root, tmp_path, monkeypatch):
    monkeypatch.setenv("TEAM_MEMORY_STATE_DIR", str(tmp_path / "st"))
    path = state.state_path(str(memory_root), "k", "s")
    os.makedirs(os.path.dirname(path))
    open(path, "w").write("[not an object")
    assert state.load_state(str(memory_root), "k", "s") == {}


def test_default_location_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("TEAM_MEMORY_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state.state_home() == str(tmp_path / "xdg" / "team-memory")


def test_digest_is_hashlib_sha256_without_loading_openssl():
    import hashlib
    import subprocess
    import sys
    from helpers import REPO
    from team_memory.base.state import sha256_hex
    for data in (b"", b"abc", "é日本".encode(), bytes(range(256)) * 40):
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    code = ("import sys; sys.path.insert(0, %r); from team_memory.base.state import sha256_hex;"
            "sha256_hex(b'x'); print('_hashlib' in sys.modules)") % str(REPO / "scripts")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=30).stdout
    assert out.strip() == "False"
