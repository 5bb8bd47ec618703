"""Recall by file inside the real Claude Code CLI (offline, fake model): the model reads a file a
memory names in ``related_files``, and the memory reaches the model's next request through
PostToolUse's ``additionalContext``; the prompt hook alone had not shown it."""
from __future__ import annotations

import pytest

import e2e_support as e2e
import helpers

pytestmark = pytest.mark.e2e

TITLE = "Sessions expire after 24 hours in the cache layer"
MEMORY = helpers.record("decision", "session-expiry", TITLE, tags=["expiry"], related_files=["app/session.py"])
PROMPT = "please open that module and explain what it does"


@pytest.fixture(params=["plugin", "drop-in"])
def installed(request, tmp_path):
    e2e.require_claude()
    if request.param == "plugin":
        project, plugin = e2e.plugin_project(tmp_path), e2e.REPO
    else:
        project, plugin = e2e.dropin_project(tmp_path), None
    helpers.write(e2e.memory_root(project), MEMORY)
    (project / "app").mkdir()
    (project / "app" / "session.py").write_text("TTL = 24 * 3600\n")
    return request.param, project, plugin


def test_a_memory_about_a_read_file_reaches_the_next_model_request(installed):
    mode, project, plugin = installed
    result = e2e.run_claude(project, PROMPT, plugin, label=f"{mode} read a file",
                            tool_use={"name": "Read", "input": {"file_path": str(project / "app" / "session.py")}})
    assert result.returncode == 0, result.describe()
    line = f"- [DECISION] {TITLE} -> .claude/memory/decisions/session-expiry.json"
    assert not any(line in t for t in result.texts(result.requests[0])), "the prompt hook showed it already"
    after = [body for body in result.requests if any("TTL = 24 * 3600" in t for t in result.texts(body))]
    assert after, "the Read's result never reached the model\n" + result.describe()
    texts = result.texts(after[0])
    assert any(line in t and "<memory-context" in t and "app/session.py" in t for t in texts), result.describe()
    posts = result.hook_responses("PostToolUse")
    assert posts and all(h.get("exit_code") == 0 for h in posts), result.describe()
