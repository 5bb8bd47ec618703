"""Snapshots left by tool calls Claude Code refused after PreToolUse allowed them are swept."""
from __future__ import annotations

import os
import time

from helpers import run_hook
from team_memory.base.state import SWEEP_LIMIT as SNAPSHOT_SWEEP
from team_memory.base.state import TAKEN_BACK, prune, save_state, state_dir

SNAPSHOT_MAX_AGE_S = TAKEN_BACK["tool-snapshot"]


def pre_bash(project, call_id):
    return {"tool_name": "Bash", "tool_input": {"command": "python3 build.py"}, "cwd": str(project),
            "session_id": "s1", "tool_use_id": call_id, "hook_event_name": "PreToolUse"}


def snapshots(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("tool-snapshot-"))


def age(path, seconds):
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_refused_calls_leave_no_snapshots_behind(project, memory_root):
    # three calls PreToolUse allowed and Claude Code then refused: no PostToolUse took their snapshot back
    for i in range(3):
        assert run_hook("pre_tool_use.py", pre_bash(project, f"toolu_refused{i}"), cwd=project).returncode == 0
    folder = state_dir(str(memory_root))
    left = snapshots(folder)
    assert len(left) == 3
    save_state(str(memory_root), "shown", "s1", {"ids": []})  # a session's own state is not a snapshot
    for name in left[:2]:
        age(os.path.join(folder, name), SNAPSHOT_MAX_AGE_S + 60)
    for name in os.listdir(folder):
        if name.startswith("shown-"):
            age(os.path.join(folder, name), SNAPSHOT_MAX_AGE_S + 60)
    run_hook("pre_tool_use.py", pre_bash(project, "toolu_next"), cwd=project)
    after = snapshots(folder)
    assert left[2] in after and not set(left[:2]) & set(after)  # old ones gone, the recent one kept
    assert len(after) == 2  # the recent one and the new call's own
    assert any(n.startswith("shown-") for n in os.listdir(folder))  # other state is kept (pruned after days)


def test_the_sweep_is_bounded(tmp_path):
    folder = tmp_path / "state"
    folder.mkdir()
    for i in range(SNAPSHOT_SWEEP + 5):
        path = folder / f"tool-snapshot-{i}.json"
        path.write_text("{}")
        age(path, SNAPSHOT_MAX_AGE_S + 60)
    (folder / "other-1.json").write_text("{}")
    age(folder / "other-1.json", SNAPSHOT_MAX_AGE_S + 60)
    days = SNAPSHOT_MAX_AGE_S / 86400
    assert prune(str(folder), days, prefix="tool-snapshot-", limit=SNAPSHOT_SWEEP) == SNAPSHOT_SWEEP
    assert prune(str(folder), days, prefix="tool-snapshot-", limit=SNAPSHOT_SWEEP) == 5
    assert sorted(os.listdir(folder)) == ["other-1.json"]
