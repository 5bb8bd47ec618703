"""The PowerShell tool inside the real Claude Code CLI (offline, fake model): the hooks' matchers name it,
a line that writes into the store is denied with the CLI to use, a reading line runs, and a file a
script changed behind the guard is reported afterwards.

Claude Code runs its PowerShell tool (``CLAUDE_CODE_USE_POWERSHELL_TOOL=1``) through the ``pwsh`` it finds
on ``PATH``; here that is a stand-in shell script (no PowerShell on this machine) that logs what it was
asked and, for ``fix.ps1``, writes a memory file the way a script would."""
from __future__ import annotations

import json
import os

import pytest

import e2e_support as e2e

pytestmark = pytest.mark.e2e

FAKE_PWSH = """#!/bin/sh
printf '%s\\n' "$*" >> "{log}"
case "$*" in *fix.ps1*) mkdir -p .claude/memory/decisions; echo '{{"title": "y"}}' > .claude/memory/decisions/y.json;; esac
echo ran
"""


@pytest.fixture(params=["plugin", "drop-in"])
def installed(request, tmp_path, monkeypatch):
    e2e.require_claude()
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    log = tmp_path / "pwsh.log"
    (bin_dir / "pwsh").write_text(FAKE_PWSH.format(log=log))
    (bin_dir / "pwsh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CLAUDE_CODE_USE_POWERSHELL_TOOL", "1")
    if request.param == "plugin":
        return e2e.plugin_project(tmp_path), e2e.REPO, log
    return e2e.dropin_project(tmp_path), None, log


def run(project, plugin, command, label):
    return e2e.run_claude(project, "do it", plugin, label=label, tool_use={"name": "PowerShell", "input": {
        "command": command, "description": "x"}}, claude_args=("--allowedTools", "PowerShell"))


def test_a_powershell_write_into_the_store_is_denied(installed):
    project, plugin, log = installed
    target = e2e.memory_root(project) / "decisions" / "x.json"
    result = run(project, plugin, r"Set-Content -Path .claude\memory\decisions\x.json -Value '{}'", "pwsh deny")
    assert result.returncode == 0, result.describe()
    assert "PreToolUse:PowerShell" in result.describe()
    assert result.seen("written only through the team-memory CLI"), result.describe()
    assert not target.exists() and not log.exists(), result.describe()  # the tool never ran


def test_a_reading_line_runs_and_a_script_s_write_is_reported(installed):
    project, plugin, log = installed
    result = run(project, plugin, r"Get-ChildItem .claude\memory", "pwsh read")
    assert result.returncode == 0 and "Get-ChildItem" in log.read_text(), result.describe()
    result = run(project, plugin, "& ./tools/fix.ps1", "pwsh report")
    assert result.returncode == 0, result.describe()
    assert result.seen(".claude/memory/decisions/y.json changed outside the CLI and is not a valid memory"), \
        result.describe()
    assert json.loads((e2e.memory_root(project) / "decisions" / "y.json").read_text()) == {"title": "y"}
