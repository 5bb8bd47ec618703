"""index.md: format, parsing, atomic rebuild, freshness, path safety."""
from __future__ import annotations

import os
import time

from helpers import record, write
from team_memory.base.config import load_config
from seed_scorer import build_entries
from team_memory.derived.index import index_path, parse_index_line, resolve_entry_path
from team_memory.derived.refresh import current_index, index_is_outdated, rebuild_index


def test_rebuild_writes_seed_format_sorted(memory_root):
    write(memory_root, record("runbook", "fix-pydantic-import", "Fix pydantic ImportError", ["pydantic", "import", "error"]))
    write(memory_root, record("decision", "use-pydantic-v2", "Use pydantic v2", ["pydantic", "validation"]))
    write(memory_root, record("decision", "b-first", "a decision sorted first", []))
    write(memory_root, record("decision", "gone", "Retired one", [], record_status="retired"))
    config = load_config(str(memory_root))
    assert rebuild_index(str(memory_root), config) == 3
    text = open(index_path(str(memory_root)), encoding="utf-8").read()
    assert text.startswith("# Memory Index\n")
    lines = [l for l in text.splitlines() if l.startswith("- ")]
    assert lines == [
        "- [DECISION] a decision sorted first -> .claude/memory/decisions/b-first.json",
        "- [DECISION] Use pydantic v2 -> .claude/memory/decisions/use-pydantic-v2.json #tags:pydantic,validation",
        "- [RUNBOOK] Fix pydantic ImportError -> .claude/memory/runbooks/fix-pydantic-import.json #tags:pydantic,import,error",
    ]
    assert not [n for n in os.listdir(memory_root) if n.endswith(".tmp")]


def test_titles_and_tags_sanitized_in_index(memory_root):
    write(memory_root, record("decision", "evil", "ok -> ../../etc/passwd #tags:x\u202e\nmore", ["A,B", "  "]))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    (line,) = [l for l in open(index_path(str(memory_root))).read().splitlines() if l.startswith("- ")]
    parsed = parse_index_line(line)
    assert parsed["path"] == ".claude/memory/decisions/evil.json"
    assert parsed["tags"] == ["ab"]
    assert parsed["title"] == "ok - ../../etc/passwd x more"


def test_rebuild_on_empty_store_replaces_stale_index(memory_root):
    (memory_root / "index.md").write_text("# Memory Index\n\n- [DECISION] old -> .claude/memory/decisions/old.json\n")
    assert rebuild_index(str(memory_root), load_config(str(memory_root))) == 0
    assert "- [" not in (memory_root / "index.md").read_text()


def test_invalid_files_are_skipped_not_fatal(memory_root, capsys):
    write(memory_root, record("decision", "good", "Good one", []))
    write(memory_root, record("decision", "bad", "x", []), raw="{not json")
    write(memory_root, record("decision", "list", "x", []), raw="[1, 2]")
    entries = build_entries(str(memory_root), load_config(str(memory_root)))
    assert [e["title"] for e in entries] == ["Good one"]
    err = capsys.readouterr().err
    assert "bad.json" in err and "list.json" in err


def test_parse_index_line_rejects_junk():
    assert parse_index_line("- [NOPE] t -> p.json") is None
    assert parse_index_line("random text") is None
    assert parse_index_line("- [DECISION] t -> a.json #tags:X, y ,") == {
        "category": "DECISION", "title": "t", "path": "a.json", "tags": ["x", "y"]}


def test_outdated_index_detects_new_edited_and_removed_files(memory_root):
    config = load_config(str(memory_root))
    p = write(memory_root, record("decision", "a", "A", []))
    assert index_is_outdated(str(memory_root), config)
    rebuild_index(str(memory_root), config)
    assert not index_is_outdated(str(memory_root), config)
    future = time.time() + 5
    os.utime(p, (future, future))  # an in-place edit
    assert index_is_outdated(str(memory_root), config)
    rebuild_index(str(memory_root), config)
    os.unlink(p)
    os.utime(p.parent, (future + 5, future + 5))
    assert index_is_outdated(str(memory_root), config)


def test_current_index_rebuilds_stale_index(memory_root):
    config = load_config(str(memory_root))
    write(memory_root, record("decision", "a", "Alpha", []))
    index = current_index(str(memory_root), config)
    assert [index.entry(i)["title"] for i in range(index.n)] == ["Alpha"]
    assert (memory_root / "index.md").exists()


def test_current_index_does_not_wait_for_a_held_lock(memory_root):
    from team_memory.base.fsutil import store_lock
    config = load_config(str(memory_root))
    write(memory_root, record("decision", "a", "Alpha", []))
    with store_lock(str(memory_root)):  # held as any writer holds it (flock, or msvcrt on the masked platform)
        import subprocess, sys, json
        code = ("import sys,json;sys.path.insert(0,%r);from team_memory.derived.refresh import current_index;"
                "from team_memory.base.config import load_config;r=%r;x=current_index(r, load_config(r));"
                "print(json.dumps([x.entry(i)['title'] for i in range(x.n)]))") % (
            str(__import__('helpers').REPO / 'scripts'), str(memory_root))
        t = time.time()
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
        assert time.time() - t < 5
        assert json.loads(out.stdout) == ["Alpha"]  # built in memory, not written
        assert not (memory_root / "index.md").exists()


def test_resolve_entry_path_rejects_escapes(project, memory_root, tmp_path):
    config = load_config(str(memory_root))
    write(memory_root, record("decision", "ok", "ok", []))
    outside = tmp_path / "secret.json"
    outside.write_text("{}")
    (memory_root / "decisions" / "link.json").symlink_to(outside)
    ok = {"category": "DECISION", "path": ".claude/memory/decisions/ok.json"}
    assert resolve_entry_path(str(memory_root), config, ok) == os.path.realpath(memory_root / "decisions" / "ok.json")
    for bad in ["/etc/passwd", ".claude/memory/decisions/../../../secret.json", "../secret.json",
                ".claude/memory/decisions/link.json", ".claude/memory/memory-config.json",
                ".claude/memory/runbooks/ok.json"]:
        assert resolve_entry_path(str(memory_root), config, {"category": "DECISION", "path": bad}) is None, bad


def test_source_times_are_never_read_through_a_link(memory_root, tmp_path):
    from team_memory.derived.index import newest_source_mtime
    write(memory_root, record("decision", "use-redis", "Use Redis", ["redis"]))
    config = load_config(str(memory_root))
    before = newest_source_mtime(str(memory_root), config)
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    future = time.time() + 10 * 86400
    os.utime(outside, (future, future))
    link = memory_root / "decisions" / "linked.json"
    os.symlink(outside, link)
    os.utime(memory_root / "decisions", (before, before))  # only the link's target is newer
    os.utime(link, (before, before), follow_symlinks=False)
    assert newest_source_mtime(str(memory_root), config) < future
