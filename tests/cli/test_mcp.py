"""``memory.py mcp``: the MCP server over stdio, through the official MCP client library and line by line."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import e2e_support as e2e
import helpers

MEMORY = helpers.record("decision", "redis-sessions", "Sessions live in Redis", tags=["redis", "sessions"],
                        related_files=["app/session.py"])
SECRET = helpers.record("decision", "deploy-token", "Deploy with the staging token", tags=["deploy", "token"],
                        content={"status": "accepted", "context": "ci",
                                 "decision": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 is used",
                                 "rationale": ["r"]})


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "app" / "session.py").write_text("x = 1\n")
    helpers.write(root / ".claude" / "memory", MEMORY)
    helpers.write(root / ".claude" / "memory", SECRET)
    assert helpers.run_cli("rebuild", cwd=root).returncode == 0
    return root


def _server(repo: Path, lines: list) -> list:
    """The server's answers to ``lines`` (raw), one JSON object each."""
    proc = subprocess.run([sys.executable, str(helpers.REPO / "scripts" / "memory.py"), "mcp"], cwd=repo,
                          input=("\n".join(lines) + "\n").encode(), capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def _call(mid: int, name: str, **arguments) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": {"name": name, "arguments": arguments}})


def test_malformed_lines_are_answered_and_survived(repo):
    answers = _server(repo, ["{not json", "[1, 2]", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "nope"}),
                             json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                             _call(2, "search", query="where do sessions live, redis or postgres?"),
                             _call(3, "nosuch"), _call(4, "show", id=""), "x" * 10])
    assert [a.get("error", {}).get("code") for a in answers] == [-32700, -32600, -32601, None, -32602, -32602, -32700]
    assert "Sessions live in Redis" in answers[3]["result"]["content"][0]["text"]


def test_show_file_memories_and_save_follow_the_cli_rules(repo):
    answers = _server(repo, [
        _call(1, "show", id="deploy-token"),
        _call(2, "file_memories", path="app/session.py"),
        _call(3, "save", record={"category": "decision", "title": "No tags"}),
        _call(4, "save", record={"category": "preference", "title": "Tabs in Makefiles", "tags": ["make"],
                                 "content": {"topic": "makefiles", "value": "tabs", "reason": "make needs them",
                                             "strength": "strong"}})])
    shown = answers[0]["result"]["content"][0]["text"]
    assert "Deploy with the staging token" in shown and "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in shown
    assert "Sessions live in Redis" in answers[1]["result"]["content"][0]["text"]
    assert answers[2]["result"]["isError"] is True and "tags" in answers[2]["result"]["content"][0]["text"]
    assert answers[3]["result"]["isError"] is False, answers[3]
    assert (repo / ".claude" / "memory" / "preferences" / "tabs-in-makefiles.json").is_file()


def require_official_client():
    """The official MCP client library (the ``mcp-client`` extra, Python 3.10+): a one-line skip without it, a
    failure under TEAM_MEMORY_REQUIRE_E2E=1 (``.ci/run`` installs it), as for the other real clients."""
    if sys.version_info < (3, 10):
        reason = "the official MCP client library needs Python 3.10 or newer"
    elif importlib.util.find_spec("mcp") is None:
        reason = 'the official MCP client library is not installed: python3 -m pip install -e ".[mcp-client]"'
    else:
        return
    if e2e.required():
        pytest.fail(f"{e2e.REQUIRE_ENV}=1 and {reason}", pytrace=False)
    pytest.skip(reason)


def test_official_mcp_client_initializes_lists_and_searches(repo):
    require_official_client()
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import get_default_environment, stdio_client
    env = get_default_environment()  # what the client passes on, and the user's bytecode setting (no __pycache__
    env.update({k: v for k, v in os.environ.items() if k == "PYTHONDONTWRITEBYTECODE"})  # written into the checkout)

    async def session():
        params = StdioServerParameters(command=sys.executable, cwd=str(repo), env=env,
                                       args=[str(helpers.REPO / "scripts" / "memory.py"), "mcp"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = await client.list_tools()
            found = await client.call_tool("search", {"query": "where do sessions live, redis or postgres?"})
            return [t.name for t in tools.tools], found

    names, found = anyio.run(session)
    assert names == ["search", "show", "file_memories", "save"]
    error = found.is_error if hasattr(found, "is_error") else found.isError  # the library's 2.x and 1.x names
    assert error is False and "Sessions live in Redis" in found.content[0].text


def test_without_the_client_library_the_test_skips_or_fails_when_required(monkeypatch):
    """A newcomer's ``.[dev]`` lacks the library: a one-line skip naming the extra; under
    TEAM_MEMORY_REQUIRE_E2E=1 (.ci/run) the same gap fails the run."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    monkeypatch.delenv(e2e.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception) as info:
        require_official_client()
    assert ("mcp-client" in str(info.value) or "3.10" in str(info.value)) and "\n" not in str(info.value)
    monkeypatch.setenv(e2e.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="TEAM_MEMORY_REQUIRE_E2E=1"):
        require_official_client()
