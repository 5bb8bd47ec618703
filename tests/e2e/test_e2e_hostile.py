"""The real Claude Code CLI (offline, fake model API) on a store holding a committed worst-case title, an absurd
cache header and a backtracking triage cue: the prompt hook answers cleanly and the model still gets the other
memories. Marked ``e2e`` (slow; skips without the CLI or the harness, mandatory under ``.ci/run``)."""
from __future__ import annotations

import json

import pytest

import e2e_support as e2e
from helpers import record, write

pytestmark = pytest.mark.e2e


def test_a_hostile_store_still_recalls_through_the_real_client(tmp_path):
    e2e.require_claude()
    project = e2e.plugin_project(tmp_path)
    root = e2e.memory_root(project)
    write(root, record("runbook", "rotate-keys", "Rotate keys " + "api_key-" * 500, ["keys"]))
    write(root, record("runbook", "deploy-payments", "Deploy the payments service", ["deploy", "payments"]))
    (root / "memory-config.json").write_text(json.dumps(
        {"triage": {"extra_cues": {"decision": {"primary": [r"^(\w+\s?)*$"]}}}}))
    (root / ".cache").mkdir()
    (root / ".cache" / "retrieval.bin").write_bytes(b"team-memory retrieval cache\n99999999999999\n{}")
    result = e2e.ask(project, "how do we deploy the payments service?", e2e.REPO, label="hostile store")
    assert result.seen("[RUNBOOK] Deploy the payments service"), result.describe()
    for event in ("UserPromptSubmit", "SessionStart"):
        for hook in result.hook_responses(event):
            assert hook.get("exit_code") == 0 and "hook skipped" not in (hook.get("stderr") or ""), result.describe()
