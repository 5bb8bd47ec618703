"""Writing memories: ids, create/update/status, retention, nothing private on disk, atomicity under kill -9,
and optimistic concurrency between real processes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone

import pytest

from helpers import CONTENT, REPO, read_index, record, run_cli, write
from team_memory.cli.main import main
from team_memory.base.config import load_config
from team_memory.records.store import slugify
from team_memory.records.privacy import PrivateTagError
from team_memory.records.validate import ValidationError
from team_memory.edits.write import WriteError, content_hash, create_memory, set_status, update_memory


def new(category="decision", title="Use Redis for sessions", tags=("redis",), **extra):
    rec = {"category": category, "title": title, "tags": list(tags), "content": dict(CONTENT[category])}
    rec.update(extra)
    return rec


def store_bytes(memory_root) -> bytes:
    """Every byte under the store (memories, index, quarantine, temp files)."""
    out = b""
    for folder, _, names in os.walk(memory_root):
        for name in sorted(names):
            with open(os.path.join(folder, name), "rb") as f:
                out += f.read()
    return out


def snapshot(memory_root) -> dict:
    return {os.path.relpath(os.path.join(d, n), memory_root): open(os.path.join(d, n), "rb").read()
            for d, _, names in os.walk(memory_root) for n in names if n != ".lock"}


@pytest.mark.parametrize("title, slug", [
    ("Use Redis for sessions", "use-redis-for-sessions"),
    ("  Fix: pydantic ImportError (v2)!  ", "fix-pydantic-importerror-v2"),
    ("Кэш в Redis", "redis"),
    ("Café crème brûlée", "cafe-creme-brulee"),
    ("Ｆｕｌｌ　ｗｉｄｔｈ", "full-width"),
    ("evil\U000e0069\U000e0067\U000e006e id\u202e", "evil-id"),
])
def test_slugs_are_ascii_and_readable(title, slug):
    assert slugify(title) == slug


def test_slug_falls_back_to_a_stable_hash_and_is_bounded():
    assert slugify("!!! ???") == slugify("!!! ???")
    assert slugify("!!! ???").startswith("memory-") and slugify("!!! ???") != slugify("...")
    assert slugify("") .startswith("memory-")
    long = slugify("word " * 100)
    assert len(long) <= 60 and not long.endswith("-")
    assert slugify("語" * 200).startswith("memory-") and slugify("日本語のタイトル").isascii()


def test_create_writes_a_valid_file_and_updates_the_index(memory_root):
    config = load_config(str(memory_root))
    result = create_memory(str(memory_root), config, new(tags=["Redis", "redis", "Sessions"]))
    assert (result.id, result.category, result.action) == ("use-redis-for-sessions", "decision", "created")
    saved = json.loads(open(result.path, encoding="utf-8").read())
    assert saved["tags"] == ["redis", "sessions"] and saved["record_status"] == "active"
    assert saved["created_at"] == saved["updated_at"] and saved["created_at"].endswith("Z")
    assert result.hash == content_hash(result.path)
    assert [e["path"] for e in read_index(str(memory_root))] == [".claude/memory/decisions/use-redis-for-sessions.json"]


def test_collisions_get_a_suffix_and_never_overwrite(memory_root):
    config = load_config(str(memory_root))
    first = create_memory(str(memory_root), config, new())
    before = open(first.path, "rb").read()
    second = create_memory(str(memory_root), config, new(category="runbook"))  # ids are unique store-wide
    third = create_memory(str(memory_root), config, new(id="use-redis-for-sessions"))
    assert (second.id, third.id) == ("use-redis-for-sessions-2", "use-redis-for-sessions-3")
    assert open(first.path, "rb").read() == before


def test_invalid_input_writes_nothing(memory_root):
    config = load_config(str(memory_root))
    create_memory(str(memory_root), config, new())
    before = snapshot(memory_root)
    bad_inputs = [new(title=""), new(tags=[]), dict(new(), category="idea"), new(content={"status": "maybe"}),
                  new(extra=1), new(record_status="retired"), new(id="../x"), "not a record",
                  new(content={**CONTENT["decision"], "context": "<private>unclosed"})]
    for bad in bad_inputs:
        with pytest.raises((ValidationError, PrivateTagError)):
            create_memory(str(memory_root), config, bad)
    assert snapshot(memory_root) == before


def test_private_and_secret_text_never_reaches_disk(memory_root):
    config = load_config(str(memory_root))
    private, secret = "PRIVATE-PLAN-7731", "sk-proj-" + "Zx9" * 10
    rec = new(title=f"Deploy <private>{private}</private> keys", related_files=[f"<private>{private}</private>"])
    rec["content"]["context"] = f"use {secret} and password=Hunter2Hunter2 for\n<private>\n{private}\n</private>"
    rec["content"]["rationale"] = [f"token: {secret}", "postgres://u:Pa55w0rd@db/x"]
    result = create_memory(str(memory_root), config, rec)
    assert (result.private_sections, result.secrets_redacted) == (3, 4)
    update_memory(str(memory_root), config, result.id, {"content": {"decision": f"<private>{private}</private> {secret}"}},
                  summary=f"with password={secret}")
    set_status(str(memory_root), config, result.id, "retire", reason=f"leaked {secret} <private>{private}</private>")
    data = store_bytes(memory_root)
    for leaked in (private, secret, "Hunter2Hunter2", "Pa55w0rd"):
        assert leaked.encode() not in data
    assert b"[PRIVATE]" in data and b"[REDACTED]" in data


def test_update_keeps_identity_bumps_counters_and_trims_history(memory_root):
    config = load_config(str(memory_root))
    result = create_memory(str(memory_root), config, new())
    original = json.loads(open(result.path).read())
    for i in range(55):
        update_memory(str(memory_root), config, result.id, {"content": {"consequences": [f"c{i}"]}})
    final = update_memory(str(memory_root), config, result.id, {"title": "Use Valkey for sessions", "tags": ["valkey"]},
                          summary="switched")
    rec = json.loads(open(final.path).read())
    assert {k: rec[k] for k in ("id", "category", "created_at")} == {k: original[k] for k in ("id", "category", "created_at")}
    assert rec["times_updated"] == 56 and len(rec["changes"]) == 50 and rec["changes"][-1]["summary"] == "switched"
    assert rec["content"]["consequences"] == ["c54"] and rec["content"]["decision"] == "d"
    assert read_index(str(memory_root))[0]["title"] == "Use Valkey for sessions"
    update_memory(str(memory_root), config, result.id, {"content": {"consequences": None}})
    assert "consequences" not in json.loads(open(final.path).read())["content"]


def test_update_refusals(memory_root):
    config = load_config(str(memory_root))
    result = create_memory(str(memory_root), config, new())
    before = snapshot(memory_root)
    with pytest.raises(ValidationError) as info:
        update_memory(str(memory_root), config, result.id, {"id": "x", "created_at": "x", "record_status": "retired"})
    assert {p.field for p in info.value.problems} == {"id", "created_at", "record_status"}
    with pytest.raises(ValidationError):
        update_memory(str(memory_root), config, result.id, {"content": {"status": "maybe"}})
    with pytest.raises(WriteError, match="changed since"):
        update_memory(str(memory_root), config, result.id, {"title": "New"}, expect_hash="0" * 64)
    with pytest.raises(WriteError, match="nothing to update"):
        update_memory(str(memory_root), config, result.id, {})
    with pytest.raises(WriteError, match="no memory"):
        update_memory(str(memory_root), config, "nope", {"title": "x"})
    assert snapshot(memory_root) == before
    ok = update_memory(str(memory_root), config, result.id, {"title": "New"}, expect_hash=result.hash[:12])
    assert ok.hash != result.hash


def test_status_transitions(memory_root):
    config = load_config(str(memory_root))
    mid = create_memory(str(memory_root), config, new()).id
    with pytest.raises(WriteError, match="needs --reason"):
        set_status(str(memory_root), config, mid, "retire")
    with pytest.raises(WriteError, match="cannot restore"):
        set_status(str(memory_root), config, mid, "restore")
    assert set_status(str(memory_root), config, mid, "archive", "done").status == "archived"
    assert read_index(str(memory_root)) == []
    with pytest.raises(WriteError, match="archived"):
        update_memory(str(memory_root), config, mid, {"title": "x"})
    assert set_status(str(memory_root), config, mid, "active").action == "unarchived"
    assert set_status(str(memory_root), config, mid, "retired", "wrong").action == "retired"
    rec = json.loads(open(memory_root / "decisions" / f"{mid}.json").read())
    assert rec["retired_reason"] == "wrong" and "archived_at" not in rec
    restored = set_status(str(memory_root), config, mid, "restore")
    rec = json.loads(open(restored.path).read())
    assert rec["record_status"] == "active" and "retired_at" not in rec
    assert [c["summary"] for c in rec["changes"]] == ["archived: done", "unarchived", "retired: wrong", "restored"]


def test_recently_retired_ids_are_not_recreated_without_force(memory_root):
    config = load_config(str(memory_root))
    mid = create_memory(str(memory_root), config, new()).id
    set_status(str(memory_root), config, mid, "retire", "superseded")
    before = snapshot(memory_root)
    with pytest.raises(WriteError, match="retired at .*less than 24 hours"):
        create_memory(str(memory_root), config, new())
    assert snapshot(memory_root) == before
    forced = create_memory(str(memory_root), config, new(), force=True)
    assert forced.id == f"{mid}-2" and json.loads(open(memory_root / "decisions" / f"{mid}.json").read())[
        "record_status"] == "retired"
    old = record("decision", "old-one", "Old one", ["x"], record_status="retired",
                 retired_at=(datetime.now(timezone.utc) - timedelta(hours=25)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    write(memory_root, old)
    assert create_memory(str(memory_root), config, new(title="Old one")).id == "old-one-2"


def test_an_approved_save_never_retires_a_teammates_summaries(memory_root, capsys):
    """``save`` runs without asking (guards/autoallow.py): a committed ``max_retained`` of 1 must not let it
    retire every other summary. It says how many are past; ``gc`` (which Claude Code asks about) retires them."""
    (memory_root / "memory-config.json").write_text('{"categories": {"session_summary": {"max_retained": 2}}}')
    for day in (5, 4, 3):
        write(memory_root, record("session_summary", f"s{day}", f"Session {day}", ["s"], days_ago=day))
    saved = {"category": "session_summary", "title": "Session today", "tags": ["s"], "content": CONTENT["session_summary"]}
    assert main(["save", "--root", str(memory_root), "--record", json.dumps(saved)]) == 0
    assert "2 older session summaries past" in capsys.readouterr().out
    statuses = {p.stem: json.loads(p.read_text())["record_status"] for p in (memory_root / "sessions").glob("*.json")}
    assert set(statuses.values()) == {"active"} and len(statuses) == 4  # on main: s4 and s5 retired
    assert main(["gc", "--root", str(memory_root), "--dry-run"]) == 0
    assert "would retire 2 older session summaries" in capsys.readouterr().out
    assert main(["gc", "--root", str(memory_root)]) == 0
    statuses = {p.stem: json.loads(p.read_text())["record_status"] for p in (memory_root / "sessions").glob("*.json")}
    assert statuses["s4"] == statuses["s5"] == "retired" and statuses["s3"] == "active"
    assert "max_retained" in json.loads((memory_root / "sessions" / "s5.json").read_text())["retired_reason"]
    assert sorted(e["title"] for e in read_index(str(memory_root))) == ["Session 3", "Session today"]


# --- real processes -------------------------------------------------------------------------------

CHILD = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {scripts!r})
    from team_memory.base.config import load_config
    from team_memory.edits.write import update_memory
    real_replace = os.replace
    def slow_replace(src, dst):
        if dst.endswith({target!r}) and {stage!r} == "before":
            print("READY", flush=True); time.sleep(60)
        real_replace(src, dst)
        if dst.endswith({target!r}) and {stage!r} == "after":
            print("READY", flush=True); time.sleep(60)
    os.replace = slow_replace
    root = {root!r}
    update_memory(root, load_config(root), {mid!r}, {{"content": {{"context": "NEW " * 2000}}}})
""")


