"""The link-safe file primitives: nothing is opened, created or read through a link, a FIFO never blocks."""
from __future__ import annotations

import os

import pytest

from team_memory.base.safefs import (UnsafePath, UnsafeStore, check_store, make_dir, open_create, read_regular,
                                store_problem)


def test_read_regular_refuses_links_fifos_and_folders_and_bounds_the_read(tmp_path):
    (tmp_path / "real.json").write_bytes(b"x" * 100)
    os.symlink(tmp_path / "real.json", tmp_path / "link.json")
    os.mkfifo(tmp_path / "pipe.json")
    assert read_regular(str(tmp_path / "real.json"))[0] == b"x" * 100
    for name, says in (("link.json", "symbolic link"), ("pipe.json", "not a regular file"), (".", "not a regular")):
        with pytest.raises(UnsafePath, match=says):
            read_regular(str(tmp_path / name))
    with pytest.raises(UnsafePath, match="larger than 10 bytes"):
        read_regular(str(tmp_path / "real.json"), 10)
    with pytest.raises(FileNotFoundError):
        read_regular(str(tmp_path / "missing.json"))


def test_make_dir_and_open_create_never_follow_a_planted_link(tmp_path):
    outside = tmp_path / "outside"
    os.symlink(outside / "made", tmp_path / "dangling-dir")
    os.symlink(outside / "lock", tmp_path / ".lock")
    with pytest.raises(UnsafePath):
        make_dir(str(tmp_path / "dangling-dir"))
    with pytest.raises(UnsafePath):
        os.close(open_create(str(tmp_path / ".lock")))
    assert not outside.exists()
    assert make_dir(str(tmp_path / "real")) == str(tmp_path / "real") and make_dir(str(tmp_path / "real"))
    os.close(open_create(str(tmp_path / "real" / ".lock")))


def test_the_store_rule(tmp_path):
    project, elsewhere = tmp_path / "p", tmp_path / "elsewhere"
    (elsewhere / "memory").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    store = project / ".claude" / "memory"
    assert store_problem(str(store)) is None  # missing: nothing wrong with it yet
    os.symlink(elsewhere / "memory", store)
    with pytest.raises(UnsafeStore, match=r"\.claude/memory is a symbolic link.*git rm \.claude/memory"):
        check_store(str(store))
    os.unlink(store)
    (project / ".claude").rmdir()
    os.symlink(elsewhere, project / ".claude")
    assert ".claude is a symbolic link" in store_problem(str(store))
    (elsewhere / "memory").rmdir()
    (elsewhere / "memory").write_text("")
    os.unlink(project / ".claude")
    (project / ".claude").mkdir()
    (project / ".claude" / "memory").write_text("")
    assert "is not a folder" in store_problem(str(store))
