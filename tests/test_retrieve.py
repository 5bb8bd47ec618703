"""Retrieval fixes over the seed: retired/archived never shown, escapes ignored, bounded output."""
from __future__ import annotations

import os
import time

from helpers import record, write
from seed_scorer import SeedScorer
from team_memory.base.config import load_config, max_inject
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.retrieve import context_for_prompt
from team_memory.recall.block import format_block
from team_memory.recall.rank import rank


def _freeze_index(memory_root):
    future = time.time() + 3600
    os.utime(memory_root / "index.md", (future, future))


def test_retired_and_archived_never_shown_at_any_rank(memory_root):
    for i in range(25):
        write(memory_root, record("decision", f"m{i:02d}", f"kafka topic {i:02d}", ["kafka"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    # Retire ranks 1-10 and 21-25 behind the index's back (a stale index lists them as active).
    for i in list(range(10)) + list(range(20, 25)):
        status = "retired" if i % 2 else "archived"
        write(memory_root, record("decision", f"m{i:02d}", f"kafka topic {i:02d}", ["kafka"], record_status=status))
    _freeze_index(memory_root)
    hits = rank(str(memory_root), config, "kafka topic question", 20, strategy=SeedScorer(config))
    ids = [h.entry["path"].rsplit("/", 1)[1][:-5] for h in hits]
    assert ids == [f"m{i:02d}" for i in range(10, 20)]


def test_missing_or_broken_files_behind_index_are_not_printed(memory_root):
    write(memory_root, record("decision", "real", "kafka partitions", ["kafka"]))
    p = write(memory_root, record("decision", "broken", "kafka brokers", ["kafka"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    p.write_text("{oops")
    (memory_root / "index.md").write_text((memory_root / "index.md").read_text() +
                                          "- [DECISION] kafka ghost -> .claude/memory/decisions/ghost.json #tags:kafka\n"
                                          "- [DECISION] kafka passwd -> /etc/passwd #tags:kafka\n"
                                          "- [DECISION] kafka up -> .claude/memory/../../../x.json #tags:kafka\n")
    _freeze_index(memory_root)
    hits = rank(str(memory_root), config, "kafka cluster", 10, strategy=SeedScorer(config))
    assert [h.entry["title"] for h in hits] == ["kafka partitions"]


def test_block_is_bounded_in_lines_and_characters(memory_root):
    for i in range(30):
        write(memory_root, record("runbook", f"r{i:02d}", f"kafka {'x' * 100} {i}", ["kafka"] + [f"t{j}" * 8 for j in range(11)]))
    config = load_config(str(memory_root))
    config["retrieval"]["max_inject"] = 20
    hits = rank(str(memory_root), config, "kafka consumer lag", max_inject(config), strategy=SeedScorer(config))
    assert len(hits) == 20
    block = format_block(hits, config)
    assert len(block) <= 4000
    assert block.startswith('<memory-context source=".claude/memory/"') and block.endswith("</memory-context>\n")
    assert 0 < block.count("\n- [") < 20


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
