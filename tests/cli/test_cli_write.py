"""The write commands: add, save, update, retire, restore, archive, unarchive, validate, similar."""
from __future__ import annotations

import hashlib
import io
import json
import re

from helpers import CONTENT, REPO, record, run_cli, write
from team_memory.cli.main import main


def run_json(capsys, *argv) -> tuple:
    code = main([*map(str, argv), "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def test_add_prints_id_and_path_and_is_retrievable(project, memory_root, capsys):
    code = main(["add", "--root", str(project), "--category", "runbook", "--title", "Fix pydantic ImportError",
                 "--tag", "pydantic", "--tag", "Import", "--content-json", json.dumps(CONTENT["runbook"])])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("created fix-pydantic-importerror -> ") and "runbooks/fix-pydantic-importerror.json" in out
    assert main(["search", "fix pydantic import error", "--root", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["id"] == "fix-pydantic-importerror"


def test_add_reads_content_from_a_file_or_stdin(project, memory_root, capsys, monkeypatch, tmp_path):
    content = tmp_path / "c.json"
    content.write_text(json.dumps(CONTENT["preference"]))
    code, result = run_json(capsys, "add", "--root", project, "--category", "preference", "--title", "Tabs",
                            "--tag", "make", "--content-file", content)
    assert code == 0 and result["id"] == "tabs" and result["ok"] is True
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(CONTENT["constraint"])))
    code, result = run_json(capsys, "add", "--root", project, "--category", "constraint", "--title", "Rate limit",
                            "--tag", "api", "-")
    assert code == 0 and result["category"] == "constraint"


def test_save_takes_a_whole_record_and_reports_counts_not_contents(project, memory_root, capsys, monkeypatch):
    rec = {"category": "decision", "title": "Use Redis", "tags": ["redis"],
           "content": dict(CONTENT["decision"], context="<private>INTERNAL-NOTE</private> token=abcdef123456")}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(rec)))
    code = main(["save", "--root", str(project), "--input", "-"])
    captured = capsys.readouterr()
    assert code == 0
    assert "removed 1 private section, redacted 1 secret" in captured.out
    assert "INTERNAL-NOTE" not in captured.out + captured.err and "abcdef123456" not in captured.out + captured.err
    stored = (memory_root / "decisions" / "use-redis.json").read_text()
    assert "INTERNAL-NOTE" not in stored and "abcdef123456" not in stored


def test_failed_validation_lists_every_problem_and_writes_nothing(project, memory_root, capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"category": "runbook", "title": "", "tags": ["A B"], "content": {"steps": "x"},
                               "color": "red"}))
    code = main(["save", "--root", str(project), "--input", str(bad)])
    err = capsys.readouterr().err
    assert code == 1
    for field in ("title:", "content.trigger:", "content.steps:", "content.verification:", "color:"):
        assert field in err
    assert "(fix: " in err and "nothing was written" in err
    code, result = run_json(capsys, "save", "--root", project, "--input", bad)
    assert code == 1 and result["ok"] is False
    assert {"title", "content.steps", "color"} <= {p["field"] for p in result["problems"]}
    assert all(p["hint"] for p in result["problems"])
    assert [p.name for p in memory_root.iterdir() if p.name != ".lock"] == []
    bad.write_text("{broken")
    assert main(["save", "--root", str(project), "--input", str(bad)]) == 1
    assert "not valid JSON" in capsys.readouterr().err


def test_unclosed_private_tag_is_refused(project, memory_root, capsys):
    code = main(["add", "--root", str(project), "--category", "preference", "--title", "x", "--tag", "t",
                 "--content-json", json.dumps(dict(CONTENT["preference"], reason="<private>SECRET-REASON"))])
    err = capsys.readouterr().err
    assert code == 1 and "content.reason" in err and "never closed" in err and "SECRET-REASON" not in err
    assert not (memory_root / "preferences").exists()


def test_store_is_created_only_when_root_names_the_project(tmp_path, capsys):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    args = ["--category", "decision", "--title", "First", "--tag", "x", "--content-json", json.dumps(CONTENT["decision"])]
    assert main(["add", *args]) == 1  # no --root, no store above the working folder
    assert "--root" in capsys.readouterr().err
    assert not (tmp_path / ".claude").exists()
    assert main(["add", "--root", str(tmp_path / "missing"), *args]) == 1
    assert main(["add", "--root", str(fresh), *args]) == 0
    assert (fresh / ".claude" / "memory" / "decisions" / "first.json").is_file()
    assert (fresh / ".claude" / "memory" / "index.md").is_file()


