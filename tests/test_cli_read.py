"""CLI read commands: demo, rebuild, list, search, show; exit codes."""
from __future__ import annotations

import json

from helpers import pin_seed_strategy, record, run_cli, write
from team_memory.cli import main


def _store(memory_root):
    pin_seed_strategy(memory_root)  # the exact seed scores below
    write(memory_root, record("runbook", "fix-pydantic-import", "Fix pydantic ImportError",
                              ["pydantic", "import", "error"], days_ago=4))
    write(memory_root, record("decision", "use-redis", "Use Redis for sessions", ["redis"], days_ago=50))
    write(memory_root, record("decision", "old", "Old choice", ["redis"], record_status="retired"))


def test_demo_runs_the_real_hook():
    proc = run_cli("demo")
    assert proc.returncode == 0, proc.stderr
    assert "- [RUNBOOK] Fix pydantic ImportError -> .claude/memory/runbooks/fix-pydantic-import.json" in proc.stdout
    assert "(nothing injected)" in proc.stdout  # the haiku prompt
    assert "Use Celery beat" not in proc.stdout  # retired in the demo store


def test_rebuild_and_list(project, memory_root, capsys):
    _store(memory_root)
    assert main(["rebuild", "--root", str(project)]) == 0
    assert "2 active memories" in capsys.readouterr().out
    assert main(["list", "--root", str(project), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["fix-pydantic-import", "use-redis"]  # newest first
    assert main(["list", "--root", str(project), "--status", "retired", "--json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["old"]
    assert main(["list", "--root", str(project), "--tag", "redis", "--category", "decision"]) == 0
    assert "use-redis" in capsys.readouterr().out


def test_search_matches_the_hook_and_explains(project, memory_root, capsys):
    _store(memory_root)
    assert main(["search", "fix pydantic import error in tests", "--root", str(project), "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["id"] == "fix-pydantic-import" and hits[0]["score"] == 14
    assert hits[0]["parts"] == {"title": ["fix", "pydantic"], "tags": ["error", "import", "pydantic"], "prefix": [],
                                "description": 0, "recency": 1}
    assert main(["search", "fix pydantic import error in tests", "--root", str(project), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "recency: 1" in out and "tags: ['error', 'import', 'pydantic']" in out
    from team_memory.retrieve import context_for_prompt
    assert main(["search", "fix pydantic import error in tests", "--root", str(project), "--block"]) == 0
    assert capsys.readouterr().out == context_for_prompt({"prompt": "fix pydantic import error in tests",
                                                           "cwd": str(project)})


def test_show(project, memory_root, capsys):
    _store(memory_root)
    assert main(["show", "use-redis", "--root", str(project)]) == 0
    out = capsys.readouterr().out
    assert "Use Redis for sessions" in out and "decision" in out
    assert main(["show", "use-redis", "--root", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "use-redis"


def test_exit_codes(project, memory_root, tmp_path, capsys):
    assert main(["show", "nope", "--root", str(project)]) == 1
    assert "no memory with id" in capsys.readouterr().err
    assert main(["show", "../../etc/passwd", "--root", str(project)]) == 1
    assert main(["bogus-command"]) == 2
    assert main([]) == 2
    assert main(["list", "--root", str(tmp_path / "nowhere")]) == 1
    assert "no memory store" in capsys.readouterr().err


def test_every_command_has_help_with_examples():
    from team_memory.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        assert "examples:" in p.format_help(), name
