"""doctor, gc and stats on real stores."""
from __future__ import annotations

import json
import os
import time

import pytest

from helpers import record, write
from team_memory.cli.main import main


def run_json(capsys, *argv):
    code = main([*map(str, argv), "--json"])
    return code, json.loads(capsys.readouterr().out)


def kinds(result) -> dict:
    out = {}
    for f in result["findings"]:
        out.setdefault(f["kind"], []).append(f)
    return out


def test_doctor_on_a_healthy_store_exits_0(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis", tags=["redis"]))
    assert main(["rebuild", "--root", str(project)]) == 0
    capsys.readouterr()
    code, result = run_json(capsys, "doctor", "--root", project)
    assert code == 0 and result == {"ok": True, "findings": []}


def test_doctor_finds_every_kind_of_problem_and_fixes_the_safe_ones(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis for sessions", tags=["redis"]))
    write(memory_root, record("decision", "use-redis-2", "Use Redis for session", tags=["redis"]))
    write(memory_root, record("runbook", "use-redis", "Same id, other folder", tags=["x"]))
    write(memory_root, record("preference", "broken", "Broken", tags=["x"]), raw='{"title": "Broken", "tags": 3}')
    leaky = record("constraint", "leaky", "Leaky", tags=["x"])
    leaky["content"]["rule"] = "call with password=hunter2hunter2 please"
    write(memory_root, leaky)
    write(memory_root, record("tech_debt", "conflicted", "Conflicted", tags=["x"]),
          raw='<<<<<<< HEAD\n{"title": "a"}\n=======\n{"title": "b"}\n>>>>>>> branch\n')
    (memory_root / ".quarantine" / "decisions").mkdir(parents=True)
    (memory_root / ".quarantine" / "decisions" / "y.json").write_text('{"title": "y"}')
    temp = memory_root / "decisions" / ".use-redis.json.abcd1234.tmp"
    temp.write_text("half")
    os.utime(temp, (time.time() - 3600, time.time() - 3600))
    fresh_temp = memory_root / "decisions" / ".use-redis.json.efgh5678.tmp"
    fresh_temp.write_text("a live writer")

    code, result = run_json(capsys, "doctor", "--root", project)
    found = kinds(result)
    assert code == 1 and result["ok"] is False
    assert set(found) == {"stale-index", "invalid", "quarantined", "duplicate-id", "near-duplicate", "leak",
                          "temp-file", "conflict"}
    assert {f["path"] for f in found["invalid"]} == {".claude/memory/preferences/broken.json",
                                                     ".claude/memory/tech-debt/conflicted.json"}
    assert found["duplicate-id"][0]["path"] == ".claude/memory/decisions/use-redis.json, .claude/memory/runbooks/use-redis.json"
    assert found["near-duplicate"][0]["warning"] is True
    assert found["leak"][0]["path"].endswith("constraints/leaky.json") and "hunter2" not in json.dumps(result)
    assert [f["path"] for f in found["temp-file"]] == [".claude/memory/decisions/.use-redis.json.abcd1234.tmp"]

    code, result = run_json(capsys, "doctor", "--root", project, "--fix")
    fixed = {f["kind"] for f in result["findings"] if f["fixed"]}
    assert code == 1 and fixed == {"stale-index", "temp-file", "leak", "duplicate-id"}
    assert not temp.exists() and fresh_temp.exists()
    assert (memory_root / "runbooks" / "use-redis-3.json").exists()  # use-redis-2 was taken
    stored = json.loads((memory_root / "constraints" / "leaky.json").read_text())
    assert "hunter2" not in json.dumps(stored) and "[REDACTED]" in stored["content"]["rule"]
    assert stored["changes"][-1]["summary"].startswith("doctor: ")
    assert (memory_root / "index.md").exists()

    code, result = run_json(capsys, "doctor", "--root", project)
    assert set(kinds(result)) == {"invalid", "quarantined", "near-duplicate", "conflict"}


def test_doctor_rebuilds_a_conflicted_index_and_warnings_do_not_fail(project, memory_root, capsys):
    write(memory_root, record("decision", "a", "Use Redis for sessions", tags=["redis"]))
    write(memory_root, record("decision", "b", "Use Redis for session", tags=["redis"]))
    assert main(["rebuild", "--root", str(project)]) == 0
    index = memory_root / "index.md"
    index.write_text(index.read_text() + "<<<<<<< HEAD\n=======\n>>>>>>> other\n")
    capsys.readouterr()
    assert main(["doctor", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "conflict" in out and "warning  near-duplicate" in out
    assert main(["doctor", "--root", str(project), "--fix"]) == 0
    assert "<<<<<<<" not in index.read_text()
    capsys.readouterr()
    assert main(["doctor", "--root", str(project)]) == 0
    out = capsys.readouterr().out
    assert "warning  near-duplicate" in out and "healthy" not in out and "1 warning(s) above" in out
    assert main(["doctor", "--root", str(project), "--strict"]) == 1


def test_gc_deletes_only_memories_retired_past_the_grace_period(project, memory_root, capsys):
    old = write(memory_root, record("decision", "old", "Old", tags=["x"], record_status="retired",
                                    retired_at="2020-01-01T00:00:00Z", retired_reason="gone"))
    recent = write(memory_root, record("decision", "recent", "Recent", tags=["x"]))
    assert main(["retire", "recent", "--root", str(project), "--reason", "just now"]) == 0
    no_date = write(memory_root, record("decision", "nodate", "No date", tags=["x"], record_status="retired"))
    active = write(memory_root, record("decision", "active", "Active", tags=["x"], days_ago=4000))
    capsys.readouterr()
    code, result = run_json(capsys, "gc", "--root", project, "--dry-run")
    assert code == 0 and [i["id"] for i in result["deleted"]] == ["old"] and result["grace_period_days"] == 30
    assert old.exists()
    code, result = run_json(capsys, "gc", "--root", project)
    assert code == 0 and [i["id"] for i in result["deleted"]] == ["old"]
    assert not old.exists() and recent.exists() and no_date.exists() and active.exists()
    assert main(["gc", "--root", str(project), "--older-than", "0"]) == 0
    assert "deleted recent" in capsys.readouterr().out and not recent.exists()
    assert main(["gc", "--root", str(project), "--older-than", "-1"]) == 2


def test_gc_reads_the_grace_period_from_the_config(project, memory_root, capsys):
    (memory_root / "memory-config.json").write_text(json.dumps({"delete": {"grace_period_days": 5000}}))
    write(memory_root, record("decision", "old", "Old", tags=["x"], record_status="retired",
                              retired_at="2020-01-01T00:00:00Z", retired_reason="gone"))
    code, result = run_json(capsys, "gc", "--root", project)
    assert result["deleted"] == [] and result["grace_period_days"] == 5000


def test_stats_counts_categories_statuses_tags_and_ages(project, memory_root, capsys):
    write(memory_root, record("decision", "a", "A", tags=["redis", "cache"], days_ago=10))
    write(memory_root, record("decision", "b", "B", tags=["redis"], days_ago=5, record_status="archived",
                              archived_at="2026-01-01T00:00:00Z", archived_reason="done"))
    write(memory_root, record("runbook", "c", "C", tags=["redis"], days_ago=1))
    code, stats = run_json(capsys, "stats", "--root", project)
    assert code == 0 and stats["total"] == 3
    assert stats["by_status"] == {"active": 2, "retired": 0, "archived": 1}
    assert stats["by_category"]["decision"] == {"active": 1, "retired": 0, "archived": 1}
    assert stats["top_tags"] == [{"tag": "redis", "count": 2}, {"tag": "cache", "count": 1}]
    assert stats["oldest"]["id"] == "a" and stats["newest"]["id"] == "c"
    assert stats["memory_files"] == 3 and stats["store_bytes"] > 0
    assert main(["stats", "--root", str(project)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 memories in .claude/memory (2 active, 0 retired, 1 archived)") and "redis (2)" in out


def test_doctor_temp_age_zero_removes_fresh_temp_files(project, memory_root, capsys):
    """After a crash (no writer alive) a fresh temp file is a leftover too: --temp-age 0 finds and removes it."""
    write(memory_root, record("decision", "keep", "Keep this", ["x"]))
    assert main(["rebuild", "--root", str(project)]) == 0
    fresh = memory_root / "decisions" / ".keep.json.zz99.tmp"
    fresh.write_text("half written")
    capsys.readouterr()
    assert main(["doctor", "--root", str(project), "--fix"]) == 0  # default: a live writer's file is left alone
    assert fresh.exists()
    assert main(["doctor", "--root", str(project), "--fix", "--temp-age", "0"]) == 0
    assert not fresh.exists()
    assert main(["doctor", "--root", str(project), "--temp-age", "-1"]) == 2  # a bad option value is a usage error


def test_doctor_reports_a_broken_config_value_and_a_config_only_change_is_not_stale_memories(project, memory_root, capsys):
    write(memory_root, record("decision", "a", "Use Redis for sessions", tags=["redis"]))
    config = memory_root / "memory-config.json"
    config.write_text(json.dumps({"retrieval": {"max_inject": 5}}))
    assert main(["rebuild", "--root", str(project)]) == 0
    assert main(["doctor", "--root", str(project)]) == 0
    capsys.readouterr()
    later = time.time() + 5
    config.write_text(json.dumps({"retrieval": {"max_inject": "five", "min_scor": 3, "match_strategy": "smrt"}}))
    os.utime(config, (later, later))
    code, result = run_json(capsys, "doctor", "--root", project)
    assert code == 1
    messages = [f["message"] for f in result["findings"]]
    assert any("retrieval.max_inject is text" in m for m in messages), messages
    assert any("'smrt' is not one of" in m for m in messages)
    typo = next(f for f in result["findings"] if "min_scor" in f["message"])
    assert typo["warning"] is True
    stale = next(f for f in result["findings"] if f["kind"] == "stale-index")
    assert "memory-config.json" in stale["message"] and "older than the memories" not in stale["message"]
    assert stale["warning"] is True
    switches = {key: False for key in ("fuzzy", "field_idf", "compound_parts", "join_pairs", "unknown_names")}
    config.write_text(json.dumps({"retrieval": {"max_inject": 3, **switches}}))  # every documented switch
    os.utime(config, (later, later))
    code, result = run_json(capsys, "doctor", "--root", project)
    assert code == 0  # valid values, the config-only change is advisory
    assert not [f for f in result["findings"] if f["kind"] == "config"], result["findings"]


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_doctor_finds_near_duplicates_without_comparing_every_pair(tmp_path):
    """Near-duplicate titles at 2,000 memories in one category: found, in seconds (on main every pair:
    about 2,000,000 SequenceMatcher ratios, minutes)."""
    import random
    import time
    from team_memory.base.config import load_config
    from team_memory.cli.doctor import examine
    root = tmp_path / "app" / ".claude" / "memory"
    rng = random.Random(5)
    words = "cache session queue worker redis deploy rollback retry token billing export invoice pool".split()
    for i in range(2000):
        title = " ".join(rng.choice(words) for _ in range(6)) + f" n{i:04d}"
        write(root, record("decision", f"m{i:04d}", title))
    write(root, record("decision", "twin-a", "Use Redis for user sessions in production"))
    write(root, record("decision", "twin-b", "Use Redis for user session in production"))
    began = time.monotonic()
    found = [f for f in examine(str(root), load_config(str(root))) if f.kind == "near-duplicate"]
    assert time.monotonic() - began < 20
    assert any("twin-a" in f.path and "twin-b" in f.path for f in found), found


def test_doctor_never_reads_the_time_of_a_folder_a_link_points_to(project, memory_root, tmp_path, capsys):
    """A category folder that is a link is reported, and what it points to (outside the repository) is never
    read: its changing time does not make the index look behind."""
    write(memory_root, record("decision", "a", "Use Redis for sessions", tags=["redis"]))
    outside = tmp_path / "outside"
    outside.mkdir()
    (memory_root / "runbooks").symlink_to(outside, target_is_directory=True)
    assert main(["rebuild", "--root", str(project)]) == 0
    capsys.readouterr()
    later = time.time() + 60
    os.utime(outside, (later, later))
    code, result = run_json(capsys, "doctor", "--root", project)
    assert set(kinds(result)) == {"link"}, result
