"""The write guards inside the real Claude Code CLI (offline, fake model): a direct Write is denied with the
CLI to use, a Bash redirection is denied, and a file written behind the guard's back is quarantined."""
from __future__ import annotations

import json

import pytest

import e2e_support as e2e

pytestmark = pytest.mark.e2e


@pytest.fixture(params=["plugin", "drop-in"])
def installed(request, tmp_path):
    e2e.require_claude()
    if request.param == "plugin":
        return e2e.plugin_project(tmp_path), e2e.REPO
    return e2e.dropin_project(tmp_path), None


def test_direct_write_is_denied(installed):
    project, plugin = installed
    e2e.scenario_direct_write_denied(project, plugin)


def test_bash_redirection_is_denied_and_the_reason_reaches_the_model(installed):
    project, plugin = installed
    target = e2e.memory_root(project) / "decisions" / "x.json"
    result = e2e.run_claude(project, "save it", plugin, label="bash redirect",
                            tool_use={"name": "Bash", "input": {"command": f"echo '{{}}' > {target}"}},
                            claude_args=("--allowedTools", "Bash"))
    assert result.returncode == 0, result.describe()
    assert not target.exists(), result.describe()
    assert result.seen("written only through the team-memory CLI"), result.describe()
    assert result.seen("save --input -"), result.describe()


def test_a_file_written_behind_the_guard_is_quarantined(installed):
    project, plugin = installed
    (project / "mk.sh").write_text('mkdir -p .claude/memory/decisions\necho \'{"title": "y"}\' > '
                                   ".claude/memory/decisions/y.json\n")
    result = e2e.run_claude(project, "run the script", plugin, label="bash quarantine",
                            tool_use={"name": "Bash", "input": {"command": "sh mk.sh"}},
                            claude_args=("--allowedTools", "Bash"))
    assert result.returncode == 0, result.describe()
    assert result.seen("moved to .claude/memory/.quarantine/decisions/y.json"), result.describe()
    root = e2e.memory_root(project)
    assert not (root / "decisions" / "y.json").exists()
    assert json.loads((root / ".quarantine" / "decisions" / "y.json").read_text()) == {"title": "y"}


def test_a_bash_write_spelled_through_a_variable_and_find_is_denied(installed):
    project, plugin = installed
    keep = e2e.memory_root(project) / "decisions" / "keep.json"
    keep.parent.mkdir(parents=True, exist_ok=True)
    keep.write_text("{}\n")
    (project / "a.pyc").write_text("")
    command = 'M=memory; cd .claude && find $M -name "*.json" -exec rm {} +'
    result = e2e.run_claude(project, "clean up", plugin, label="tricky bash write",
                            tool_use={"name": "Bash", "input": {"command": command}},
                            claude_args=("--allowedTools", "Bash"))
    assert result.returncode == 0, result.describe()
    assert keep.exists(), result.describe()
    assert result.seen("written only through the team-memory CLI"), result.describe()
    assert result.seen("retire ID --reason R"), result.describe()
