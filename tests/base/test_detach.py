"""``base.startgate.start_detached``: the child has its own session and none of the hook's descriptors."""
from __future__ import annotations

import os
import time

import pytest

from team_memory.base.startgate import start_detached


def _wait_for(path, seconds: float = 10.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("done\n"):
            return path.read_text()
        time.sleep(0.02)
    raise AssertionError(f"{path} was not written")


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc")
@pytest.mark.parametrize("portable", [False, True])
def test_the_child_has_its_own_session_and_no_inherited_descriptor(tmp_path, monkeypatch, portable):
    if portable:  # the subprocess fallback behaves the same
        monkeypatch.delattr(os, "posix_spawn")
    read, write = os.pipe()
    os.set_inheritable(write, True)  # as a client's pipe could be
    out = tmp_path / "child.txt"
    script = (f"ls /proc/$$/fd > '{out}.fds'; ps -o sid= -p $$ > '{out}.sid' 2>/dev/null || echo none > '{out}.sid'; "
              f"echo done > '{out}'")
    try:
        assert start_detached(["/bin/sh", "-c", script])
        _wait_for(out)
    finally:
        os.close(write)
        os.close(read)
    fds = {int(n) for n in (tmp_path / "child.txt.fds").read_text().split()}
    assert write not in fds
    sid = (tmp_path / "child.txt.sid").read_text().strip()
    if sid != "none":
        assert int(sid) != os.getsid(0)


def test_a_missing_program_is_reported(tmp_path):
    assert start_detached([str(tmp_path / "no-such-program")]) is False
