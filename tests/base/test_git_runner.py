"""Every git run goes through ``base.gitlog.run_git``: no fetch in a partial clone whatever its config names,
and at the time-out nothing git started lives on."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO, record, run_cli, write

COMMITTER = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com", "GIT_COMMITTER_NAME": "Dev",
             "GIT_COMMITTER_EMAIL": "dev@example.com"}


def git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env=dict(os.environ, **COMMITTER)).stdout.strip()


def script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def partial_clone(tmp_path: Path) -> tuple:
    """A repository that says it is a partial clone of ``origin``, whose upload-pack is a script leaving a
    marker, with its HEAD's tree missing (so reading the log needs a fetch), and a memory tied to a file."""
    marker = tmp_path / "FETCHED"
    upload = script(tmp_path / "upload-pack.sh", f"echo ran >> '{marker}'\nexit 1\n")
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "app" / "session.py").write_text("SESSIONS = 'redis'\n")
    write(repo / ".claude" / "memory", record("decision", "use-redis", "Use Redis for user sessions",
                                              tags=["redis"], days_ago=10, related_files=["app/session.py"]))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    (repo / "app" / "session.py").write_text("SESSIONS = 'valkey'\n")
    git(repo, "commit", "-qam", "two")
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.url", str(tmp_path / "nowhere")), ("remote.origin.promisor", "true"),
                       ("remote.origin.uploadpack", str(upload)), ("uploadpack.packObjectsHook", str(upload)),
                       ("protocol.file.allow", "always"), ("core.sshCommand", str(upload))):
        git(repo, "config", key, value)
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    return repo, marker


def test_the_setup_does_fetch_with_plain_git(tmp_path):
    """The marker is written when git is run plainly: the test below would see a fetch."""
    repo, marker = partial_clone(tmp_path)
    subprocess.run(["git", "log", "--raw", "-1"], cwd=repo, capture_output=True)
    assert marker.exists()


def test_no_path_of_ours_fetches_in_a_partial_clone(tmp_path):
    repo, marker = partial_clone(tmp_path)
    memory_root = str(repo / ".claude" / "memory")
    for args in (("review",), ("review", "--json"), ("stats",), ("show", "use-redis"), ("doctor",)):
        proc = run_cli(*args, cwd=repo)
        assert proc.returncode in (0, 1), (args, proc.stderr)
        assert not marker.exists(), args
    sys.path.insert(0, str(REPO / "scripts"))
    from team_memory.derived.driftmarks import finish_marks_in_background
    from team_memory.guards.posttool import in_git
    finish_marks_in_background(memory_root)  # what the prompt hook hands over when HEAD moved
    held = git(repo, "hash-object", ".claude/memory/decisions/use-redis.json")  # committed, in the pack
    assert in_git(str(repo), {"1" * 40, held}) == {held}  # PostToolUse's look-up: the missing one is not fetched
    time.sleep(0.2)
    assert not marker.exists()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie waits for its reaper: not running
    except FileNotFoundError:
        return False


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_a_timed_out_git_is_stopped_with_everything_it_started(tmp_path, monkeypatch):
    """A git that starts a child (a fetch, a shell) and hangs: at the time-out the whole group is killed."""
    from team_memory.base.gitlog import run_git
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pids = tmp_path / "pids"
    script(bin_dir / "git", f"sleep 300 &\necho $! > '{pids}'\necho partial\nsleep 300\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    started = time.monotonic()
    assert run_git(str(tmp_path), ["log"], timeout=1.0) == (b"partial\n", False)
    assert time.monotonic() - started < 10
    child = int(pids.read_text())
    for _ in range(50):  # SIGKILL is delivered at once; the reaper may take a moment
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)


def test_only_the_runner_starts_git():
    """The modules that start processes at all: git's runner, the detached background process, the editor,
    the demo's hook run and doctor's look at the interpreter the hooks start (``hook_python``: that program,
    never git); none of the others imports ``subprocess`` (PostToolUse's ``git cat-file`` once did)."""
    package = REPO / "scripts" / "team_memory"
    starters = {str(p.relative_to(package)) for p in package.rglob("*.py")
                if "import subprocess" in p.read_text(encoding="utf-8")}
    assert starters == {"base/gitlog.py", "base/startgate.py", "edits/editing.py", "cli/cmd_store.py", "cli/doctor.py"}
