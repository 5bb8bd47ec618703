"""Every hook starts ``python3 -S`` (plugin and drop-in), falls back to ``python`` and ``py -3``, and needs
nothing from site-packages."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import REPO, python_chain, run_cli
from test_install import commands_of, hooks_json_commands

LAUNCHERS = sorted(p.name for p in (REPO / "hooks").glob("*.py") if p.name != "launch.py")  # launch.py: their shared code


def test_every_hook_in_hooks_json_runs_without_site():
    commands = hooks_json_commands()
    assert len(commands) == len(LAUNCHERS) == 5
    assert sorted(commands) == sorted(python_chain("${CLAUDE_PLUGIN_ROOT}/hooks/" + name) for name in LAUNCHERS), commands


def test_the_drop_in_install_writes_the_same_flags(tmp_path):
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    assert run_cli("install", str(project)).returncode == 0
    installed = commands_of(json.loads((project / ".claude" / "settings.json").read_text()))
    assert sorted(installed) == sorted(python_chain("${CLAUDE_PROJECT_DIR}/.claude/team-memory/hooks/" + name)
                                      for name in LAUNCHERS)


def test_no_hook_imports_site_or_anything_from_site_packages(project):
    """Run each launcher under -S and list what it imported: nothing from site-packages, no ``site``."""
    payload = json.dumps({"prompt": "x", "cwd": str(project), "tool_name": "Bash",
                          "tool_input": {"command": "python3 x.py"}, "session_id": "s"})
    probe = ("import runpy, sys; sys.argv = [sys.argv[1]]\n"
             "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "print('\\n'.join(f'{n} {getattr(m, \"__file__\", None)}' for n, m in list(sys.modules.items())), file=sys.stderr)")
    for name in LAUNCHERS:
        proc = subprocess.run([sys.executable, "-S", "-c", probe, str(REPO / "hooks" / name)], input=payload.encode(),
                              capture_output=True, cwd=project, timeout=60)
        loaded = proc.stderr.decode().splitlines()
        assert proc.returncode == 0 and any(line.startswith("team_memory ") for line in loaded), (name, proc.stderr[-500:])
        assert not [line for line in loaded if line.startswith("site ") or "-packages" + os.sep in line], name


def test_each_event_has_one_handler_run_by_the_one_launcher():
    """``hooks/<event>.py`` names its event; ``hooks/launch.py`` runs ``team_memory.handlers.<event>.handle``."""
    import importlib
    sys.path.insert(0, str(REPO / "hooks"))
    try:
        launch = importlib.import_module("launch")
    finally:
        sys.path.remove(str(REPO / "hooks"))
    for event, module in launch.HANDLERS.items():
        assert f'run("{event}")' in (REPO / "hooks" / f"{module}.py").read_text()
        assert callable(importlib.import_module(f"team_memory.handlers.{module}").handle)
    assert sorted(f"{module}.py" for module in launch.HANDLERS.values()) == LAUNCHERS


def test_a_tool_call_reads_its_project_folder_once(tmp_path, monkeypatch):
    """The guard, the snapshot and recall by file each ask ``project_dir_of``: a ``ToolCall`` answers from what it
    read once, without another look at the file system."""
    from team_memory.records import hookio
    payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(tmp_path), "session_id": "s"}
    call = hookio.ToolCall(payload)
    assert call == payload and call.tool == "Bash" and call.input == {"command": "ls"} and call.session == "s"
    monkeypatch.setattr(os.path, "isdir", lambda path: pytest.fail(f"looked at {path} again"))
    assert hookio.project_dir_of(call) == str(tmp_path)