def test_update_retire_restore_archive_unarchive(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis", ["redis"]))
    path = memory_root / "decisions" / "use-redis.json"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    code, result = run_json(capsys, "update", "use-redis", "--root", project, "--tag", "redis", "--tag", "cache",
                            "--content-json", '{"consequences": ["more RAM"]}', "--expect-hash", digest,
                            "--summary", "added cache tag")
    assert code == 0 and result["action"] == "updated" and result["hash"] != digest
    rec = json.loads(path.read_text())
    assert rec["tags"] == ["redis", "cache"] and rec["changes"][-1]["summary"] == "added cache tag"
    assert main(["update", "use-redis", "--root", str(project), "--title", "x", "--expect-hash", digest]) == 1
    assert "changed since it was read" in capsys.readouterr().err
    assert main(["update", "use-redis", "--root", str(project)]) == 1
    assert main(["retire", "use-redis", "--root", str(project)]) == 2  # --reason is required
    capsys.readouterr()
    for argv, status in ((["retire", "use-redis", "--reason", "moved to Valkey"], "retired"),
                         (["restore", "use-redis"], "active"),
                         (["archive", "use-redis", "--reason", "project over"], "archived"),
                         (["unarchive", "use-redis"], "active")):
        code, result = run_json(capsys, *argv, "--root", project)
        assert code == 0 and result["status"] == status
        assert json.loads(path.read_text())["record_status"] == status
    assert main(["unarchive", "use-redis", "--root", str(project)]) == 1
    assert "cannot unarchive use-redis: it is active" in capsys.readouterr().err


def test_validate_all_or_some_files(project, memory_root, capsys):
    write(memory_root, record("decision", "good", "Good", ["x"]))
    assert main(["validate", "--root", str(project)]) == 0
    assert "1 file checked, 0 invalid" in capsys.readouterr().out
    bad = write(memory_root, record("runbook", "bad", "Bad", ["X"]), raw='{"category": "decision", "id": "bad"}')
    assert main(["validate", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert f"invalid {bad}" in out and "category: is 'decision' but the file is in the 'runbook' folder" in out
    code, result = run_json(capsys, "validate", bad)
    assert code == 1 and result[0]["valid"] is False and result[0]["path"] == str(bad)
    code, result = run_json(capsys, "validate", memory_root / "decisions")
    assert code == 0 and [r["valid"] for r in result] == [True]
    assert main(["validate", str(project / "nope.json")]) == 1


def test_similar_finds_the_memory_to_update(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis for sessions", ["redis", "sessions"]))
    write(memory_root, record("decision", "old", "Redis session store", ["redis"], record_status="retired"))
    write(memory_root, record("runbook", "redis-down", "Redis is down", ["redis"]))
    code, best = run_json(capsys, "similar", "--root", project, "--category", "decision",
                          "--title", "Store sessions in Redis", "--tag", "redis")
    assert code == 0 and best["id"] == "use-redis"
    assert best["score"] == 2 * 2 + 3 * 2  # title words redis, sessions; tags redis, sessions
    assert best["hash"] == hashlib.sha256((memory_root / "decisions" / "use-redis.json").read_bytes()).hexdigest()
    assert main(["similar", "--root", str(project), "--category", "decision", "--title", "Store sessions in Redis"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"\s*\d+\s+use-redis\s+Use Redis for sessions", out) and "update use-redis" in out
    assert main(["similar", "--root", str(project), "--category", "preference", "--title", "Redis sessions"]) == 0
    assert capsys.readouterr().out == "no similar memory: save a new one\n"
    assert run_json(capsys, "similar", "--root", project, "--category", "decision", "--title", "Kafka topics") == (0, None)


def test_write_commands_are_in_readme():
    readme = (REPO / "README.md").read_text()
    for name in ("add", "save", "update", "retire", "restore", "archive", "unarchive", "validate", "similar"):
        assert f"| `{name}` |" in readme, name


def test_subprocess_add_and_show(project):
    proc = run_cli("add", "--root", project, "--category", "tech_debt", "--title", "Flaky login test", "--tag", "tests",
                   "--content-json", json.dumps(CONTENT["tech_debt"]), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["path"].endswith("tech-debt/flaky-login-test.json")
    assert run_cli("show", "flaky-login-test", "--root", project).returncode == 0
