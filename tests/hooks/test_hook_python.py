"""Every hook command finds a working Python 3.9+ as ``python3``, ``python`` or ``py -3`` (hooks.json and the
drop-in's settings.json alike): run exactly as Claude Code runs a shell-form hook (``/bin/sh -c``) with a PATH
that holds only the interpreter names under test (a folder of links and stubs, nothing else)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import helpers
from helpers import REPO
from test_install import commands_of, settings

MEMORY = helpers.record("decision", "use-redis-for-sessions", "Use Redis for session storage", tags=["redis", "sessions"])
PROMPT = "how should the login service store redis sessions in production"
TITLE = "[DECISION] Use Redis for session storage"
STORE_STUB = "Python was not found; run without arguments to install from the Microsoft Store, or disable this shortcut"


def script(path, body: str):
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def python_link(folder, name: str = "python"):
    folder.mkdir(exist_ok=True)
    os.symlink(sys.executable, folder / name)


def py_launcher(folder):
    """A ``py`` like Windows' launcher: ``py -3 ARGS`` runs Python 3 with ARGS; anything else fails."""
    folder.mkdir(exist_ok=True)
    script(folder / "py", f'[ "$1" = "-3" ] || exit 103\nshift\nexec "{sys.executable}" "$@"\n')


def store_stub(folder, name: str = "python3"):
    """What the Microsoft Store's alias prints when Python is not installed: an error, exit 9009 (49 here)."""
    folder.mkdir(exist_ok=True)
    script(folder / name, f'echo "{STORE_STUB}" >&2\nexit 9009\n')


def old_python(folder, name: str = "python3"):
    """A Python that says it is 3.8: it runs the launcher as Python would, with ``sys.version_info`` of 3.8."""
    folder.mkdir(exist_ok=True)
    code = ("import runpy, sys; sys.version_info = (3, 8, 18, 'final', 0); sys.version = '3.8.18 (pretend)'; "
            "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")
    script(folder / name, f'[ "$1" = "-S" ] && shift\nexec "{sys.executable}" -S -c "{code}" "$@"\n')


@pytest.fixture()
def project(tmp_path):
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    helpers.write(project / ".claude" / "memory", MEMORY)
    return project


def prompt_hook(command: str, project, bin_dir, **env):
    payload = {"prompt": PROMPT, "cwd": str(project), "hook_event_name": "UserPromptSubmit", "session_id": "s"}
    full_env = dict(os.environ, PATH=str(bin_dir), **env)
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                          cwd=project, env=full_env, timeout=60)


PLUGIN_COMMAND = helpers.hook_command("user_prompt_submit.py")


@pytest.mark.parametrize("machine", ["python only", "py -3 only", "store stub python3, then python",
                                     "python3 3.8, then python", "store stubs, then py -3"])
def test_the_prompt_hook_recalls_with_whichever_python_there_is(machine, project, tmp_path):
    bin_dir = tmp_path / "bin"
    if machine == "python only":
        python_link(bin_dir)
    elif machine == "py -3 only":
        py_launcher(bin_dir)
    elif machine == "store stub python3, then python":
        store_stub(bin_dir)
        python_link(bin_dir)
    elif machine == "python3 3.8, then python":
        old_python(bin_dir)
        python_link(bin_dir)
    else:
        store_stub(bin_dir, "python3")
        store_stub(bin_dir, "python")
        py_launcher(bin_dir)
    assert not (bin_dir / "python3").exists() or machine != "python only"
    proc = prompt_hook(PLUGIN_COMMAND, project, bin_dir, CLAUDE_PLUGIN_ROOT=str(REPO))
    assert proc.returncode == 0, proc.stderr
    assert TITLE in proc.stdout.decode(), (proc.stdout, proc.stderr)
    if machine == "python3 3.8, then python":
        assert b"needs Python 3.9 or newer, not 3.8.18" in proc.stderr


