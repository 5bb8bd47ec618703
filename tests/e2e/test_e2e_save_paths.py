"""SessionStart's orientation line tells Claude how to save (the skill and ``/memory-save``: test_e2e_save_quoting.py;
the Stop reminder: its follower in test_e2e.py), in the one quoting form that survives the real client: the
record as one line of JSON in single quotes, each apostrophe written ``'\\''``. The fake model takes the save
command's start from that path's own text, encodes a record whose title holds ``'``, ``"``, ``$`` and a backquote
(and content with a newline) as the text says, and the real Claude Code runs it in its default permission mode
(the plugin's own approval): the memory lands with exactly that title. Marked ``e2e``."""
from __future__ import annotations

import json
import re

import pytest

import e2e_model
import e2e_support as e2e
import helpers
from e2e_follow import encode_record

pytestmark = pytest.mark.e2e

TITLE = 'Don\'t lint with "flake8" in $CI or `make lint`, use ruff'
RECORD = {"category": "preference", "title": TITLE, "tags": ["ruff", "flake8", "lint"],
          "content": {"topic": "linting", "value": "ruff check . (it's the team's one linter)",
                      "reason": "one tool:\nfaster, and it's what CI runs", "strength": "strong"}}
APOSTROPHE = "'\\''"
CLI = 'python3 "${CLAUDE_PLUGIN_ROOT}/scripts/memory.py"'


def orientation_text(project) -> str:
    proc = helpers.run_hook("session_start.py", {"cwd": str(project), "hook_event_name": "SessionStart",
                                                 "session_id": "s", "source": "startup"}, cwd=str(project))
    return proc.stdout.decode()


PATHS = {"orientation": orientation_text}


@pytest.fixture(scope="module")
def claude_bin():
    return e2e.require_claude()


@pytest.mark.parametrize("path", sorted(PATHS))
def test_each_saving_path_survives_awkward_characters(path, tmp_path, claude_bin):
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    helpers.write(e2e.memory_root(project), helpers.record("decision", "use-redis", "Use Redis for sessions", ["redis"]))
    text = PATHS[path](project)
    assert "\\u0027" not in text, f"{path} still advises a JSON escape for the apostrophe"
    assert APOSTROPHE in text, f"{path} does not say how to write an apostrophe"
    start = re.search(r"(python3 \"[^\"]+memory\.py\") save --record '", text)
    assert start, f"{path} names no save command:\n{text}"
    cli = start.group(1).replace("${CLAUDE_PLUGIN_ROOT}", str(e2e.REPO))
    command = f"{cli} save --record {encode_record(RECORD)}"
    model = e2e_model.Script([("Bash", {"command": command, "description": "save a team memory"})])
    result = e2e_model.run_scripted(project, "save our lint preference", e2e.REPO, model, label=f"save via {path}")
    assert result.returncode == 0, result.describe()
    denials = [d for e in result.events if e.get("type") == "result" for d in e.get("permission_denials") or []]
    assert denials == [], denials
    assert [t for is_error, t in result.tool_results() if is_error] == [], result.tool_results()
    saved = [json.loads(p.read_text()) for p in (e2e.memory_root(project) / "preferences").glob("*.json")]
    assert [s["title"] for s in saved] == [TITLE], saved
    assert saved[0]["content"]["reason"] == RECORD["content"]["reason"]
