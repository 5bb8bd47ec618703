"""The real Gemini CLI (``agent_support``) on a repository after ``memory.py install --agent gemini``, offline
against the fake Gemini API (``agent_apis.GeminiAPI``): recall reaches the model's input before the turn, and the
guard denies a direct write into the store. Marked ``e2e`` (and so ``slow``)."""
from __future__ import annotations

import json

import pytest

import agent_support as agents
import helpers
from agent_apis import gemini_call, gemini_input_text, gemini_text

pytestmark = pytest.mark.e2e

MEMORY = helpers.record("constraint", "friday-deploy-freeze", "Production deploys are frozen on Fridays",
                        tags=["deploy", "release", "friday"],
                        content={"kind": "policy", "rule": "No production deploy on Fridays.", "impact": ["releases"],
                                 "severity": "high", "active": True})


def test_gemini_recalls_and_the_guard_denies_a_direct_write(tmp_path):
    agents.require_gemini()
    project = agents.codex_project(tmp_path, "gemini")
    helpers.write(project / ".claude" / "memory", MEMORY)
    target = project / ".claude" / "memory" / "decisions" / "written-directly.json"
    record = json.dumps(helpers.record("decision", "written-directly", "Written directly"))
    run = agents.run_gemini(project, "can I run the production deploy release this friday afternoon?",
                            [[gemini_call("write_file", {"file_path": str(target), "content": record})],
                             [gemini_text("Understood.")]])
    assert run.returncode == 0, run.describe()
    assert run.requests and "Production deploys are frozen on Fridays" in gemini_input_text(run.requests[0]), \
        "recall did not reach the model\n" + run.describe()
    assert not target.exists(), "Gemini's write_file wrote into the store\n" + run.describe()
    assert any("written only through the team-memory CLI" in gemini_input_text(b) for b in run.requests[1:]), \
        "the model was not told the write was refused\n" + run.describe()
