"""Retrieval fixes over the seed: retired/archived never shown, escapes ignored, bounded output."""
from __future__ import annotations

import os
import time

from helpers import record, write
from team_memory.base.config import load_config, max_inject
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.retrieve import context_for_prompt
from team_memory.recall.block import format_block
from team_memory.recall.retrieve import rank


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


def test_a_big_store_without_a_cache_is_built_in_the_background(memory_root, monkeypatch, capsys):
    """A fresh clone of a big store: the hook hands the first build to a detached process and answers
    nothing at once (reading every file could outlast the client's hook time-out); once the cache is
    written, recall works. A store with a cache, or a small one, is never handed over."""
    from team_memory.derived.cache import cache_path
    from team_memory.recall import retrieve
    for i in range(6):
        write(memory_root, record("decision", f"kafka-{i}", f"Kafka retention rule {i}", ["kafka"]))
    payload = {"prompt": "what is our kafka retention rule?", "cwd": str(memory_root.parent.parent)}
    monkeypatch.setattr(retrieve, "COLD_FILES", 5)
    assert not os.path.exists(cache_path(str(memory_root)))
    assert context_for_prompt(payload) is None
    assert "being built in the background" in capsys.readouterr().err
    deadline = time.time() + 30
    while not os.path.exists(cache_path(str(memory_root))) and time.time() < deadline:
        time.sleep(0.05)
    assert os.path.exists(cache_path(str(memory_root))), "the background build wrote no cache"
    assert "Kafka retention rule" in context_for_prompt(dict(payload, session_id="later"))
    monkeypatch.setattr(retrieve, "COLD_FILES", 6)  # six files: not over the bar
    os.remove(cache_path(str(memory_root)))
    assert "Kafka retention rule" in context_for_prompt(dict(payload, session_id="small"))
    assert "background" not in capsys.readouterr().err
