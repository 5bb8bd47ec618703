"""CLI read commands: demo, rebuild, list, search, show; exit codes."""
from __future__ import annotations

import json

from helpers import record, run_cli, write
from team_memory.cli.main import main


def _store(memory_root):
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
    assert "celery cron memory matches but is retired" in proc.stdout  # and the demo says so


def test_a_kept_demo_project_ignores_its_derived_files(tmp_path):
    assert run_cli("demo", "--keep", tmp_path / "demo").returncode == 0
    assert ".claude/memory/index.md" in (tmp_path / "demo" / ".gitignore").read_text()


def test_rebuild_and_list(project, memory_root, capsys):
    _store(memory_root)
    assert main(["rebuild", "--root", str(project)]) == 0
    assert "2 active memories" in capsys.readouterr().out  # (one: "1 active memory")
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
    assert hits[0]["id"] == "fix-pydantic-import" and hits[0]["parts"]["recency"] == 0.5
    assert hits[0]["parts"]["tags"] == ["error", "import", "pydantic"] and "fix" in hits[0]["parts"]["title"]
    assert main(["search", "fix pydantic import error in tests", "--root", str(project), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "recency: 0.5" in out and "tags: ['error', 'import', 'pydantic']" in out
    from team_memory.recall.retrieve import context_for_prompt
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
    assert main(["show", "x", "--root", str(tmp_path / "nowhere")]) == 1  # a look-up of one memory: an error
    assert "no memory store" in capsys.readouterr().err


def test_every_command_has_help_with_examples():
    from team_memory.cli.main import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        assert "examples:" in p.format_help(), name


def test_search_applies_the_hooks_prompt_minimum(project, memory_root, capsys):
    """A prompt under the hook's 10-character minimum: the hook injects nothing, and search agrees."""
    from team_memory.recall.retrieve import MIN_PROMPT_CHARS, context_for_prompt
    write(memory_root, record("decision", "use-redis", "Use Redis for sessions", ["redis"]))
    assert len("redis") < MIN_PROMPT_CHARS
    assert context_for_prompt({"prompt": "redis", "cwd": str(project)}) is None
    assert main(["search", "redis", "--root", str(project)]) == 0
    out = capsys.readouterr().out
    assert "no memory matches" in out and f"under {MIN_PROMPT_CHARS} characters" in out
    assert main(["search", "redis", "--root", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    # ten characters and more: both answer
    assert main(["search", "redis for sessions", "--root", str(project), "--json"]) == 0
    assert [h["id"] for h in json.loads(capsys.readouterr().out)] == ["use-redis"]
    assert context_for_prompt({"prompt": "redis for sessions", "cwd": str(project)})


def test_explain_shows_near_misses_and_the_floor_they_missed(project, memory_root, capsys):
    from team_memory.recall.matching import get_strategy
    write(memory_root, record("decision", "use-redis", "Use Redis for web session storage", ["redis", "session"]))
    write(memory_root, record("runbook", "deploy", "Roll back a failed deploy", ["deploy"]))
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"min_score": 7}}))
    floor = get_strategy(json.loads((memory_root / "memory-config.json").read_text())).min_score
    prompt = "where do we keep sessions"
    assert main(["search", prompt, "--root", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # the hook injects nothing here
    assert main(["search", prompt, "--root", str(project), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "no memory matches" in out and "near misses" in out, out
    line = next(l for l in out.splitlines() if "Use Redis for web session storage" in l)
    assert 0 < float(line.split()[0]) < floor
    assert "under retrieval.min_score 7" in out  # read from the configuration, not hard-coded
    assert "Roll back a failed deploy" not in out  # shares no word with the prompt
    # a prompt whose hits are cut by --limit: the rest are near misses "beyond the 1 shown"
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"min_score": 0.1, "min_relative": 0}}))
    assert main(["search", "redis session and a failed deploy", "--root", str(project), "--explain", "--limit", "1"]) == 0
    assert "beyond the 1 shown" in capsys.readouterr().out


def test_explain_names_min_relative_when_a_weak_runner_up_is_dropped(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis for web session storage", ["redis", "session"]))
    write(memory_root, record("runbook", "deploy", "Roll back a failed deploy", ["deploy"]))
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"min_score": 0.1, "min_relative": 0.99,
                                                                                   "min_related": 0.99}}))
    assert main(["search", "redis web session storage and a deploy", "--root", str(project), "--explain"]) == 0
    out = capsys.readouterr().out
    shown, misses = out.split("near misses")
    assert "Use Redis for web session storage" in shown and "Roll back a failed deploy" in misses
    assert "retrieval.min_relative 0.99 x the best" in misses


def test_explain_says_when_the_matcher_abstains_for_lack_of_evidence(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis for web session storage", ["redis", "session"]))
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"min_evidence": 100}}))
    # two strong words of the prompt corroborate the memory: that way answers under min_evidence
    assert main(["search", "redis web session storage", "--root", str(project), "--json"]) == 0
    assert [h["id"] for h in json.loads(capsys.readouterr().out)] == ["use-redis"]
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"min_evidence": 100,
                                                                              "min_corroborated": 0, "min_explained": 0}}))
    assert main(["search", "redis web session storage", "--root", str(project), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "no memory matches" in out and "Use Redis for web session storage" in out.split("near misses")[1]
    assert "under retrieval.min_evidence 100)" in out and "nothing is shown" in out