def test_with_python3_the_other_names_are_never_tried(project, tmp_path):
    """python3 that works: ``python`` and ``py`` would fail loudly here, and the hook still answers once."""
    bin_dir = tmp_path / "bin"
    python_link(bin_dir, "python3")
    script(bin_dir / "python", "echo python-was-run >&2\nexit 7\n")
    script(bin_dir / "py", "echo py-was-run >&2\nexit 7\n")
    proc = prompt_hook(PLUGIN_COMMAND, project, bin_dir, CLAUDE_PLUGIN_ROOT=str(REPO))
    assert proc.returncode == 0 and proc.stdout.decode().count(TITLE) == 1, proc.stdout
    assert b"was-run" not in proc.stderr


def test_no_python_at_all_is_a_failure_claude_code_reports_but_never_a_block(project, tmp_path):
    """Nothing to run: the shell's "not found" (127), which Claude Code shows as a hook error without
    blocking the prompt (only exit 2 blocks)."""
    bin_dir = tmp_path / "bin"
    store_stub(bin_dir, "python3")
    proc = prompt_hook(PLUGIN_COMMAND, project, bin_dir, CLAUDE_PLUGIN_ROOT=str(REPO))
    assert proc.returncode not in (0, 2) and proc.stdout == b"", proc


def test_the_drop_in_hooks_fall_back_the_same_way(project, tmp_path):
    """``install`` writes ``${CLAUDE_PROJECT_DIR}`` (braced: PowerShell gets ``${env:...}`` from Claude Code)
    and the same chain; with only ``python`` on PATH its prompt hook recalls."""
    assert helpers.run_cli("install", project).returncode == 0
    commands = [c for c in commands_of(settings(project)) if "user_prompt_submit.py" in c]
    assert commands == [helpers.python_chain("${CLAUDE_PROJECT_DIR}/.claude/team-memory/hooks/user_prompt_submit.py")]
    bin_dir = tmp_path / "bin"
    python_link(bin_dir)
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PLUGIN_ROOT"}
    proc = subprocess.run(["/bin/sh", "-c", commands[0]], capture_output=True, cwd=project, timeout=60,
                          input=json.dumps({"prompt": PROMPT, "cwd": str(project), "session_id": "s"}).encode(),
                          env=dict(env, PATH=str(bin_dir), CLAUDE_PROJECT_DIR=str(project)))
    assert proc.returncode == 0 and TITLE in proc.stdout.decode(), proc


@pytest.mark.parametrize("launcher", sorted(p.name for p in (REPO / "hooks").glob("*.py")))
def test_every_launcher_exits_1_at_once_under_an_old_python(launcher, tmp_path):
    """Exit 1 (not the usual fail-open 0) and nothing read or printed: the chain's next interpreter then runs."""
    bin_dir = tmp_path / "bin"
    old_python(bin_dir)
    proc = subprocess.run([str(bin_dir / "python3"), "-S", str(REPO / "hooks" / launcher)], input=b"{}",
                          capture_output=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == b"", proc
    assert proc.stderr.decode().strip() == "[team-memory] needs Python 3.9 or newer, not 3.8.18"


@pytest.mark.parametrize("machine, name", [("python only", "python"), ("py -3 only", "py -3"), ("python3", "python3")])
def test_hints_name_the_python_that_ran_the_hook(machine, name, project, tmp_path):
    """A denied direct write tells Claude to use the CLI, spelled with the name that works on this machine."""
    bin_dir = tmp_path / "bin"
    if machine == "py -3 only":
        py_launcher(bin_dir)
    else:
        python_link(bin_dir, name)
    target = project / ".claude" / "memory" / "decisions" / "written.json"
    payload = {"tool_name": "Write", "tool_input": {"file_path": str(target), "content": "{}"}, "cwd": str(project),
               "hook_event_name": "PreToolUse", "session_id": "s"}
    proc = subprocess.run(["/bin/sh", "-c", helpers.hook_command("pre_tool_use.py")], input=json.dumps(payload).encode(),
                          capture_output=True, cwd=project, timeout=60,
                          env=dict(os.environ, PATH=str(bin_dir), CLAUDE_PLUGIN_ROOT=str(REPO)))
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny", answer
    assert f'{name} "{REPO / "scripts" / "memory.py"}"' in answer["permissionDecisionReason"], answer


@pytest.mark.parametrize("python, approved", [("python3", True), ("python", True), ("py -3", True),
                                              ("py", False), ("python2", False), ("py -2", False), ("pythonw", False)])
def test_the_hints_every_name_is_approved_and_no_other(python, approved, project):
    from team_memory.guards.autoallow import allow_cli_call
    command = f'{python} "{REPO / "scripts" / "memory.py"}" list'
    assert allow_cli_call(command, str(project), [str(project)]) is approved


# ---------------------------------------------------------------- doctor: a version manager's shim in front of every hook

def shim(folder, name: str = "python3", delay: float = 0.03):
    """A version manager's shim, as pyenv's is: a shell script that takes a while, then runs the interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    return script(folder / name, f'sleep {delay}\nexec "{sys.executable}" "$@"\n')


def hook_python_findings(project, path: str):
    """doctor's hook-python findings with this ``PATH`` (and no pyenv of this machine's in the way)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYENV")}
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "memory.py"), "doctor", "--json"], cwd=project,
                          capture_output=True, text=True, env=dict(env, PATH=path), timeout=60)
    return proc, [f for f in json.loads(proc.stdout)["findings"] if f["kind"] == "hook-python"]


