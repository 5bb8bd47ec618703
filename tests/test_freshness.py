"""Every change on disk is seen by the next prompt: in-place rewrites, racy stamps, big files."""
from __future__ import annotations

import json
import os
import time

from helpers import record, run_cli, run_hook, write
from team_memory.derived import cache as cachemod
from team_memory.derived import freshness, reader
from team_memory.base.config import load_config
from team_memory.derived.refresh import index_is_stale, rebuild_index

HOOK = "user_prompt_submit.py"


def _store(memory_root):
    write(memory_root, record("decision", "keep", "Kafka topic naming", ["kafka"], days_ago=300))
    target = write(memory_root, record("decision", "target", "Redis eviction policy", ["redis"], days_ago=300))
    config = load_config(str(memory_root))
    time.sleep(0.05)  # the files and the folder settle first: nothing is re-read for being recent
    rebuild_index(str(memory_root), config)
    time.sleep(0.05)  # past the racy window: the cache trusts every stamp
    return target, config


def _rewrite_in_place(path, old: str, new: str) -> None:
    """Truncate and rewrite the same file (same inode, same size), then set its mtime and its
    folder's back: what an editor's in-place save looks like to anything but the ctime."""
    assert len(old) == len(new)
    st, folder_st = os.stat(path), os.stat(path.parent)
    text = path.read_text(encoding="utf-8").replace(old, new)
    with open(path, "r+", encoding="utf-8") as f:
        f.truncate(0)
        f.write(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.utime(path.parent, ns=(folder_st.st_atime_ns, folder_st.st_mtime_ns))
    after, folder_after = os.stat(path), os.stat(path.parent)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns)
    assert folder_after.st_mtime_ns == folder_st.st_mtime_ns


def test_an_in_place_rewrite_is_seen_by_the_hook_search_and_index(project, memory_root):
    target, config = _store(memory_root)
    _rewrite_in_place(target, '"Redis eviction policy"', '"Mongo sharding keys!!"')
    _rewrite_in_place(target, '"redis"', '"mongo"')
    assert index_is_stale(str(memory_root), config)  # what doctor reports: the hooks will rebuild it
    out = run_hook(HOOK, {"prompt": "how do we pick mongo sharding keys?", "cwd": str(project)})
    assert out.returncode == 0
    assert b"Mongo sharding keys!!" in out.stdout and b"#tags:mongo" in out.stdout
    assert not index_is_stale(str(memory_root), config)  # and the hook did
    index = (memory_root / "index.md").read_text(encoding="utf-8")
    assert "Mongo sharding keys!!" in index and "Redis eviction" not in index
    found = run_cli("search", "mongo sharding", "--root", project, "--json")
    assert found.returncode == 0 and "Mongo sharding keys!!" in found.stdout


def test_search_alone_sees_an_in_place_rewrite(project, memory_root):
    target, _ = _store(memory_root)
    _rewrite_in_place(target, '"Redis eviction policy"', '"Mongo sharding keys!!"')
    found = run_cli("search", "mongo sharding", "--root", project, "--json")
    assert found.returncode == 0 and "Mongo sharding keys!!" in found.stdout


def test_a_change_in_the_same_clock_tick_as_the_read_is_read_again(project, memory_root, monkeypatch):
    """Racy clean: the file changes right after it was read, within one tick of the file
    clock, so its stamp (ctime included) looks like the one recorded. It must not be trusted."""
    target, config = _store(memory_root)
    real = reader.read_memory_file

    def read_then_rewritten(path):
        data, _ = real(path)
        if os.path.basename(path) == "target.json":
            _rewrite_in_place(target, '"Redis eviction policy"', '"Mongo sharding keys!!"')
            return data, os.stat(path)  # the old bytes with the new stamp: the same tick, as far as stamps tell
        return data, _
    monkeypatch.setattr(reader, "read_memory_file", read_then_rewritten)
    rebuild_index(str(memory_root), config)
    monkeypatch.undo()
    assert "Redis eviction policy" in (memory_root / "index.md").read_text(encoding="utf-8")
    with cachemod.Cache(cachemod.cache_path(str(memory_root))) as cache:
        assert freshness.stale_folders(cache, {"decision": "decisions"}) == ["decisions"]
    out = run_hook(HOOK, {"prompt": "how do we pick mongo sharding keys?", "cwd": str(project)})
    assert b"Mongo sharding keys!!" in out.stdout


def test_a_huge_memory_file_is_skipped_unread_and_reported(project, memory_root):
    _store(memory_root)
    huge = memory_root / "decisions" / "huge.json"
    with open(huge, "wb") as f:  # 100 MB, sparse: costs nothing on disk
        f.truncate(100 * 1024 * 1024)
    started = time.monotonic()
    out = run_cli("rebuild", "--root", project)
    assert out.returncode == 0
    assert "huge.json" in out.stderr and "larger than 1 MiB" in out.stderr
    assert time.monotonic() - started < 20
    hook = run_hook(HOOK, {"prompt": "redis eviction policy please", "cwd": str(project)})
    assert b"Redis eviction policy" in hook.stdout
    with cachemod.Cache(cachemod.cache_path(str(memory_root))) as cache:
        assert cache.folder_files("decision")["huge.json"][3] == -1  # recorded, not indexed, not read again


def test_a_fifo_in_a_category_folder_is_never_waited_on(project, memory_root):
    _store(memory_root)
    os.mkfifo(memory_root / "decisions" / "pipe.json")
    out = run_hook(HOOK, {"prompt": "redis eviction policy please", "cwd": str(project)}, timeout=20)
    assert b"Redis eviction policy" in out.stdout
    assert json.loads(run_cli("search", "redis eviction", "--root", project, "--json").stdout)


def test_doctor_sees_an_in_place_rewrite_and_the_next_prompt_settles_it(project, memory_root):
    target, _ = _store(memory_root)
    _rewrite_in_place(target, '"Redis eviction policy"', '"Mongo sharding keys!!"')
    before = run_cli("doctor", "--root", project)
    assert "stale-index" in before.stdout + before.stderr
    run_hook(HOOK, {"prompt": "anything about mongo sharding?", "cwd": str(project)})
    after = run_cli("doctor", "--root", project)
    assert "stale-index" not in after.stdout + after.stderr
