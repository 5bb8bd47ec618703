"""The fallbacks for what Windows and macOS lack, run here by taking the feature away in-process.

- no ``O_NOFOLLOW``: a link is still refused (``lstat`` before, ``fstat`` after: same device, inode,
  type), also when one is put in the file's place between the two, and ``open_create`` never creates
  through a dangling link;
- ``os.replace`` refused while another program holds the file (Windows' sharing violation): retried for
  about 100 ms, then ``FileBusy``: a clear CLI error, a hook that fails open;
- no ``fcntl``: the store lock goes through ``msvcrt.locking`` and is exclusive;
- no ``/proc``: background work still detaches with no inherited descriptor; Windows' creation flags.
"""
from __future__ import annotations

import json
import os
import time

import pytest

import platform_mask
from helpers import record, write
from team_memory.base import fsutil, safefs, startgate
from team_memory.base.pathtext import inside, slashed


@pytest.fixture
def no_nofollow(monkeypatch):
    monkeypatch.setattr(safefs, "NOFOLLOW", 0)


def test_without_o_nofollow_a_link_is_still_refused(tmp_path, no_nofollow):
    real = tmp_path / "real.json"
    real.write_text("{}")
    os.symlink(real, tmp_path / "link.json")
    assert safefs.read_regular(str(real))[0] == b"{}"
    with pytest.raises(safefs.UnsafePath, match="symbolic link"):
        safefs.read_regular(str(tmp_path / "link.json"))
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(safefs.UnsafePath, match="not a regular file"):
        safefs.read_regular(str(tmp_path / "fifo"))  # refused before any open: never blocks


def test_without_o_nofollow_a_link_swapped_in_after_the_check_is_refused(tmp_path, no_nofollow, monkeypatch):
    target, path = tmp_path / "outside.json", tmp_path / "x.json"
    target.write_text('{"secret": 1}')
    path.write_text("{}")
    real_open = os.open

    def swapping_open(name, *args, **kwargs):  # the race: lstat saw a file, open meets a link
        if str(name) == str(path):
            os.unlink(path)
            os.symlink(target, path)
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(safefs.os, "open", swapping_open)
    with pytest.raises(safefs.UnsafePath, match="replaced while being opened"):
        safefs.read_regular(str(path))


def test_without_o_nofollow_nothing_is_created_through_a_dangling_link(tmp_path, no_nofollow):
    target = tmp_path / "elsewhere" / "made.lock"
    target.parent.mkdir()
    os.symlink(target, tmp_path / ".lock")
    with pytest.raises(safefs.UnsafePath):
        os.close(safefs.open_create(str(tmp_path / ".lock")))
    assert not target.exists()
    fd = safefs.open_create(str(tmp_path / "new.lock"))  # a new name: created (O_EXCL)
    os.write(fd, b"x")
    os.close(fd)
    os.close(safefs.open_create(str(tmp_path / "new.lock")))  # an existing file: opened, not emptied
    assert (tmp_path / "new.lock").read_bytes() == b"x"


def test_cache_and_map_reads_take_the_same_way(tmp_path, no_nofollow):
    (tmp_path / "real").write_text("x")
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(safefs.UnsafePath):
        safefs.open_regular(str(tmp_path / "link"))


def busy_replace(times: list, fail: int):
    real = os.replace

    def replace(src, dst):
        times.append(time.monotonic())
        if len(times) <= fail:
            raise PermissionError(13, "The process cannot access the file because it is being used by another process")
        return real(src, dst)
    return replace


def test_a_file_held_open_briefly_is_replaced_after_a_retry(tmp_path, monkeypatch):
    path = tmp_path / "index.md"
    path.write_text("old")
    times = []
    monkeypatch.setattr(fsutil.os, "replace", busy_replace(times, fail=2))
    fsutil.atomic_write_text(str(path), "new")
    assert path.read_text() == "new" and len(times) == 3


def test_a_file_held_open_for_long_fails_within_a_bound_and_leaves_no_temp(tmp_path, monkeypatch):
    (tmp_path / "store").mkdir()
    path = tmp_path / "store" / "index.md"
    path.write_text("old")
    times = []
    monkeypatch.setattr(fsutil.os, "replace", busy_replace(times, fail=99))
    with pytest.raises(fsutil.FileBusy, match="held open by another program"):
        fsutil.atomic_write_text(str(path), "new")
    assert len(times) == len(fsutil.REPLACE_WAITS) + 1
    assert 0.09 <= times[-1] - times[0] < 1.0
    assert path.read_text() == "old" and [p.name for p in path.parent.iterdir()] == ["index.md"]


