"""The PreToolUse hook approves the CLI's own look-up and save commands, in one exact shape, and nothing else."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from helpers import REPO, record, run_cli, run_hook, write
from team_memory.guards.autoallow import allow_cli_call, shell_literal

CLI = f'python3 "{REPO / "scripts" / "memory.py"}"'
PRE = "pre_tool_use.py"


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".claude" / "memory", record("decision", "use-redis", "Use Redis", ["redis"]))
    return tmp_path


def approved(command, project):
    return allow_cli_call(command, str(project), [str(project)])


@pytest.mark.parametrize("args", [
    "list", "similar --category decision --title \"Redis sessions\" --tag redis",
    "search 'redis sessions' --explain", "show use-redis --json", "stats", "review --json",
    "update use-redis --reviewed",
    """save --record '{"category": "decision", "title": "We chose Valkey", "content": {"why": "it'\\''s `$free` {\\"x\\"}"}}'""",
    "update use-redis --reviewed --json --summary 'checked after the pool change' --expect-hash 3f2a9c01",
    "update use-redis --rev", "save --input - --json",
])
def test_the_cli_s_store_commands_are_approved(project, args):
    assert approved(f"{CLI} {args}", project)


def test_the_root_only_when_it_is_this_project(project, tmp_path_factory):
    assert approved(f'{CLI} save --root "{project}" --record \'{{}}\'', project)
    assert approved(f"{CLI} list --root={project}/.claude/memory", project)
    other = tmp_path_factory.mktemp("other")
    assert not approved(f'{CLI} save --root "{other}" --record \'{{}}\'', project)
    assert not approved(f'{CLI} save --ro "{other}" --record \'{{}}\'', project)  # argparse's abbreviation


@pytest.mark.parametrize("command", [
    f"{CLI} list; rm -rf ~", f"{CLI} list && touch x", f"{CLI} list | sh", f"{CLI} list > out",
    f"{CLI} search $(cat ~/.ssh/id_rsa)", f'{CLI} search "$HOME"', f"{CLI} search `id`", f"{CLI} list\ntouch x",
    f"{CLI} search *", f"{CLI} retire use-redis --reason x", f"{CLI} import --from-claude-memory /x",
    f"{CLI} save --input /etc/passwd", f"{CLI} save --in=/etc/passwd", f"{CLI} update x --content-file /etc/passwd",
    f"{CLI} export --output /tmp/x", f"python3 -c 'import os' {REPO / 'scripts' / 'memory.py'} list",
    f"python3 {REPO / 'scripts' / 'memory.py'}x list", "python3 scripts/memory.py list",
    f"{CLI} save --record '{{\"a\": 1}}", f"env X=1 {CLI} list", f"{CLI}",
])
def test_anything_else_is_left_to_claude_code(project, command):
    assert not approved(command, project)


def test_a_look_alike_script_is_not_approved(project):
    fake = project / "scripts" / "memory.py"
    fake.parent.mkdir()
    fake.write_text("print('not team-memory')\n")
    assert not approved(f'python3 "{fake}" list', project)
    assert not approved("python3 .claude/team-memory/scripts/memory.py list", project)


def test_can_be_turned_off(project, monkeypatch):
    monkeypatch.setenv("TEAM_MEMORY_AUTO_ALLOW", "0")
    assert not approved(f"{CLI} list", project)


def test_shell_literal():
    assert shell_literal("a 'b;c$d`e' \"f g\" 'it'\\''s'")
    assert not shell_literal("a \\; b") and not shell_literal("a 'b") and not shell_literal('a "$x"')


def test_the_hook_returns_the_allow_decision(project):
    payload = {"tool_name": "Bash", "tool_input": {"command": f"{CLI} list"}, "cwd": str(project),
               "hook_event_name": "PreToolUse", "session_id": "s"}
    out = json.loads(run_hook(PRE, payload, cwd=str(project)).stdout)
    assert out["hookSpecificOutput"]["permissionDecision"] == "allow"
    payload["tool_input"]["command"] = f"{CLI} retire use-redis --reason x"
    assert run_hook(PRE, payload, cwd=str(project)).stdout == b""


def test_the_drop_in_short_form_is_approved_in_its_project(tmp_path):
    (tmp_path / ".git").mkdir()
    assert run_cli("install", str(tmp_path)).returncode == 0
    script = tmp_path / ".claude" / "team-memory" / "scripts" / "memory.py"
    payload = {"tool_name": "Bash", "tool_input": {"command": "python3 .claude/team-memory/scripts/memory.py list"},
               "cwd": str(tmp_path), "hook_event_name": "PreToolUse", "session_id": "s"}
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(tmp_path))
    proc = subprocess.run(["python3", str(tmp_path / ".claude" / "team-memory" / "hooks" / "pre_tool_use.py")],
                          input=json.dumps(payload).encode(), capture_output=True, cwd=tmp_path, env=env)
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow", proc.stderr
    payload["tool_input"]["command"] = f'python3 "{script}" save --record \'{{}}\''
    proc = subprocess.run(["python3", str(tmp_path / ".claude" / "team-memory" / "hooks" / "pre_tool_use.py")],
                          input=json.dumps(payload).encode(), capture_output=True, cwd=tmp_path, env=env)
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow", proc.stderr