@pytest.mark.parametrize("stage", ["before", "after"])
def test_kill_9_mid_write_leaves_the_old_or_the_new_file(memory_root, stage):
    config = load_config(str(memory_root))
    result = create_memory(str(memory_root), config, new())
    old = open(result.path, "rb").read()
    script = CHILD.format(scripts=str(REPO / "scripts"), target=f"{result.id}.json", stage=stage,
                          root=str(memory_root), mid=result.id)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "READY"  # the temp file is written and fsynced
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    now = open(result.path, "rb").read()
    if stage == "before":
        assert now == old
        assert any(n.endswith(".tmp") for n in os.listdir(memory_root / "decisions"))  # it really died mid-write
    else:
        assert json.loads(now)["content"]["context"].startswith("NEW ")
    # The kernel released the dead writer's lock: the next write goes through at once.
    assert update_memory(str(memory_root), config, result.id, {"title": "After the crash"}).action == "updated"
    assert [n for n in os.listdir(memory_root / "decisions") if n.endswith(".json")] == [f"{result.id}.json"]


def test_two_processes_with_the_same_expect_hash_cannot_both_win(project, memory_root):
    config = load_config(str(memory_root))
    result = create_memory(str(memory_root), config, new())
    for round_ in range(3):
        expected = content_hash(result.path)
        procs = [subprocess.Popen([sys.executable, str(REPO / "scripts" / "memory.py"), "update", result.id,
                                   "--root", str(project), "--title", f"Writer {i} round {round_}",
                                   "--expect-hash", expected], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i in range(2)]
        outcomes = [(p.wait(timeout=60), p.stderr.read()) for p in procs]
        codes = sorted(code for code, _ in outcomes)
        assert codes == [0, 1], outcomes
        assert any("changed since it was read" in err for _, err in outcomes)
        rec = json.loads(open(result.path).read())
        assert rec["title"].startswith("Writer ") and rec["times_updated"] == round_ + 1


def test_cli_refuses_nothing_written_in_a_subprocess(project, memory_root):
    before = snapshot(memory_root)
    proc = run_cli("add", "--root", project, "--category", "runbook", "--title", "x", "--tag", "t",
                   "--content-json", '{"trigger": "t", "steps": [], "verification": "v", "bogus": 1}')
    assert proc.returncode == 1
    assert "content.steps" in proc.stderr and "content.bogus" in proc.stderr and "nothing was written" in proc.stderr
    assert snapshot(memory_root) == before


def test_a_killed_writer_s_old_temp_file_is_swept_by_the_next_write(memory_root):
    """A temp file as ``fsutil.create_temp`` names it, left by a writer killed mid-write, is removed by the next
    write into its folder once it is a minute old; a fresh one (a live writer's, in principle) is kept."""
    from team_memory.base.fsutil import create_temp
    config = load_config(str(memory_root))
    folder = memory_root / "decisions"
    folder.mkdir(parents=True, exist_ok=True)
    old_fd, old = create_temp(str(folder / "gone.json"))
    new_fd, fresh = create_temp(str(folder / "writing.json"))
    os.close(old_fd)
    os.close(new_fd)
    os.utime(old, (os.path.getmtime(old) - 120,) * 2)
    create_memory(str(memory_root), config, new())
    assert not os.path.exists(old)
    assert os.path.exists(fresh)