def test_doctor_names_a_shim_in_front_of_the_hooks_and_how_to_skip_it(project, tmp_path):
    bin_dir = tmp_path / "shims"
    shim(bin_dir, delay=0.3)  # far past the 2x-and-10-ms bar however busy the machine (30 ms failed under load)
    assert helpers.run_cli("rebuild", cwd=project).returncode == 0  # a healthy store: only the advisory is left
    proc, found = hook_python_findings(project, str(bin_dir) + os.pathsep + "/usr/bin:/bin")
    assert proc.returncode == 0, proc.stdout  # advisory: a healthy store still passes
    (finding,) = found
    assert finding["warning"] and str(bin_dir / "python3") in finding["message"] and " ms " in finding["message"]
    assert f'PATH="{os.path.dirname(sys.executable)}:$PATH" claude' in finding["fix"], finding
    # started that way, the hooks meet the interpreter: nothing to say
    assert hook_python_findings(project, os.path.dirname(sys.executable) + os.pathsep + str(bin_dir))[1] == []


def test_an_interpreter_on_path_is_not_reported(project, tmp_path):
    bin_dir = tmp_path / "bin"
    python_link(bin_dir, "python3")
    assert hook_python_findings(project, str(bin_dir))[1] == []


@pytest.fixture
def shimmed_project(tmp_path, monkeypatch):
    """A repository whose hooks meet a shim first on PATH; the start times are given, not measured, so what
    is said does not depend on how busy the machine is."""
    from team_memory.cli import doctor
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    shim(tmp_path / "shims")
    for key in [k for k in os.environ if k.startswith("PYENV")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PATH", f"{tmp_path / 'shims'}:/usr/bin:/bin")
    monkeypatch.setattr(doctor, "start_ms", lambda program, environ=None, runs=0:
                        300.0 if str(tmp_path / "shims") in program else 20.0)
    return project


def test_install_says_it_too(shimmed_project, capsys):
    from team_memory.cli.main import main
    project = shimmed_project
    assert main(["install", str(project)]) == 0
    out = capsys.readouterr().out
    assert "a version manager's shim" in out and "claude" in out, out


def test_doctor_checks_the_hooks_python_before_the_first_save(shimmed_project, monkeypatch, capsys):
    """No store yet (a fresh clone, before the first save): doctor still names the shim in front of the hooks
    and exits 0; the old code said only "nothing to show"."""
    from team_memory.cli.main import main
    project = shimmed_project
    monkeypatch.chdir(project)
    assert main(["doctor"]) == 0
    out, err = capsys.readouterr()
    assert "nothing to show: no memory store" in err
    assert "hook-python" in out and "a version manager's shim" in out, out
    assert "the hooks' Python and the installs: no problems; 1 warning(s) above" in out, out
    assert not (project / ".claude").exists()  # a check, not a first save


def test_run_through_pyenv_the_shim_is_still_the_one_the_hooks_meet(tmp_path):
    """``pyenv exec`` puts the version's folder (and its own) first on PATH for the process it starts, so a
    doctor run through the shim would find the interpreter itself; those folders are taken off."""
    from team_memory.cli.doctor import hooks_python
    root = tmp_path / "pyenv"
    shim(root / "shims")
    (root / "versions" / "3.11.7").mkdir(parents=True)
    python_link(root / "versions" / "3.11.7" / "bin", "python3")
    (root / "libexec").mkdir()
    path = os.pathsep.join([str(root / "versions" / "3.11.7" / "bin"), str(root / "libexec"), str(tmp_path / "tools"),
                            str(root / "shims"), str(tmp_path / "system")])
    assert hooks_python({"PATH": path, "PYENV_ROOT": str(root), "PYENV_DIR": str(tmp_path)}) == str(root / "shims" / "python3")
    # not run through pyenv: PATH as it is
    assert hooks_python({"PATH": path, "PYENV_ROOT": str(root)}) == str(root / "versions" / "3.11.7" / "bin" / "python3")


@pytest.mark.parametrize("command", ["demo", "list"])
def test_the_cli_refuses_an_old_python_and_names_its_version(command, tmp_path):
    """``python3.8 scripts/memory.py demo`` (Ubuntu 20.04's python3): exit 1 at once, the version named, nothing run.
    The launcher parses on any Python 3; a real 3.8 on this machine is tried too."""
    bin_dir = tmp_path / "bin"
    old_python(bin_dir)
    real = [p for p in (shutil.which("python3.8"),) if p and "pyenv/shims" not in p]
    for python in [str(bin_dir / "python3"), *real]:
        proc = subprocess.run([python, str(REPO / "scripts" / "memory.py"), command], capture_output=True, text=True,
                              cwd=tmp_path, timeout=60)
        assert proc.returncode == 1 and proc.stdout == "", proc
        assert "team-memory needs Python 3.9 or newer; this is Python 3.8." in proc.stderr, proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr


# ---------------------------------------------------------------- the chain never blocks and never runs a hook twice

def session_hook(command: str, project, bin_dir, **env):
    payload = {"cwd": str(project), "hook_event_name": "SessionStart", "session_id": "s", "source": "startup"}
    full_env = dict(os.environ, PATH=str(bin_dir), **env)
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                          cwd=project, env=full_env, timeout=60)