def test_the_cli_says_which_file_is_busy_and_a_hook_fails_open(project, memory_root, monkeypatch, capsys):
    from team_memory.cli.main import main
    from team_memory.records.hookio import run_hook
    monkeypatch.chdir(project)
    monkeypatch.setattr(fsutil.os, "replace", busy_replace([], fail=999))
    rec = json.dumps(record("decision", "use-redis", "Use Redis for sessions", ["redis"]))
    assert main(["save", "--record", rec]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "held open by another program" in err and "Traceback" not in err

    def handler(payload):
        fsutil.atomic_write_text(str(memory_root / "index.md"), "x")
    monkeypatch.setattr("sys.stdin", open(os.devnull))
    assert run_hook("UserPromptSubmit", handler, payload={}) == 0
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and "held open" in out.err


def test_without_fcntl_the_lock_is_msvcrt_and_exclusive(memory_root, monkeypatch):
    stand_in = platform_mask._msvcrt(platform_mask.real("fcntl"))  # the real fcntl, on the masked platform too
    monkeypatch.setattr(fsutil, "fcntl", None)
    monkeypatch.setattr(fsutil, "msvcrt", stand_in, raising=False)
    with fsutil.store_lock(str(memory_root)):
        with pytest.raises(fsutil.LockBusy):
            with fsutil.store_lock(str(memory_root), blocking=False):
                pass
    with fsutil.store_lock(str(memory_root), blocking=False):  # released when the holder closed it
        pass
    assert [(mode, n, at) for mode, n, at in stand_in.calls] == [(2, 1, 0)] * 3


@pytest.mark.parametrize("folders, spawned", [(("/no/proc/self/fd", "/dev/fd"), True), (("/no/proc/self/fd",), False)])
def test_without_proc_background_work_still_detaches(tmp_path, monkeypatch, folders, spawned):
    """macOS lists descriptors in /dev/fd (posix_spawn stays); with neither, subprocess does it."""
    monkeypatch.setattr(startgate, "FD_FOLDERS", folders)
    calls = []
    real_spawn = platform_mask.real("posix_spawn")
    monkeypatch.setattr(os, "posix_spawn", lambda *a, **k: (calls.append(a[0]), real_spawn(*a, **k))[1], raising=False)
    read, write_end = os.pipe()
    os.set_inheritable(write_end, True)
    out = tmp_path / "child.txt"
    try:
        assert startgate.start_detached(["/bin/sh", "-c", f"ls /dev/fd > '{out}.fds'; echo done > '{out}'"])
        deadline = time.monotonic() + 10
        while not (out.exists() and out.read_text() == "done\n") and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        os.close(write_end)
        os.close(read)
    assert write_end not in {int(n) for n in (tmp_path / "child.txt.fds").read_text().split()}
    assert bool(calls) == spawned


def test_on_windows_background_work_detaches_with_creation_flags(monkeypatch):
    monkeypatch.setattr(os, "name", "nt")
    flags = startgate.popen_options()["creationflags"]
    assert flags == 0x00000008 | 0x00000200 | 0x08000000  # DETACHED_PROCESS, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW
    monkeypatch.setattr(os, "name", "posix")
    assert startgate.popen_options() == {"start_new_session": True}


def test_path_text_is_compared_with_slashes(monkeypatch):
    assert inside("/a/b/c", "/a/b") and inside("/a/b", "/a/b/") and not inside("/a/bc", "/a/b")
    monkeypatch.setattr(os, "sep", "\\")
    import importlib
    from team_memory.base import pathtext
    importlib.reload(pathtext)
    try:
        assert pathtext.slashed("C:\\repo\\.claude/memory") == "C:/repo/.claude/memory"
        assert pathtext.inside("C:\\repo\\.claude\\memory\\x.json", "C:/repo/.claude/memory")
        assert not pathtext.inside("C:\\repo\\.claude\\memory2", "C:\\repo\\.claude\\memory")
    finally:
        monkeypatch.undo()
        importlib.reload(pathtext)
    assert slashed("/a/b") == "/a/b"


def test_a_windows_store_path_is_guarded_by_the_bash_reader_too(monkeypatch):
    """On Windows the store's real path holds backslashes; the Bash and PowerShell readers compare with /."""
    from team_memory.guards.pwshjudge import judge as pwsh_judge
    from team_memory.guards.shelljudge import judge as bash_judge
    monkeypatch.setattr(os, "sep", "\\")
    import importlib
    from team_memory.base import pathtext
    from team_memory.guards import shellpaths
    importlib.reload(pathtext)
    monkeypatch.setattr(shellpaths, "slashed", pathtext.slashed)
    try:
        store = ["C:\\Users\\me\\app\\.claude\\memory"]
        assert bash_judge("rm decisions/x.json", "C:\\Users\\me\\app\\.claude\\memory", store)
        assert pwsh_judge("Remove-Item decisions\\x.json", "C:\\Users\\me\\app\\.claude\\memory", store)
        assert pwsh_judge("Remove-Item C:/Users/me/app/src/x.py", "C:\\Users\\me\\app", store) is None
    finally:
        monkeypatch.undo()
        importlib.reload(pathtext)
