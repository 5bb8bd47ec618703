"""``install --agent codex`` and the translations of Codex's payloads at the hooks' input boundary.

What Codex CLI 0.171.0 sends (read from the client itself, see ``test_codex_e2e.py``): its shell arrives as
``Bash`` with ``command``; its patch tool as ``apply_patch`` with the patch in ``command``; its transcript is a
rollout JSONL of ``response_item`` lines (Responses API items).
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest

import helpers

CODEX_HOOKS = (".codex", "hooks.json")
PATCH = ("*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** Add File: .claude/memory/decisions/x.json\n"
         "+{}\n*** Delete File: old.txt\n*** Update File: src/app.py\n*** Move to: src/main.py\n*** End Patch\n")


@pytest.fixture
def repo(tmp_path, git_init):
    return git_init(tmp_path / "repo")


def _codex_hook(name: str):
    """The command install --agent codex writes for ``name``, run in ``project`` as Codex runs it (cwd there)."""
    def run(project, payload):
        hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
        command = next(h["command"] for groups in hooks.values() for g in groups for h in g["hooks"] if name in h["command"])
        return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload).encode(), cwd=project,
                              capture_output=True, timeout=30)
    return run


# ---------------------------------------------------------------- translations

def test_patch_files_names_every_file_once_in_order():
    from team_memory.records.hookio import patch_files
    assert patch_files(PATCH) == ["src/app.py", ".claude/memory/decisions/x.json", "old.txt", "src/main.py"]
    assert patch_files("no patch here") == []


def test_apply_patch_becomes_one_edit_per_file_and_other_calls_stay():
    from team_memory.records.hookio import tool_calls
    payload = {"tool_name": "apply_patch", "tool_input": {"command": PATCH}, "cwd": "/x", "session_id": "s"}
    calls = tool_calls(payload)
    assert [c["tool_input"] for c in calls][:2] == [{"file_path": "src/app.py"},
                                                    {"file_path": ".claude/memory/decisions/x.json"}]
    assert {c["tool_name"] for c in calls} == {"Edit"} and all(c["session_id"] == "s" for c in calls)
    bash = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    assert tool_calls(bash) == [bash]


def test_rollout_lines_read_as_turns():
    from team_memory.capture.transcript import parse_lines
    lines = [
        {"type": "session_meta", "payload": {"cwd": "/x"}},
        {"type": "response_item", "payload": {"type": "message", "role": "developer",
                                              "content": [{"type": "input_text", "text": "system stuff"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "<environment_context>x"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "use redis?"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "call_id": "c1",
                                              "arguments": json.dumps({"cmd": "pytest -q"})}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": "ok"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
                                              "input": PATCH}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": "Decided: redis."}]}},
    ]
    turns = parse_lines("\n".join(json.dumps(line) for line in lines).encode() + b"\n")
    assert [(t.role, t.text, t.tools) for t in turns] == [
        ("user", "use redis?", ()), ("assistant", "", ("Bash",)), ("tool_result", "ok", ()),
        ("assistant", "", ("Edit",) * 4), ("assistant", "Decided: redis.", ())]
    assert [path for _, path in turns[3].files] == ["src/app.py", ".claude/memory/decisions/x.json", "old.txt",
                                                    "src/main.py"]


# ---------------------------------------------------------------- install

def test_install_codex_keeps_other_settings_and_a_second_run_changes_nothing(repo):
    (repo / ".codex").mkdir()
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}, "other": 1}
    (repo / ".codex" / "hooks.json").write_text(json.dumps(mine))
    proc = helpers.run_cli("install", repo, "--agent", "codex")
    assert proc.returncode == 0, proc.stderr
    assert "trust" in proc.stdout and "review" in proc.stdout  # what Codex will ask, said
    data = json.loads((repo / ".codex" / "hooks.json").read_text())
    assert data["other"] == 1 and data["hooks"]["Stop"][0] == mine["hooks"]["Stop"][0]
    assert set(data["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Bash|apply_patch"
    assert json.loads((repo / ".codex" / "hooks.json.bak").read_text()) == mine
    assert (repo / ".claude" / "team-memory" / "hooks" / "stop.py").is_file()
    assert not (repo / ".claude" / "settings.json").exists()  # Claude Code's hooks only with --agent claude
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert helpers.run_cli("install", repo, "--agent", "codex").returncode == 0
    after = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert {p for p in after if after[p] != before.get(p)} == set()
    proc = helpers.run_cli("uninstall", repo, "--agent", "codex")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((repo / ".codex" / "hooks.json").read_text()) == mine


def test_install_codex_and_claude_together(repo):
    proc = helpers.run_cli("install", repo, "--agent", "claude", "--agent", "codex")
    assert proc.returncode == 0, proc.stderr
    assert "hooks" in json.loads((repo / ".claude" / "settings.json").read_text())
    assert "hooks" in json.loads((repo / ".codex" / "hooks.json").read_text())


def test_install_codex_refuses_a_linked_codex_folder(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / ".codex")
    proc = helpers.run_cli("install", repo, "--agent", "codex")
    assert proc.returncode != 0 and "link" in proc.stderr
    assert list(outside.iterdir()) == []


def test_codex_guard_denies_a_patch_into_the_store_and_allows_others(repo):
    assert helpers.run_cli("install", repo, "--agent", "codex").returncode == 0
    run = _codex_hook("pre_tool_use.py")
    base = {"hook_event_name": "PreToolUse", "cwd": str(repo), "session_id": "s", "tool_name": "apply_patch"}
    denied = run(repo, dict(base, tool_input={"command": PATCH}))
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny", denied
    patch = "*** Begin Patch\n*** Add File: src/ok.py\n+x\n*** End Patch\n"
    assert run(repo, dict(base, tool_input={"command": patch})).stdout == b""


def test_codex_recall_by_file_for_a_patched_file(repo):
    assert helpers.run_cli("install", repo, "--agent", "codex").returncode == 0
    helpers.write(repo / ".claude" / "memory", helpers.record(
        "decision", "billing-rounding", "Billing rounds half to even", tags=["billing"],
        related_files=["src/billing.py"]))
    (repo / "src").mkdir()
    (repo / "src" / "billing.py").write_text("x = 1\n")
    assert helpers.run_cli("rebuild", cwd=repo).returncode == 0
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "init"], check=True)
    patch = "*** Begin Patch\n*** Update File: src/billing.py\n@@\n-a\n+b\n*** End Patch\n"
    proc = _codex_hook("post_tool_use.py")(repo, {
        "hook_event_name": "PostToolUse", "cwd": str(repo), "session_id": "s", "tool_name": "apply_patch",
        "tool_input": {"command": patch}, "tool_response": "Success."})
    assert "Billing rounds half to even" in proc.stdout.decode(), proc


# ---------------------------------------------------------------- cursor, vscode and AGENTS.md

HIGH = {"category": "constraint", "title": "Never deploy on Fridays", "tags": ["deploy"],
        "content": {"kind": "policy", "rule": "no deploys on Fridays", "impact": ["releases"], "severity": "high",
                    "active": True}}


def test_cursor_and_vscode_get_the_mcp_server_and_agents_md_keeps_the_teammates_text(repo):
    own = "# Our agents\r\n\nRun `make check` before pushing.\n"
    (repo / "AGENTS.md").write_bytes(own.encode())
    (repo / ".vscode").mkdir()
    (repo / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"db": {"type": "stdio", "command": "db"}}}))
    proc = helpers.run_cli("install", repo, "--agent", "cursor", "--agent", "vscode")
    assert proc.returncode == 0, proc.stderr
    cursor = json.loads((repo / ".cursor" / "mcp.json").read_text())["mcpServers"]["team-memory"]
    assert cursor["args"][1:] == ["mcp", "--root", "${workspaceFolder}"]
    vscode = json.loads((repo / ".vscode" / "mcp.json").read_text())["servers"]
    assert vscode["db"] == {"type": "stdio", "command": "db"} and vscode["team-memory"]["type"] == "stdio"
    text = (repo / "AGENTS.md").read_bytes().decode()
    assert text.startswith(own) and "memory.py search" in text and "memory.py save" in text

    saved = helpers.run_cli("save", "--root", repo, "--record", json.dumps(HIGH))
    assert saved.returncode == 0, saved.stderr
    before = (repo / "AGENTS.md").read_bytes()
    assert helpers.run_cli("install", repo, "--agent", "cursor").returncode == 0
    block = (repo / "AGENTS.md").read_bytes()
    assert block != before and b"- Never deploy on Fridays" in block and block.startswith(own.encode())
    assert len(block) - len(own) <= 2048 + 1
    assert helpers.run_cli("install", repo, "--agent", "cursor").returncode == 0
    assert (repo / "AGENTS.md").read_bytes() == block  # memories unchanged: the block is not rewritten

    assert helpers.run_cli("uninstall", repo, "--agent", "cursor", "--agent", "vscode").returncode == 0
    assert (repo / "AGENTS.md").read_bytes() == own.encode()
    assert json.loads((repo / ".vscode" / "mcp.json").read_text()) == {"servers": {"db": {"type": "stdio", "command": "db"}}}
    assert not (repo / ".cursor" / "mcp.json").exists()


def test_agents_md_block_stays_under_two_kilobytes(repo):
    assert helpers.run_cli("install", repo, "--agent", "codex").returncode == 0
    for n in range(25):  # about 17 such titles fit in the block: 25 cross the bound with room to spare
        record = dict(HIGH, title=f"Constraint number {n} with a long title about deploy windows and freezes")
        assert helpers.run_cli("save", "--root", repo, "--record", json.dumps(record)).returncode == 0
    assert helpers.run_cli("install", repo, "--agent", "codex").returncode == 0
    text = (repo / "AGENTS.md").read_text()
    assert len(text.encode()) <= 2048 and "list --category constraint" in text and "Constraint number 0" in text


def test_agents_md_through_a_link_is_refused(repo, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("theirs\n")
    os.symlink(outside, repo / "AGENTS.md")
    proc = helpers.run_cli("install", repo, "--agent", "codex")
    assert proc.returncode != 0 and "link" in proc.stderr
    assert outside.read_text() == "theirs\n"


# ---------------------------------------------------------------- gemini

def _gemini_hook(project, event: str, payload: dict):
    hooks = json.loads((project / ".gemini" / "settings.json").read_text())["hooks"]
    command = hooks[event][0]["hooks"][0]["command"]
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project), GEMINI_PROJECT_DIR=str(project))  # as Gemini CLI sets them
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload).encode(), cwd=project, env=env,
                          capture_output=True, timeout=30)


def test_gemini_gets_recall_as_context_and_the_guard_as_its_decision(repo):
    proc = helpers.run_cli("install", repo, "--agent", "gemini")
    assert proc.returncode == 0, proc.stderr
    hooks = json.loads((repo / ".gemini" / "settings.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "BeforeAgent", "BeforeTool"}
    assert hooks["BeforeTool"][0]["matcher"] == "run_shell_command|write_file|replace"
    assert helpers.run_cli("save", "--root", repo, "--record", json.dumps(HIGH)).returncode == 0
    base = {"cwd": str(repo), "session_id": "g1"}
    out = json.loads(_gemini_hook(repo, "BeforeAgent", dict(base, hook_event_name="BeforeAgent",
                                                            prompt="can we deploy to production on fridays?")).stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    assert "Never deploy on Fridays" in out["hookSpecificOutput"]["additionalContext"]
    for tool, tool_input in (("write_file", {"file_path": ".claude/memory/decisions/x.json", "content": "{}"}),
                             ("run_shell_command", {"command": "echo {} > .claude/memory/decisions/x.json"})):
        out = json.loads(_gemini_hook(repo, "BeforeTool", dict(base, hook_event_name="BeforeTool", tool_name=tool,
                                                               tool_input=tool_input)).stdout)
        assert out["decision"] == "deny" and "team-memory CLI" in out["reason"]
    ok = _gemini_hook(repo, "BeforeTool", dict(base, hook_event_name="BeforeTool", tool_name="write_file",
                                               tool_input={"file_path": "src/a.py", "content": "x"}))
    assert ok.stdout == b""
    assert helpers.run_cli("uninstall", repo, "--agent", "gemini").returncode == 0
    assert not (repo / ".gemini" / "settings.json").exists()
