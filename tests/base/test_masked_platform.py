"""The hooks, the CLI and the guard on the masked platform (``tests/platform_mask.py``), through the fallbacks.

Each real launcher is run as ``python3 -S tests/platform_mask.py <launcher>``, so the child has no
``O_NOFOLLOW``, ``fcntl``, ``posix_spawn`` or ``/proc`` and an ``os.sep`` of ``\\``; the mask's trace
(``TEAM_MEMORY_MASK_TRACE``) shows the fallback branches ran: safefs without ``O_NOFOLLOW``, the lock
through ``msvcrt``, background work through ``subprocess``. The last test reruns a representative
subset of the suite in the pytest mode (``TEAM_MEMORY_MASK_POSIX=1``); it is slow, so CI runs it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import MASK, REPO, hook_command, record, write

UPS, PRE, POST = "user_prompt_submit.py", "pre_tool_use.py", "post_tool_use.py"


@pytest.fixture
def trace(tmp_path, monkeypatch):
    path = tmp_path / "mask-trace.jsonl"
    monkeypatch.setenv("TEAM_MEMORY_MASK_TRACE", str(path))
    return path


def lines(path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def masked_hook(event_file: str, payload: dict, cwd):
    launcher = '"${CLAUDE_PLUGIN_ROOT}/hooks/'
    command = hook_command(event_file).replace(launcher, f'"{MASK}" {launcher}', 1)
    assert str(MASK) in command
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                          cwd=cwd, env=dict(os.environ, CLAUDE_PLUGIN_ROOT=str(REPO)), timeout=60)


def masked_cli(*args, cwd):
    return subprocess.run([sys.executable, str(MASK), str(REPO / "scripts" / "memory.py"), *args],
                          capture_output=True, text=True, cwd=cwd, timeout=60)


def masked_python(code: str, folder):
    """Run ``code`` (which finds the package in ``sys.argv[1]``) as a script on the masked platform."""
    script = folder / "probe.py"
    script.write_text(code)
    return subprocess.run([sys.executable, "-S", str(MASK), str(script), str(REPO / "scripts")], capture_output=True,
                          text=True, timeout=60)


def test_the_mask_takes_the_features_away(tmp_path):
    code = ("import os, sys, json\n"
            "sys.path.insert(0, sys.argv[1])\n"
            "from team_memory.base import fsutil, safefs, startgate\n"
            "try:\n    import fcntl; has_fcntl = True\nexcept ImportError:\n    has_fcntl = False\n"
            "try:\n    os.listdir('/proc/self/fd'); proc = True\nexcept OSError:\n    proc = False\n"
            "fsutil._lock(os.open(sys.argv[0], os.O_RDONLY), False)\n"
            "print(json.dumps([hasattr(os, 'O_NOFOLLOW'), has_fcntl, hasattr(os, 'posix_spawn'), proc, os.sep,\n"
            "                  safefs.NOFOLLOW, fsutil.fcntl is None, startgate._inherited() is not None]))\n")
    out = masked_python(code, tmp_path)
    assert out.returncode == 0, out.stderr
    # /dev/fd is still there (as on macOS): descriptors are listed from it
    assert json.loads(out.stdout) == [False, False, False, False, "\\", 0, True, True]


def test_the_prompt_hook_recalls_and_refuses_a_linked_memory_without_o_nofollow(project, memory_root, tmp_path, trace):
    write(memory_root, record("decision", "use-redis", "Use Redis for sessions", ["redis", "sessions"]))
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(record("decision", "planted", "Planted postgres sessions secret", ["postgres"])))
    os.symlink(outside, memory_root / "decisions" / "planted.json")
    proc = masked_hook(UPS, {"prompt": "how do we store redis sessions?", "cwd": str(project), "session_id": "s",
                             "hook_event_name": "UserPromptSubmit"}, project)
    assert proc.returncode == 0
    assert b"Use Redis for sessions" in proc.stdout and b"Planted" not in proc.stdout
    proc = masked_hook(UPS, {"prompt": "what about postgres sessions secret planted?", "cwd": str(project),
                             "session_id": "s2", "hook_event_name": "UserPromptSubmit"}, project)
    assert b"Planted" not in proc.stdout
    runs = lines(trace)
    assert runs and all(r["nofollow"] == 0 and r["fcntl"] is False for r in runs)  # the fallback branches ran
    assert any(r["locks"] for r in runs)  # the index was built under the msvcrt lock


@pytest.mark.parametrize("tool, line", [("PowerShell", r"Set-Content -Path .claude\memory\decisions\x.json -Value 1"),
                                        ("Bash", "echo 1 > .claude/memory/decisions/x.json")])
def test_the_guard_denies_on_the_masked_platform(project, memory_root, tool, line, trace):
    write(memory_root, record("decision", "x", "Use Redis"))
    payload = {"tool_name": tool, "tool_input": {"command": line}, "cwd": str(project), "session_id": "s",
               "tool_use_id": "t1", "hook_event_name": "PreToolUse"}
    proc = masked_hook(PRE, payload, project)
    assert proc.returncode == 0 and proc.stderr == b""
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    read = r"Get-Content .claude\memory\decisions\x.json" if tool == "PowerShell" else "cat .claude/memory/decisions/x.json"
    reading = dict(payload, tool_input={"command": read})
    assert masked_hook(PRE, reading, project).stdout == b""
    assert lines(trace)


def test_the_cli_writes_under_the_msvcrt_lock_and_refuses_a_link(project, memory_root, tmp_path, trace):
    rec = record("decision", "use-redis", "Use Redis for sessions", ["redis"])
    del rec["created_at"], rec["updated_at"], rec["record_status"], rec["schema_version"]
    out = masked_cli("save", "--record", json.dumps(rec), cwd=project)
    assert out.returncode == 0, out.stderr
    assert (memory_root / "decisions" / "use-redis.json").is_file()
    assert masked_cli("list", cwd=project).stdout.count("use-redis") == 1
    assert any(r["locks"] and r["nofollow"] == 0 for r in lines(trace))
    (tmp_path / "target.json").write_text("{}")
    os.symlink(tmp_path / "target.json", memory_root / "decisions" / "linked.json")
    out = masked_cli("show", "linked", cwd=project)
    assert out.returncode != 0 and "Traceback" not in out.stderr


def test_background_work_starts_through_subprocess(project, memory_root, trace):
    """No posix_spawn: the prompt hook hands a rebuild to a detached child started by subprocess."""
    for i in range(3):
        write(memory_root, record("decision", f"d{i}", f"Decision {i} about caching", ["caching"]))
    code = ("import sys\nsys.path.insert(0, sys.argv[1])\n"
            "from team_memory.base.startgate import start_detached\n"
            "print(start_detached([sys.executable, '-c', 'pass']))\n")
    out = masked_python(code, project)
    assert out.stdout.strip() == "True", out.stderr
    assert ["start_new_session"] in [p for r in lines(trace) for p in r["popen"]]


# test_detach.py needs /proc (it checks the child's descriptors there): it runs unmasked.
SUBSET = ["tests/base/test_platform.py", "tests/base/test_safefs.py", "tests/guards/test_guards.py",
          "tests/guards/test_pwsh.py", "tests/guards/test_toolgate.py",
          "tests/hooks/test_hook_user_prompt_submit.py", "tests/cli/test_cli_write.py",
          "tests/cli/test_cli_admin.py", "tests/records/test_hardening.py", "tests/hooks/test_recall_by_file.py",
          "tests/derived/test_index.py", "tests/cli/test_cli_advice.py", "tests/derived/test_cache.py",
          "tests/records/test_relpaths.py"]


@pytest.mark.slow
def test_a_representative_subset_passes_on_the_masked_platform():
    env = dict(os.environ, TEAM_MEMORY_MASK_POSIX="1")
    env.pop("TEAM_MEMORY_REQUIRE_E2E", None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUBSET], cwd=REPO,
                          capture_output=True, text=True, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert " passed" in proc.stdout.splitlines()[-1]
