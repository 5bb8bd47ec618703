"""export and import: JSON Lines, YAML, the prior plugin's stores, validation and conflicts."""
from __future__ import annotations

import io
import json
import shutil
import sys

from helpers import REPO, record, run_cli, write
from team_memory.cli.main import main


def run_json(capsys, *argv):
    code = main([*map(str, argv), "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def other_project(tmp_path, name="other"):
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "memory").mkdir(parents=True)
    return root


def stored(project) -> dict:
    return {p.stem: json.loads(p.read_text()) for p in (project / ".claude" / "memory").glob("[!.]*/*.json")}


def test_export_then_import_round_trips_every_record(project, memory_root, tmp_path, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis", tags=["redis"]))
    write(memory_root, record("runbook", "fix-ci", "Fix CI", tags=["ci"], record_status="retired",
                              retired_at="2026-01-01T00:00:00Z", retired_reason="gone"))
    assert main(["export", "--root", str(project)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["use-redis", "fix-ci"]  # category order, one per line
    dump = tmp_path / "m.jsonl"
    dump.write_text("\n".join(lines) + "\n")
    target = other_project(tmp_path)
    code, report = run_json(capsys, "import", dump, "--root", target)
    assert code == 0 and report["created"] == 2 and report["invalid"] == []
    assert stored(target) == stored(project)
    assert main(["search", "use redis for this", "--root", str(target), "--json"]) == 0  # the index was rebuilt
    assert json.loads(capsys.readouterr().out)[0]["id"] == "use-redis"


def test_export_filters_and_writes_yaml(project, memory_root, tmp_path, capsys):
    write(memory_root, record("decision", "a", "A", tags=["x"]))
    write(memory_root, record("runbook", "b", "B", tags=["x"]))
    out = tmp_path / "m.yaml"
    assert main(["export", "--root", str(project), "--category", "runbook", "--output", str(out)]) == 0
    import yaml
    docs = list(yaml.safe_load_all(out.read_text()))
    assert [d["id"] for d in docs] == ["b"]
    target = other_project(tmp_path)
    assert main(["import", str(out), "--root", str(target)]) == 0
    assert "imported 1 of 1 records" in capsys.readouterr().out
    assert stored(target)["b"] == stored(project)["b"]


def test_yaml_written_by_hand_with_unquoted_times_imports(project, memory_root, tmp_path, capsys):
    src = tmp_path / "hand.yml"
    src.write_text("category: preference\nid: tabs\ntitle: Tabs in Makefiles\ncreated_at: 2026-01-02T03:04:05Z\n"
                   "tags: [make]\ncontent:\n  topic: make\n  value: tabs\n  reason: required\n  strength: strong\n")
    code, report = run_json(capsys, "import", src, "--root", project)
    assert code == 0 and report["created"] == 1, report
    assert stored(project)["tabs"]["created_at"] == "2026-01-02T03:04:05Z"


def test_an_invalid_record_blocks_the_whole_import_unless_skipped(project, memory_root, tmp_path, capsys):
    good = record("decision", "good", "Good", tags=["x"])
    bad = dict(record("runbook", "bad", "Bad", tags=["x"]), color="red")
    src = tmp_path / "m.jsonl"
    src.write_text(json.dumps(good) + "\n{not json\n" + json.dumps(bad) + "\n")
    code, report = run_json(capsys, "import", src, "--root", project)
    assert code == 1 and report["ok"] is False and report["created"] == 0
    assert [i["where"] for i in report["invalid"]] == ["line 2", "line 3"]
    assert report["invalid"][1]["problems"][0]["field"] == "color"
    assert stored(project) == {}
    assert main(["import", str(src), "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert "invalid line 3" in err and "color: is not a known field" in err and "nothing was imported" in err
    code, report = run_json(capsys, "import", src, "--root", project, "--skip-invalid")
    assert code == 0 and report["created"] == 1 and len(report["invalid"]) == 2
    assert list(stored(project)) == ["good"]


def test_conflicts_skip_replace_or_suffix(project, memory_root, tmp_path, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis", tags=["redis"]))
    incoming = record("decision", "use-redis", "Use Valkey", tags=["valkey"])
    src = tmp_path / "m.jsonl"
    src.write_text(json.dumps(incoming) + "\n")
    code, report = run_json(capsys, "import", src, "--root", project)
    assert code == 0 and report["skipped"] == 1 and stored(project)["use-redis"]["title"] == "Use Redis"
    code, report = run_json(capsys, "import", src, "--root", project, "--on-conflict", "suffix", "--dry-run")
    assert report["renamed"] == 1 and report["memories"][0]["id"] == "use-redis-2" and "use-redis-2" not in stored(project)
    code, report = run_json(capsys, "import", src, "--root", project, "--on-conflict", "suffix")
    assert stored(project)["use-redis-2"]["title"] == "Use Valkey" and stored(project)["use-redis-2"]["id"] == "use-redis-2"
    code, report = run_json(capsys, "import", src, "--root", project, "--on-conflict", "replace")
    assert report["replaced"] == 1 and stored(project)["use-redis"]["title"] == "Use Valkey"


def test_import_scrubs_private_sections_and_secrets(project, memory_root, capsys, monkeypatch):
    rec = record("decision", "d", "D", tags=["x"])
    rec["content"]["context"] = "<private>internal host</private> key sk-abcdefghijklmnopqrstuvwx"
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(rec) + "\n"))
    code, report = run_json(capsys, "import", "-", "--root", project)
    assert code == 0 and report["private_sections"] == 1 and report["secrets_redacted"] == 1
    text = (memory_root / "decisions" / "d.json").read_text()
    assert "internal host" not in text and "sk-abcdefghij" not in text


def test_import_from_a_prior_plugin_store(project, tmp_path, capsys):
    old = tmp_path / "old-project"
    shutil.copytree(REPO / "templates" / "demo", old / ".claude" / "memory")
    nameless = json.loads((old / ".claude" / "memory" / "runbooks" / "fix-pydantic-import.json").read_text())
    del nameless["id"], nameless["category"]  # implied by the file's name and folder
    (old / ".claude" / "memory" / "runbooks" / "fix-pydantic-import.json").write_text(json.dumps(nameless))
    (old / ".claude" / "memory" / "index.md").write_text("- [DECISION] stale -> x.json\n")
    code, report = run_json(capsys, "import", "--from-claude-memory", old, "--root", project)
    demo_ids = {p.stem for p in (REPO / "templates" / "demo").glob("*/*.json")}
    assert code == 0 and report["created"] == len(demo_ids) == 11
    assert set(stored(project)) == demo_ids
    assert stored(project)["fix-pydantic-import"]["category"] == "runbook"
    assert main(["validate", "--root", str(project)]) == 0
    assert "11 files checked, 0 invalid" in capsys.readouterr().out
    # the same folder given as .claude/memory works too, and a second run skips everything
    code, report = run_json(capsys, "import", "--from-claude-memory", old / ".claude" / "memory", "--root", project)
    assert report["skipped"] == 11


def test_import_usage_errors(project, tmp_path, capsys):
    assert main(["import", "--root", str(project)]) == 2
    assert main(["import", "x.jsonl", "--from-claude-memory", str(tmp_path), "--root", str(project)]) == 2
    assert main(["import", "--from-claude-memory", str(tmp_path / "nothing"), "--root", str(project)]) == 1
    assert "no memory store" in capsys.readouterr().err


def test_export_import_in_a_subprocess(project, memory_root, tmp_path):
    write(memory_root, record("preference", "p", "P", tags=["x"]))
    proc = run_cli("export", "--root", project)
    assert proc.returncode == 0 and json.loads(proc.stdout)["id"] == "p"
    target = other_project(tmp_path)
    proc = run_cli("import", "-", "--root", target, input=proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert "imported 1 of 1" in proc.stdout


def test_yaml_without_pyyaml_is_a_clear_error_and_jsonl_still_works(project, memory_root, tmp_path, capsys,
                                                                     monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # ``import yaml`` fails as when pyyaml is not installed
    write(memory_root, record("decision", "a", "A", tags=["x"]))
    assert main(["export", "--root", str(project), "--output", str(tmp_path / "m.yaml")]) == 1
    assert "YAML needs pyyaml" in capsys.readouterr().err and not (tmp_path / "m.yaml").exists()
    assert main(["export", "--root", str(project), "--format", "jsonl"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "a"
