"""The write guards inside the real Claude Code CLI (offline, fake model): a direct Write is denied with the
CLI to use, a Bash redirection is denied, and a file written behind the guard's back is reported
and left where it is."""
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
    assert result.seen("save --record "), result.describe()


def test_a_file_written_behind_the_guard_is_reported_and_left_in_place(installed):
    project, plugin = installed
    (project / "mk.sh").write_text('mkdir -p .claude/memory/decisions\necho \'{"title": "y"}\' > '
                                   ".claude/memory/decisions/y.json\n")
    result = e2e.run_claude(project, "run the script", plugin, label="bash report",
                            tool_use={"name": "Bash", "input": {"command": "sh mk.sh"}},
                            claude_args=("--allowedTools", "Bash"))
    assert result.returncode == 0, result.describe()
    assert result.seen(".claude/memory/decisions/y.json changed outside the CLI and is not a valid memory"), \
        result.describe()
    root = e2e.memory_root(project)
    assert json.loads((root / "decisions" / "y.json").read_text()) == {"title": "y"}
    assert not (root / ".quarantine").exists()


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



def test_a_pull_claude_runs_brings_a_sloppy_memory_and_a_link_nothing_moves(tmp_path):
    """The real client runs ``git pull`` (Bash); PostToolUse reports the teammate's slip, moves nothing,
    and a planted ``.quarantine/decisions`` link outside leads nowhere."""
    import os
    import subprocess

    from helpers import record, write
    e2e.require_claude()
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x")

    def git(cwd, *args):
        subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True, capture_output=True,
                       env=env)
    origin, alice, outside = tmp_path / "origin.git", tmp_path / "alice", tmp_path / "outside"
    outside.mkdir()
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(alice))
    write(alice / ".claude" / "memory", record("decision", "use-redis", "Use Redis for sessions", ["redis"]))
    git(alice, "add", "-A")
    git(alice, "commit", "-qm", "start")
    git(alice, "push", "-q", "origin", "HEAD:main")
    project = tmp_path / "plugin-project"
    git(tmp_path, "clone", "-q", str(origin), str(project))
    (alice / ".claude" / "memory" / ".quarantine").mkdir()
    os.symlink(os.path.relpath(outside, alice / ".claude" / "memory" / ".quarantine"),
               alice / ".claude" / "memory" / ".quarantine" / "decisions")
    write(alice / ".claude" / "memory", record("decision", "cache-ttl", "Cache TTL is 5 minutes", ["Redis"]))
    git(alice, "add", "-A")
    git(alice, "commit", "-qm", "sloppy")
    git(alice, "push", "-q", "origin", "HEAD:main")
    result = e2e.run_claude(project, "pull the latest changes", e2e.REPO, label="bash git pull",
                            tool_use={"name": "Bash", "input": {"command": "git pull -q origin main"}},
                            claude_args=("--allowedTools", "Bash"))
    assert result.returncode == 0, result.describe()
    assert result.seen(".claude/memory/decisions/cache-ttl.json changed outside the CLI and is not a valid memory"), \
        result.describe()
    assert (project / ".claude" / "memory" / "decisions" / "cache-ttl.json").exists()
    assert list(outside.iterdir()) == []
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=project,
                            capture_output=True, text=True).stdout
    assert status == "", status
