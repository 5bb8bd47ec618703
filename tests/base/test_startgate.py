"""At most one background process for one piece of work, however many hooks ask at once (``base.startgate``)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import types

from helpers import REPO
from team_memory.base.startgate import GRACE_S, LIFETIME_S, first_to_start, release

# One hook's hand-over, with the detached start recorded instead of made (the decision is what is tested).
ASK = """
import os, sys
sys.path.insert(0, sys.argv[1])
from team_memory.base import startgate
def record(argv):
    with open(sys.argv[3], "a") as f:
        f.write("%d\\n" % os.getpid())
    return True
startgate.start_detached = record
from team_memory.derived.drift import recompute_in_background
sys.stdin.read()  # all start together
recompute_in_background(sys.argv[2])
"""


def later(monkeypatch, seconds: float) -> None:
    """The gate's clock ``seconds`` ahead: what a hook sees that much later, without waiting for it."""
    from team_memory.base import startgate
    monkeypatch.setattr(startgate, "time", types.SimpleNamespace(time=lambda: time.time() + seconds,
                                                                 time_ns=lambda: time.time_ns() + int(seconds * 1e9)))


def test_forty_hooks_after_head_moved_start_one_background_process(memory_root, tmp_path):
    (memory_root / ".cache").mkdir(parents=True)
    started = tmp_path / "started"
    started.write_text("")
    procs = [subprocess.Popen([sys.executable, "-S", "-c", ASK, str(REPO / "scripts"), str(memory_root), str(started)],
                              stdin=subprocess.PIPE) for _ in range(40)]
    for proc in procs:
        proc.stdin.close()
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    assert len(started.read_text().split()) == 1


def test_the_marker_frees_itself_after_its_lifetime(tmp_path):
    assert first_to_start(str(tmp_path), "work.starting")
    assert not first_to_start(str(tmp_path), "work.starting")
    marker = tmp_path / "work.starting"
    old = time.time() - LIFETIME_S - 1
    os.utime(marker, (old, old))
    assert first_to_start(str(tmp_path), "work.starting")  # expired: one more, and its time renewed
    assert not first_to_start(str(tmp_path), "work.starting")
    os.utime(marker, (time.time() + 3600, time.time() + 3600))  # a clock set back: never blocked for an hour
    assert first_to_start(str(tmp_path), "work.starting")
    assert not first_to_start(str(tmp_path), "work.starting")


def test_a_planted_marker_link_or_folder_is_never_followed(tmp_path):
    target = tmp_path / "elsewhere"
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "work.starting").symlink_to(target)
    first_to_start(str(tmp_path / "cache"), "work.starting")  # stale: cleared, never followed
    assert not target.exists() and not (tmp_path / "cache" / "work.starting").is_symlink()


def test_the_hand_over_is_gated_per_work(memory_root, monkeypatch):
    from team_memory.derived import drift
    started = []
    monkeypatch.setattr("team_memory.base.startgate.start_detached", lambda argv: started.append(argv[-1]) or True)
    memory_root.mkdir(parents=True, exist_ok=True)
    assert drift.hand_over(str(memory_root), "os.path", "exists")
    assert not drift.hand_over(str(memory_root), "os.path", "exists")
    assert drift.hand_over(str(memory_root), "team_memory.derived.driftmarks", "finish_marks_in_background")
    assert len(started) == 2
    assert (memory_root / ".cache" / ".gitignore").exists()  # the folder it made ignores itself


def test_a_finished_run_frees_the_marker_for_new_work(tmp_path, monkeypatch):
    claim = first_to_start(str(tmp_path), "work.starting")
    assert claim and not first_to_start(str(tmp_path), "work.starting")
    release(str(tmp_path), "work.starting", claim + 1)  # not its claim (another took it since): left alone
    assert not first_to_start(str(tmp_path), "work.starting")
    release(str(tmp_path), "work.starting", claim)
    assert not first_to_start(str(tmp_path), "work.starting")  # a hook that saw the work undone just before the end
    later(monkeypatch, GRACE_S + 0.1)
    again = first_to_start(str(tmp_path), "work.starting")
    assert again and not first_to_start(str(tmp_path), "work.starting")


def test_the_started_process_releases_its_marker(memory_root, monkeypatch):
    """A real detached start (a harmless function of the standard library): when it ends, the next may start."""
    from team_memory.derived import drift
    memory_root.mkdir(parents=True, exist_ok=True)
    assert drift.hand_over(str(memory_root), "os.path", "exists")
    marker = memory_root / ".cache" / "exists.starting"
    claimed = marker.stat().st_mtime_ns
    deadline = time.monotonic() + 30
    while marker.stat().st_mtime_ns == claimed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.stat().st_mtime < time.time() - LIFETIME_S + GRACE_S  # released: free within GRACE_S
    later(monkeypatch, GRACE_S + 0.1)
    assert drift.hand_over(str(memory_root), "os.path", "exists")


import pytest  # noqa: E402


@pytest.mark.parametrize("name", ["finish_in_background.starting", "finish_marks_in_background.starting"])
@pytest.mark.parametrize("shape", ["folder", "link", "dangling-link"])
def test_a_committed_marker_that_is_not_our_file_is_stale(tmp_path, name, shape):
    """A folder or link a teammate committed in the marker's place never holds the work back for good."""
    cache = tmp_path / ".cache"
    cache.mkdir()
    marker = cache / name
    if shape == "folder":
        marker.mkdir()
        (marker / "keep").write_text("committed\n")
    else:
        target = tmp_path / "elsewhere"
        if shape == "link":
            target.write_text("outside\n")
        os.symlink(target, marker)
    claim = first_to_start(str(cache), name)
    assert claim, "the work would never start again"  # on main: 0 on every call
    assert marker.is_file() and not marker.is_symlink()
    assert not first_to_start(str(cache), name)  # and it is a real marker again: the next caller waits its turn
    if shape == "link":
        assert (tmp_path / "elsewhere").read_text() == "outside\n"


def test_doctor_reports_a_committed_marker_folder(memory_root):
    from helpers import run_cli
    (memory_root / ".cache" / "finish_in_background.starting").mkdir(parents=True)
    (memory_root / ".cache" / "finish_in_background.starting" / "keep").write_text("committed\n")
    proc = run_cli("doctor", "--root", memory_root)
    assert proc.returncode != 0 and "start marker" in proc.stdout, proc.stdout
    assert ".cache/finish_in_background.starting" in proc.stdout and "git rm -r" in proc.stdout
