"""The real Codex CLI (``agent_support``) on a repository after ``memory.py install --agent codex``.

Offline against the fake Responses API (``agent_apis``): recall reaches the model's input, the guard denies a
direct write into the store through Codex's shell and its patch tool, and the Stop nudge reaches the model and
the save it asks for succeeds. Marked ``e2e`` (and so ``slow``, like the Claude Code ones).
"""
from __future__ import annotations

import json
import shlex

import pytest

import agent_support as agents
import helpers
from agent_apis import custom_call, function_call, input_text, message

pytestmark = pytest.mark.e2e

MEMORY = helpers.record("constraint", "friday-deploy-freeze", "Production deploys are frozen on Fridays",
                        tags=["deploy", "release", "friday"],
                        content={"kind": "process", "rule": "No production deploy on Fridays; hotfixes need two approvals.",
                                 "impact": ["releases"], "severity": "high", "active": True})


@pytest.fixture
def project(tmp_path):
    agents.require_codex()
    project = agents.codex_project(tmp_path)
    helpers.write(project / ".claude" / "memory", MEMORY)
    return project


def test_recall_reaches_codex(project):
    run = agents.run_codex(project, "can I run the production deploy release this friday afternoon?")
    assert run.returncode == 0, run.describe()
    assert run.seen("Production deploys are frozen on Fridays"), "recall did not reach the model\n" + run.describe()
    assert run.seen("<memory-context"), run.describe()


def test_guard_denies_direct_writes_through_shell_and_patch(project):
    store = project / ".claude" / "memory" / "decisions"
    record = json.dumps(helpers.record("decision", "direct", "Written directly"))
    patch = f"*** Begin Patch\n*** Add File: .claude/memory/decisions/patched.json\n+{record}\n*** End Patch\n"
    script = [[function_call("exec_command", {"cmd": f"echo {shlex.quote(record)} > .claude/memory/decisions/shell.json"})],
              [custom_call("apply_patch", patch)], [message("done")]]
    run = agents.run_codex(project, "remember that we use redis for sessions", script)
    assert run.returncode == 0, run.describe()
    assert not (store / "shell.json").exists(), "Codex's shell wrote into the store\n" + run.describe()
    assert not (store / "patched.json").exists(), "Codex's apply_patch wrote into the store\n" + run.describe()
    denials = [body for body in run.requests[1:] if "written only through the team-memory CLI" in input_text(body)]
    assert len(denials) >= 2, "the model was not told both writes were refused\n" + run.describe()


DECISION_PROMPT = ("Should we keep sessions in Postgres or move them to Redis? "
                   "We decided: use Redis for session storage, because it expires keys natively.")
DECISION_REPLY = ("Agreed. Decision: we will use Redis for session storage instead of Postgres, because Redis "
                  "expires keys natively and keeps login latency low. We rejected Postgres because it needs "
                  "a cleanup job. Going forward, new session code must use the Redis client.")
SAVED = {"category": "decision", "title": "Sessions live in Redis", "tags": ["redis", "sessions"],
         "content": {"status": "accepted", "context": "session storage", "decision": "use Redis for sessions",
                     "rationale": ["expires keys natively"]}}


def _save_as_asked(body: dict) -> list:
    """The model's answer to the nudge: the save command the reminder gives, with a record filled in."""
    text = input_text(body)
    start = text.find("team-memory: this part of the conversation may hold something the team should remember")
    assert start >= 0, "the Stop nudge did not reach the model"
    line = next(ln for ln in text[start:].splitlines() if " save --root " in ln and "--record" in ln)
    command = line[:line.index(" --record ")] + " --record " + shlex.quote(json.dumps(SAVED))
    return [function_call("exec_command", {"cmd": command})]


def test_stop_nudge_reaches_codex_and_the_save_succeeds(project):
    run = agents.run_codex(project, DECISION_PROMPT, [[message(DECISION_REPLY)], _save_as_asked, [message("Saved.")]])
    assert run.returncode == 0, run.describe()
    saved = list((project / ".claude" / "memory").rglob("sessions-live-in-redis*.json"))
    assert saved, "the save the nudge asked for did not land\n" + run.describe()
    assert json.loads(saved[0].read_text())["title"] == SAVED["title"]
    nudges = [body for body in run.requests if "may hold something the team should remember" in input_text(body)]
    assert nudges, run.describe()