def test_from_a_subfolder_the_repository_root_is_this_project(tmp_path):
    """The reminder names --root <repository root>; Claude may have started in a subfolder, before any store exists."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "services" / "api").mkdir(parents=True)
    payload = {"tool_name": "Bash", "cwd": str(tmp_path / "services" / "api"), "hook_event_name": "PreToolUse",
               "tool_input": {"command": f'{CLI} similar --root "{tmp_path}" --category decision --title x'}}
    out = json.loads(run_hook(PRE, payload, cwd=str(tmp_path / "services" / "api")).stdout)
    assert out["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_record_that_talks_about_the_store_is_still_approved(project):
    """Quoted text naming .claude/memory/ (a memory about team-memory itself) is data, not a write."""
    record_json = '{"title": "x", "content": {"rule": "never write .claude/memory/ directly > or rm -rf .claude/memory"}}'
    payload = {"tool_name": "Bash", "tool_input": {"command": f"{CLI} save --record '{record_json}'"},
               "cwd": str(project), "hook_event_name": "PreToolUse", "session_id": "s"}
    out = json.loads(run_hook(PRE, payload, cwd=str(project)).stdout)
    assert out["hookSpecificOutput"]["permissionDecision"] == "allow"


SESSION = "8e1f2a3b-aaaa-bbbb-cccc-000000000000"


@pytest.mark.parametrize("args", [
    "update use-redis --title 'Use Valkey'", "update use-redis --content-json '{\"rationale\": [\"a\"]}' --expect-hash 3f2a9c01",
    "update use-redis --no-related-files", "update use-redis --related-file db/schema.sql", "update use-redis --tag x",
    "update use-redis --confidence 0.1", "update use-redis -", "update use-redis --reviewed --related-file app/a.py",
    "update use-redis --reviewed --no-rel", "update use-redis --ti=x --reviewed", "update use-redis", "update --reviewed",
    "update use-redis --summary=--title --reviewed --t x",
    "update session-2026-01-01-00000000 --content-json '{}'",  # another session's summary
])
def test_rewriting_an_existing_memory_is_asked_about(project, args):
    """A teammate's memory is never rewritten without the user: only --reviewed (its time) is approved."""
    assert not allow_cli_call(f"{CLI} {args}", str(project), [str(project)], {"session_id": SESSION})


def test_this_session_s_own_summary_may_be_kept_current(project):
    from team_memory.capture.capture import summary_id
    own = summary_id(SESSION)
    command = f"{CLI} update {own} --content-json '{{\"next_actions\": [\"ship\"]}}' --expect-hash 3f2a9c01"
    assert allow_cli_call(command, str(project), [str(project)], {"session_id": SESSION})
    assert not allow_cli_call(command, str(project), [str(project)], {"session_id": "another-session"})
    assert not allow_cli_call(command, str(project), [str(project)], {})


@pytest.mark.parametrize("value", [True, "true", 1])
def test_never_approved_outside_the_sandbox(project, value):
    payload = {"tool_name": "Bash", "tool_input": {"command": f"{CLI} list", "dangerouslyDisableSandbox": value},
               "cwd": str(project), "hook_event_name": "PreToolUse", "session_id": "s"}
    assert not allow_cli_call(f"{CLI} list", str(project), [str(project)], payload)
    assert run_hook(PRE, payload, cwd=str(project)).stdout == b""  # Claude Code asks as usual
    payload["tool_input"]["dangerouslyDisableSandbox"] = False
    assert json.loads(run_hook(PRE, payload, cwd=str(project)).stdout)["hookSpecificOutput"]["permissionDecision"] \
        == "allow"


def test_the_hook_leaves_a_rewrite_to_the_user(project):
    payload = {"tool_name": "Bash", "tool_input": {"command": f"{CLI} update use-redis --title 'Hijacked'"},
               "cwd": str(project), "hook_event_name": "PreToolUse", "session_id": SESSION}
    assert run_hook(PRE, payload, cwd=str(project)).stdout == b""
    payload["tool_input"]["command"] = f"{CLI} update use-redis --reviewed"
    assert json.loads(run_hook(PRE, payload, cwd=str(project)).stdout)["hookSpecificOutput"]["permissionDecision"] \
        == "allow"


def test_save_refuses_a_time_far_ahead(project):
    """A memory dated 2099 would rank as the newest for ever: save refuses it, with what to do instead."""
    rec = {"category": "decision", "title": "Use Valkey", "tags": ["valkey"], "updated_at": "2099-01-01T00:00:00Z",
           "content": record("decision", "x", "x")["content"]}
    proc = run_cli("save", "--record", json.dumps(rec), cwd=project)
    assert proc.returncode == 1 and "updated_at: is in the future" in proc.stderr and "leave updated_at out" in proc.stderr
    rec["updated_at"] = rec["created_at"] = "2099-01-01T00:00:00Z"
    assert "created_at: is in the future" in run_cli("save", "--record", json.dumps(rec), cwd=project).stderr
    from datetime import datetime, timedelta, timezone
    soon = (datetime.now(timezone.utc) + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")  # a clock a bit ahead
    rec["updated_at"] = rec["created_at"] = soon
    assert run_cli("save", "--record", json.dumps(rec), cwd=project).returncode == 0
