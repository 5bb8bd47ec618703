"""The real Claude Code CLI (offline, fake model API): a stale memory reaches the model with its suffix after
HEAD moved. Marked ``e2e`` (slow; skips without the CLI or the harness, mandatory under ``.ci/run``)."""
from __future__ import annotations

import json
import shutil
import time

import pytest

import e2e_support as e2e
from team_memory.base import startgate
from test_stale_git import commit, edit, memory, new_repo

pytestmark = pytest.mark.e2e


def test_a_stale_memory_reaches_the_model_with_its_suffix(tmp_path):
    e2e.require_claude()
    project = e2e.plugin_project(tmp_path)
    shutil.rmtree(project / ".git")
    new_repo(project)
    edit(project, "app/session.py", "SESSIONS = 'redis'\n")
    memory(project, ["app/session.py"], days_ago=10)
    commit(project, "sessions in redis", days_ago=9)
    prompt = "how do we keep user sessions in redis?"
    first = e2e.ask(project, prompt, e2e.REPO, label="stale: before")
    assert first.seen("[DECISION] Use Redis for user sessions"), first.describe()
    assert not first.seen("changed since"), first.describe()
    # The first run's background process (the marks were never assessed) holds new starts back for
    # startgate.GRACE_S after it ends (hooks that saw the work undone just before it ended start nothing);
    # a commit after that is what a teammate's next prompt meets.
    time.sleep(startgate.GRACE_S + 0.5)
    edit(project, "app/session.py", "SESSIONS = 'postgres'\n")
    head = commit(project, "move sessions to Postgres", days_ago=2)
    e2e.run_claude(project, prompt, e2e.REPO, label="stale: HEAD moved (recomputed in the background)")
    marks = e2e.memory_root(project) / ".cache" / "stale.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (marks.exists() and json.loads(marks.read_text())["head"] == head):
        time.sleep(0.1)
    result = e2e.ask(project, prompt, e2e.REPO, label="stale: after")
    assert result.seen("(app/session.py changed since; 1 commit)"), result.describe()