def test_a_hook_that_ran_then_failed_is_not_run_again_by_the_next_python(project, tmp_path):
    """``python3`` runs the hook, prints its answer, then exits 1 (a flush that failed, a wrapper's own error):
    ``python`` finds stdin already read and leaves it there, so the answer is given once and stands (exit 0)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script(bin_dir / "python3", f'"{sys.executable}" "$@"\nexit 1\n')
    python_link(bin_dir)
    command = helpers.hook_command("session_start.py")
    alone = session_hook(command.replace("python3 -S", "python -S", 1), project, bin_dir, CLAUDE_PLUGIN_ROOT=str(REPO))
    assert alone.returncode == 0 and alone.stdout, alone  # what SessionStart says here, once
    proc = session_hook(command, project, bin_dir, CLAUDE_PLUGIN_ROOT=str(REPO))
    assert proc.stdout == alone.stdout, proc.stdout  # on main: printed twice
    assert proc.returncode == 0 and b"skipped" not in proc.stderr, proc


@pytest.mark.parametrize("machine", ["all three", "py -3 only", "python only"])
def test_a_launcher_that_cannot_be_opened_is_an_error_but_never_a_block(machine, project, tmp_path):
    """A plugin updated under a running session, a drop-in missing on this branch: every interpreter exits 2
    ("can't open file"), which Claude Code would read as "block"; the chain ends in 1 instead."""
    bin_dir = tmp_path / "bin"
    if machine in ("all three", "py -3 only"):
        py_launcher(bin_dir)
    if machine in ("all three", "python only"):
        python_link(bin_dir)
    if machine == "all three":
        python_link(bin_dir, "python3")
    proc = prompt_hook(PLUGIN_COMMAND, project, bin_dir, CLAUDE_PLUGIN_ROOT=str(tmp_path / "gone"))
    assert proc.returncode == 1 and proc.stdout == b"", proc  # on main: 2 (py -3's, or python's)
