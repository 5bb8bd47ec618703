"""The pre-commit hook definition: its entry, run as pre-commit runs it, on files staged in a real git repository."""
from __future__ import annotations

import json
import re
import shlex
import subprocess

import yaml

from helpers import REPO, record, write

HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def run_hook(repo, hook: dict):
    """What pre-commit does for a ``language: script`` hook: the entry (relative to the hook repository) plus
    the staged files that match ``files``, run in the consumer repository."""
    staged = git(repo, "diff", "--cached", "--name-only").split()
    files = [f for f in staged if re.search(hook["files"], f)]
    entry = shlex.split(hook["entry"])
    return files, subprocess.run([str(REPO / entry[0]), *entry[1:], *files], cwd=repo, capture_output=True, text=True,
                                 timeout=60)


def test_the_hook_definition_is_complete():
    (hook,) = HOOKS
    assert hook["id"] == "team-memory-validate" and hook["language"] == "script"
    assert hook["entry"].split()[0] == "scripts/memory.py"
    assert (REPO / "scripts" / "memory.py").stat().st_mode & 0o111, "a script hook's entry must be executable"
    pattern = re.compile(hook["files"])
    assert pattern.search(".claude/memory/decisions/use-redis.json")
    for other in (".claude/memory/memory-config.json", ".claude/memory/.quarantine/decisions/x.json",
                  ".claude/memory/decisions/.x.json.abc.tmp", "src/decisions/x.json", ".claude/memory/index.md"):
        assert not pattern.search(other), other


def test_the_hook_blocks_invalid_or_leaky_staged_memories_and_passes_good_ones(tmp_path):
    (hook,) = HOOKS
    repo = tmp_path / "consumer"
    repo.mkdir()
    git(repo, "init", "-q")
    root = repo / ".claude" / "memory"
    good = write(root, record("decision", "use-redis", "Use Redis", tags=["redis"]))
    (root / "memory-config.json").write_text("{}")
    git(repo, "add", ".")
    files, proc = run_hook(repo, hook)
    assert files == [".claude/memory/decisions/use-redis.json"]
    assert proc.returncode == 0, proc.stdout + proc.stderr

    leaky = record("runbook", "deploy", "Deploy", tags=["ci"])
    leaky["content"]["steps"] = ["export TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"]
    write(root, leaky)
    bad = write(root, record("preference", "tabs", "Tabs", tags=["Make"]))
    git(repo, "add", ".")
    files, proc = run_hook(repo, hook)
    assert len(files) == 3 and proc.returncode == 1
    assert "invalid .claude/memory/runbooks/deploy.json" in proc.stdout and "secret" in proc.stdout
    assert "invalid .claude/memory/preferences/tabs.json" in proc.stdout and "'make'" in proc.stdout
    assert "ghp_abcdef" not in proc.stdout + proc.stderr
    assert "3 files checked, 2 invalid" in proc.stdout
    assert json.loads(good.read_text())["id"] == "use-redis" and bad.exists()  # the hook changes nothing
