"""``memory.py mcp`` through the real Claude Code CLI (``e2e_support``): a project's ``.mcp.json`` starts the
server, the model calls its ``search`` tool and gets the memory back. Marked ``e2e`` (and so ``slow``)."""
from __future__ import annotations

import json

import pytest

import e2e_support as e2e
import helpers

pytestmark = pytest.mark.e2e


def test_claude_code_searches_through_the_mcp_server(tmp_path):
    e2e.require_claude()
    project = e2e.dropin_project(tmp_path)
    helpers.write(e2e.memory_root(project), helpers.record(
        "decision", "redis-sessions", "Sessions live in Redis", tags=["redis", "sessions"]))
    server = {"command": "python3", "args": [str(project / ".claude" / "team-memory" / "scripts" / "memory.py"),
                                             "mcp", "--root", str(project)]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"team-memory": server}}))
    result = e2e.run_claude(project, "hello", None, label="mcp search",
                            tool_use={"name": "mcp__team-memory__search",
                                      "input": {"query": "where do sessions live, redis or postgres?"}},
                            claude_args=("--mcp-config", str(project / ".mcp.json"),
                                         "--allowedTools", "mcp__team-memory__search"))
    assert result.returncode == 0, result.describe()
    results = result.tool_results()
    # Claude Code 2.1 defers MCP tools behind ToolSearch; the call itself reaches the server and its answer the model
    assert results and not results[-1][0] and "Sessions live in Redis" in results[-1][1], \
        f"{results}\n{result.describe()}"
