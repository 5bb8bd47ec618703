"""The CLI's advice works when followed: two files with one id can each be named (category/id, folder/id or
a path) and doctor --fix renames the copy; show prints what update needs; errors point to the right command."""
from __future__ import annotations

import json

from helpers import record, write
from team_memory.cli.main import main


def _two_files_one_id(memory_root):
    a = write(memory_root, record("decision", "redis", "Use Redis for sessions", tags=["redis"]))
    b = write(memory_root, record("constraint", "redis", "Redis must stay under 1 GB", tags=["redis"]))
    return a, b


def test_each_of_two_files_with_one_id_can_be_named(project, memory_root, capsys, monkeypatch):
    a, b = _two_files_one_id(memory_root)
    for ref in ("constraint/redis", "constraints/redis", ".claude/memory/constraints/redis.json", str(b)):
        monkeypatch.chdir(project)
        assert main(["show", ref, "--root", str(project)]) == 0, ref
        assert "Redis must stay under 1 GB" in capsys.readouterr().out, ref
    assert main(["show", "redis", "--root", str(project)]) == 0  # a bare id: the first folder's
    assert "Use Redis for sessions" in capsys.readouterr().out
    assert main(["retire", "constraints/redis", "--reason", "no longer true", "--root", str(project)]) == 0
    assert json.loads(b.read_text())["record_status"] == "retired"
    assert json.loads(a.read_text())["record_status"] == "active"
    assert main(["update", "decision/redis", "--title", "Use Redis for web sessions", "--root", str(project)]) == 0
    assert json.loads(a.read_text())["title"] == "Use Redis for web sessions"
    # a reference never leaves the store's category folders
    for ref in ("../../etc/passwd", "nowhere/redis", "/etc/hostname", ".claude/memory/.cache/redis.json"):
        assert main(["show", ref, "--root", str(project)]) == 1, ref
        assert "no memory with id" in capsys.readouterr().err


def test_doctor_fix_renames_the_copy(project, memory_root, capsys):
    a, b = _two_files_one_id(memory_root)
    assert main(["doctor", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "decisions/redis or constraints/redis" in out and "--fix gives the later one(s) a new id (redis-2)" in out
    before = json.loads(b.read_text())
    assert main(["doctor", "--fix", "--root", str(project)]) == 0, capsys.readouterr().out
    assert not b.exists() and a.exists()
    renamed = json.loads((memory_root / "constraints" / "redis-2.json").read_text())
    assert renamed["id"] == "redis-2" and renamed["title"] == before["title"] and renamed["content"] == before["content"]
    assert "renamed from redis" in renamed["changes"][-1]["summary"]
    assert main(["doctor", "--root", str(project)]) == 0
    assert ".claude/memory/constraints/redis-2.json" in (memory_root / "index.md").read_text()


def test_doctor_does_not_offer_a_rename_it_cannot_do(project, memory_root, capsys):
    a, b = _two_files_one_id(memory_root)
    b.write_text(b.read_text().replace('"constraint"', '"decision"', 1))  # invalid for its folder
    assert main(["doctor", "--fix", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "fix the invalid one first" in out and "edit constraints/redis" in out
    assert b.exists() and not (memory_root / "constraints" / "redis-2.json").exists()


def test_show_prints_the_hash_and_everything_update_and_history_need(project, memory_root, capsys):
    rec = record("decision", "use-redis", "Use Redis", tags=["redis"], confidence=0.8,
                 related_files=["src/session.py"], changes=[{"date": "2026-01-02T00:00:00Z", "summary": "first draft"}])
    path = write(memory_root, rec)
    assert main(["show", "use-redis", "--root", str(project)]) == 0
    out = capsys.readouterr().out
    from team_memory.edits.write import content_hash
    digest = content_hash(str(path))[:12]
    assert f"hash: {digest}" in out and "confidence: 0.8" in out and "related files: src/session.py" in out
    assert "history:" in out and "first draft" in out
    assert main(["update", "use-redis", "--title", "Use Redis 7", "--expect-hash", digest, "--root", str(project)]) == 0
    assert main(["retire", "use-redis", "--reason", "moved to Valkey", "--root", str(project)]) == 0
    capsys.readouterr()
    assert main(["show", "use-redis", "--root", str(project)]) == 0
    assert "moved to Valkey" in capsys.readouterr().out


def test_update_errors_say_what_to_do(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis", tags=["redis"]))
    assert main(["update", "use-redis", "--expect-hash", "not-a-hash!", "--title", "X", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert "is not a hash" in err and "changed since" not in err
    assert main(["update", "use-redis", "--expect-hash", "0" * 12, "--title", "X", "--root", str(project)]) == 1
    assert "changed since it was read" in capsys.readouterr().err
    assert main(["update", "use-redis", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert "--content-file" in err and "--related-file" in err and "--confidence" in err


def test_restore_of_an_archived_memory_points_to_unarchive(project, memory_root, capsys):
    write(memory_root, record("decision", "q3", "Q3 plan", tags=["plan"]))
    assert main(["archive", "q3", "--reason", "done", "--root", str(project)]) == 0
    capsys.readouterr()
    assert main(["restore", "q3", "--root", str(project)]) == 1
    assert "unarchive q3" in capsys.readouterr().err


def test_a_second_memory_with_the_same_title_points_to_similar_and_update(project, memory_root, capsys):
    args = ["add", "--category", "decision", "--title", "Use Redis", "--tag", "redis",
            "--content-json", json.dumps(record("decision", "x", "x")["content"]), "--root", str(project)]
    assert main(args) == 0
    assert "note" not in capsys.readouterr().out
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "created use-redis-2" in out and "'use-redis' already exists" in out and "similar" in out
