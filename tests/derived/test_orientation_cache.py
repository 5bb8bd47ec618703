"""The SessionStart orientation from the machine cache gives the answer an index built from the records gives.

``summary`` takes counts and each memory's time from the store's index (the cache, current, its
unchanged entries reused when files change); the same built from every record must agree after
an in-place edit of ``updated_at``, a retire and an add; the real hook prints the same text with
the cache and without a usable one.
"""
from __future__ import annotations

import json
import os
import shutil

from helpers import iso, record, run_hook, write
from team_memory.base.config import load_config
from team_memory.capture import orientation
from team_memory.derived.cache import cache_path


def both(memory_root):
    root, config = str(memory_root), load_config(str(memory_root))
    from_cache = orientation.summary(root, config)
    os.unlink(cache_path(root))
    from_records = orientation.summary(root, config)
    return from_cache, from_records


def populate(memory_root):
    for i in range(12):  # several decisions on the same day: ties keep the index order
        write(memory_root, record("decision", f"d{i:02d}", f"Decision number {i:02d}", days_ago=1 + (i * 7) % 5))
    write(memory_root, record("decision", "no-time", "Decision without times", updated_at="soon", created_at=None))
    write(memory_root, record("decision", "created-only", "Decision with a creation time", updated_at=None,
                              created_at=iso(0.5)))
    for i in range(5):
        write(memory_root, record("constraint", f"c{i}", f"Constraint {i}", days_ago=i + 0.25))
    write(memory_root, record("runbook", "r1", "A runbook"))


def edit_in_place(path, **changes):
    """Rewrite a memory file in place (same inode, as an editor that truncates and writes)."""
    rec = json.loads(path.read_text())
    rec.update(changes)
    with open(path, "r+", encoding="utf-8") as f:
        f.truncate(0)
        f.write(json.dumps(rec, indent=2) + "\n")


def test_cache_answer_matches_the_records_through_edits(project, memory_root):
    populate(memory_root)
    cached, read = both(memory_root)
    assert cached is not None and cached == read
    assert cached[0] == 20 and cached[1] == {"decision": 14, "constraint": 5, "runbook": 1}
    assert cached[2]["decision"][0] == "Decision with a creation time"

    inode = os.stat(memory_root / "decisions" / "d11.json").st_ino
    edit_in_place(memory_root / "decisions" / "d11.json", updated_at=iso(0.01))  # now the newest
    assert os.stat(memory_root / "decisions" / "d11.json").st_ino == inode
    cached, read = both(memory_root)
    assert cached == read and cached[2]["decision"][0] == "Decision number 11"

    edit_in_place(memory_root / "decisions" / "d11.json", record_status="retired")
    write(memory_root, record("constraint", "c-new", "A brand-new constraint", days_ago=0.001))
    cached, read = both(memory_root)
    assert cached == read and cached[1]["decision"] == 13 and "Decision number 11" not in cached[2]["decision"]
    assert cached[2]["constraint"][0] == "A brand-new constraint"


def test_hook_prints_the_same_with_and_without_a_usable_cache(project, memory_root):
    populate(memory_root)
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    first = run_hook("session_start.py", payload, cwd=str(project))
    again = run_hook("session_start.py", payload, cwd=str(project))  # the cache as it is: no upkeep
    assert first.returncode == again.returncode == 0 and first.stdout == again.stdout
    assert b"Decision with a creation time" in first.stdout
    cache = cache_path(str(memory_root))
    with open(cache, "r+b") as f:  # a corrupt cache: rebuilt, or the records read; the same answer
        f.truncate(100)
    broken = run_hook("session_start.py", payload, cwd=str(project))
    assert broken.returncode == 0 and broken.stdout == first.stdout and b"Traceback" not in broken.stderr
    elsewhere = project.parent / "elsewhere"  # a .cache that is a link: never read or written through,
    elsewhere.mkdir()                          # so no usable cache at all: the index and the records
    shutil.rmtree(os.path.dirname(cache))
    os.symlink(elsewhere, os.path.dirname(cache))
    no_cache = run_hook("session_start.py", payload, cwd=str(project))
    assert no_cache.returncode == 0 and no_cache.stdout == first.stdout and not os.listdir(elsewhere)
