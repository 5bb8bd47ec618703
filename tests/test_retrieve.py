"""Retrieval fixes over the seed: retired/archived never shown, escapes ignored, bounded output."""
from __future__ import annotations

import os
import time

from helpers import record, write
from team_memory.base.config import load_config, max_inject
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.retrieve import context_for_prompt
from team_memory.recall.block import format_block
from team_memory.recall.rank import rank


def _freeze_index(memory_root):
    future = time.time() + 3600
    os.utime(memory_root / "index.md", (future, future))


def test_max_inject_clamped_and_bad_values_fall_back(capsys):
    assert max_inject({"retrieval": {"max_inject": 99}}) == 20
    assert max_inject({"retrieval": {"max_inject": -3}}) == 0
    assert max_inject({"retrieval": {"max_inject": "seven"}}) == 5
    assert max_inject({"retrieval": {"max_inject": 1e400}}) == 5
    assert "invalid retrieval.max_inject" in capsys.readouterr().err


def test_broken_config_uses_defaults(memory_root, capsys):
    write(memory_root, record("decision", "k", "kafka retention policy", ["kafka"]))
    (memory_root / "memory-config.json").write_text("{broken")
    out = context_for_prompt({"prompt": "what is our kafka retention?", "cwd": str(memory_root.parent.parent)})
    assert "kafka retention policy" in out
    assert "config" in capsys.readouterr().err


def test_store_found_upward_but_not_past_repository_root(project, memory_root, tmp_path):
    write(memory_root, record("decision", "k", "kafka retention policy", ["kafka"]))
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert context_for_prompt({"prompt": "kafka retention please", "cwd": str(sub)})
    other = tmp_path / "outer" / "repo"
    (other / ".git").mkdir(parents=True)
    (tmp_path / "outer" / ".claude" / "memory" / "decisions").mkdir(parents=True)
    write(tmp_path / "outer" / ".claude" / "memory", record("decision", "k", "kafka retention policy", ["kafka"]))
    assert context_for_prompt({"prompt": "kafka retention please", "cwd": str(other)}) is None


def test_prompt_falls_back_to_user_prompt_and_cwd_to_env(project, memory_root, monkeypatch):
    write(memory_root, record("decision", "k", "kafka retention policy", ["kafka"]))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    assert "kafka" in context_for_prompt({"user_prompt": "kafka retention please"})


def test_disabled_category_not_indexed(memory_root):
    write(memory_root, record("decision", "k", "kafka retention policy", ["kafka"]))
    (memory_root / "memory-config.json").write_text('{"categories": {"decision": {"enabled": false}}}')
    assert context_for_prompt({"prompt": "kafka retention please", "cwd": str(memory_root.parent.parent)}) is None
