"""Every hook starts ``python3 -S`` (plugin and drop-in), falls back to ``python`` and ``py -3``, and needs
nothing from site-packages."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import REPO, python_chain, run_cli
from test_install import commands_of, hooks_json_commands

LAUNCHERS = sorted(p.name for p in (REPO / "hooks").glob("*.py"))


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
