"""The real Claude Code CLI, offline against the fake model API: a memory saved with ``<private>`` sections
reaches the model whole (its ``[PRIVATE]`` marker is text), and a hand-edited memory's secret-shaped tag,
private tag and content key never reach it. Marked ``e2e``; skips without the client (``require_claude``)."""
from __future__ import annotations

import json

import pytest

import e2e_support as e2e
import helpers

pytestmark = pytest.mark.e2e

KEY = "AKIAQZ99XJQZ99XJQZ99"


def test_the_model_sees_the_whole_memory_and_no_hidden_part(tmp_path):
    e2e.require_claude()
    project = e2e.plugin_project(tmp_path)
    rule = {"category": "constraint", "title": "Vendor <private>Acme</private> API allows 10 requests per minute",
            "tags": ["vendor", "api"],
            "content": {"kind": "technical", "severity": "high", "active": True, "impact": ["slow batch jobs"],
                        "rule": "The <private>Acme</private> partner API accepts 10 requests per minute; batch calls"}}
    assert helpers.run_cli("save", "--record", json.dumps(rule), cwd=project).returncode == 0
    hand = helpers.record("decision", "vendor-retries", "Vendor API retries back off", ["vendor", KEY,
                                                                                       "<private>Dana</private>"])
    hand["content"]["rationale"] = ["r", {f"password={KEY[4:]}": "x"}]
    helpers.write(e2e.memory_root(project), hand)
    result = e2e.ask(project, "how many vendor api requests per minute may we send, and how do retries work?",
                     e2e.REPO, label="exposure")
    assert result.seen("Vendor [PRIVATE] API allows 10 requests per minute"), result.describe()
    assert result.seen("batch calls"), result.describe()
    sent = json.dumps(result.requests)
    assert KEY not in sent and KEY[4:] not in sent and "Dana" not in sent and "Acme" not in sent
