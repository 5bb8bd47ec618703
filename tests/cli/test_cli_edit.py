"""edit (with a fake editor script) and add's questions on a terminal (a real pseudo-terminal)."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

from helpers import REPO, record, write
from team_memory.cli.main import main


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """A fake $EDITOR: a Python script that applies the next of the given edits to the file it opens."""
    def make(*edits, status: int = 0):
        plan = tmp_path / "edits.json"
        plan.write_text(json.dumps(list(edits)))
        script = tmp_path / "fake-editor"
        script.write_text(textwrap.dedent(f"""\
            #!{sys.executable}
            import json, sys
            plan = json.load(open({str(plan)!r}))
            step = plan.pop(0)
            json.dump(plan, open({str(plan)!r}, "w"))
            path = sys.argv[-1]
            text = open(path).read()
            open({str(tmp_path / 'seen.log')!r}, "a").write(path + "\\n")
            if step.get("raw") is not None:
                text = step["raw"]
            else:
                rec = json.loads(text)
                for key, value in step.get("set", {{}}).items():
                    target = rec
                    *parents, last = key.split(".")
                    for p in parents:
                        target = target[p]
                    target[last] = value
                for key in step.get("drop", []):
                    rec.pop(key)
                text = json.dumps(rec, indent=2)
            open(path, "w").write(text)
            sys.exit(step.get("status", {status}))
        """))
        script.chmod(0o755)
        monkeypatch.setenv("EDITOR", str(script))
        return plan
    return make


def stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_edit_updates_through_the_write_path(project, memory_root, editor, capsys, monkeypatch):
    path = write(memory_root, record("decision", "use-redis", "Use Redis", tags=["redis"], times_updated=2))
    before = json.loads(path.read_text())
    editor({"set": {"title": "Use Valkey", "content.decision": "Valkey, password=hunter2hunter2", "tags": ["valkey"]}})
    assert main(["edit", "use-redis", "--root", str(project)]) == 0
    assert capsys.readouterr().out.startswith("updated use-redis -> ")
    after = json.loads(path.read_text())
    assert after["title"] == "Use Valkey" and after["tags"] == ["valkey"]
    assert "hunter2" not in after["content"]["decision"]  # the privacy filters ran
    assert (after["id"], after["category"], after["created_at"]) == (before["id"], before["category"], before["created_at"])
    assert after["times_updated"] == 3 and after["changes"][-1]["summary"] == "edited by hand"
    assert after["updated_at"] > before["updated_at"]
    assert "Use Valkey" in (memory_root / "index.md").read_text()


def test_an_invalid_edit_is_shown_and_reopened_with_the_text_kept(project, memory_root, editor, capsys, monkeypatch,
                                                                   tmp_path):
    path = write(memory_root, record("runbook", "fix-ci", "Fix CI", tags=["ci"]))
    editor({"set": {"content.steps": "not a list", "color": "red"}},
           {"set": {"content.steps": ["rerun"]}, "drop": ["color"]})
    stdin(monkeypatch, "\n")  # Enter: edit again
    assert main(["edit", "fix-ci", "--root", str(project)]) == 0
    err = capsys.readouterr().err
    assert "content.steps: must be a list" in err and "color: is kept by team-memory" in err
    assert json.loads(path.read_text())["content"]["steps"] == ["rerun"]
    opened = (tmp_path / "seen.log").read_text().splitlines()
    assert len(opened) == 2 and opened[0] == opened[1] and opened[0].endswith("fix-ci.json")
    assert not os.path.exists(opened[0])  # the temp copy is gone after a save


def test_stopping_after_an_error_keeps_the_text_in_a_recovery_file(project, memory_root, editor, capsys, monkeypatch):
    path = write(memory_root, record("runbook", "fix-ci", "Fix CI", tags=["ci"]))
    stored = path.read_text()
    editor({"raw": '{"title": "half written", '})
    stdin(monkeypatch, "q\n")
    assert main(["edit", "fix-ci", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert "is not valid JSON" in err and "is kept for 7 days in " in err
    recovery = err.split("is kept for 7 days in ")[1].split(" ")[0]
    assert open(recovery).read() == '{"title": "half written", ' and path.read_text() == stored
    # continue from the recovery file
    editor({"raw": json.dumps(dict(json.loads(stored), title="Fix CI fast"))})
    assert main(["edit", "fix-ci", "--root", str(project), "--from", recovery]) == 0
    assert json.loads(path.read_text())["title"] == "Fix CI fast"


def test_an_editor_failure_or_end_of_input_never_loses_the_edit(project, memory_root, editor, capsys, monkeypatch):
    write(memory_root, record("decision", "d", "D", tags=["x"]))
    editor({"set": {"title": "Changed"}, "status": 1})
    assert main(["edit", "d", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert "exited with status 1" in err and "kept for 7 days in" in err
    editor({"set": {"id": "other"}})
    stdin(monkeypatch, "")  # no terminal answer: stop
    assert main(["edit", "d", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert "id: is kept by team-memory" in err and "kept for 7 days in" in err


def test_a_concurrent_change_is_not_overwritten(project, memory_root, editor, capsys, tmp_path):
    path = write(memory_root, record("decision", "d", "D", tags=["x"]))
    plan = editor({"set": {"title": "Mine"}})
    # the editor script also changes the stored file behind our back
    script = tmp_path / "fake-editor"
    script.write_text(script.read_text().replace("sys.exit(", f"open({str(path)!r}, 'a').write(' ')\nsys.exit("))
    assert main(["edit", "d", "--root", str(project)]) == 1
    assert "changed since it was read" in capsys.readouterr().err
    assert json.loads(path.read_text())["title"] == "D"


def test_no_change_writes_nothing_and_the_editor_fallbacks(project, memory_root, editor, capsys, monkeypatch):
    path = write(memory_root, record("decision", "d", "D", tags=["x"]))
    stored = path.read_text()
    editor({"raw": stored})
    assert main(["edit", "d", "--root", str(project)]) == 0
    assert "no changes" in capsys.readouterr().out and path.read_text() == stored
    from team_memory.edits.editing import editor_command
    monkeypatch.setenv("EDITOR", "code --wait")
    assert editor_command() == ["code", "--wait"]
    monkeypatch.delenv("EDITOR")
    monkeypatch.setenv("VISUAL", "nano")
    assert editor_command() == ["nano"]
    monkeypatch.delenv("VISUAL")
    assert editor_command() == ["vi"]
    monkeypatch.setenv("EDITOR", "no-such-editor-xyz")
    assert main(["edit", "d", "--root", str(project)]) == 1
    assert "was not found" in capsys.readouterr().err
    assert main(["edit", "nope", "--root", str(project)]) == 1


# --- add on a terminal ---------------------------------------------------------

def run_on_a_terminal(args, answers: str, cwd):
    """Run the CLI with stdin on a pseudo-terminal and type ``answers`` (then Ctrl-D)."""
    import termios
    master, slave = os.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    os.write(master, answers.encode() + b"\x04")
    try:
        return subprocess.run([sys.executable, str(REPO / "scripts" / "memory.py"), *map(str, args)], stdin=slave,
                              capture_output=True, text=True, cwd=cwd, timeout=30)
    finally:
        os.close(slave)
        os.close(master)


def test_add_asks_for_every_field_on_a_terminal(project, memory_root):
    answers = "\n".join(["1", "Use Redis for sessions", "redis, Sessions",
                         "9", "accepted",  # a wrong choice is asked again
                         "Postgres sessions need a cleanup job", "", "Use Redis with a TTL",
                         "expires keys natively", "",
                         "postgres", "needs a cron job", "", "", ""]) + "\n"
    proc = run_on_a_terminal(["add", "--root", project, "--json"], answers, project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["id"] == "use-redis-for-sessions"
    assert "pick one of: proposed, accepted" in proc.stderr and "this field is required" in proc.stderr
    rec = json.loads((memory_root / "decisions" / "use-redis-for-sessions.json").read_text())
    assert rec["tags"] == ["redis", "sessions"]
    assert rec["content"] == {"status": "accepted", "context": "Postgres sessions need a cleanup job",
                              "decision": "Use Redis with a TTL", "rationale": ["expires keys natively"],
                              "alternatives": [{"option": "postgres", "rejected_reason": "needs a cron job"}]}


def test_add_on_a_terminal_asks_only_for_what_is_missing(project, memory_root):
    answers = "\n".join(["Makefiles", "tabs", "make requires them", "1", "", ""]) + "\n"
    proc = run_on_a_terminal(["add", "--root", project, "--category", "preference", "--title", "Tabs", "--tag", "make"],
                             answers, project)
    assert proc.returncode == 0, proc.stderr
    assert "category [" not in proc.stderr and "title" not in proc.stderr.split("preference fields:")[0]
    rec = json.loads((memory_root / "preferences" / "tabs.json").read_text())
    assert rec["content"] == {"topic": "Makefiles", "value": "tabs", "reason": "make requires them", "strength": "strong"}


def test_add_stops_cleanly_when_the_terminal_input_ends(project, memory_root):
    proc = run_on_a_terminal(["add", "--root", project], "2\nHalf\n", project)
    assert proc.returncode == 1 and "nothing was saved" in proc.stderr
    assert not list(memory_root.glob("*/*.json"))


def test_add_without_a_terminal_needs_its_flags(project, capsys):
    assert main(["add", "--root", str(project), "--title", "x"]) == 2
    assert "add needs --category and --title" in capsys.readouterr().err


@pytest.mark.parametrize("broken, fix", [
    (b'{"id": "fix-ci", "title": "Fix CI",', "bad JSON"),
    (None, "missing title"),
    (None, "wrong id"),
    (None, "wrong category"),
    (None, "not UTF-8"),
])
def test_edit_opens_a_broken_file_as_text_and_saves_the_fix_validate_recommends(
        project, memory_root, editor, capsys, broken, fix):
    """doctor/validate send people to 'edit ID' for broken files: edit opens the raw text and accepts the fix."""
    good = record("runbook", "fix-ci", "Fix CI", tags=["ci"])
    path = write(memory_root, good)
    assert main(["rebuild", "--root", str(project)]) == 0  # the index knew the good file; then it broke
    bad = dict(good)
    if fix == "missing title":
        bad.pop("title")
    elif fix == "wrong id":
        bad["id"] = "fix-the-ci"
    elif fix == "wrong category":
        bad["category"] = "decision"
    data = broken or json.dumps(bad, indent=2).encode()
    if fix == "not UTF-8":
        data = json.dumps(dict(good, title="Fix CI caf\u00e9"), ensure_ascii=False).encode("latin-1")
    path.write_bytes(data)
    assert main(["validate", str(path), "--root", str(project)]) == 1
    capsys.readouterr()
    editor({"raw": json.dumps(good, indent=2)})  # the fix validate asks for: the record as it should be
    assert main(["edit", "fix-ci", "--root", str(project)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("repaired fix-ci -> ")
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["title"] == "Fix CI" and saved["id"] == "fix-ci" and saved["category"] == "runbook"
    assert saved["changes"][-1]["summary"] == "repaired by hand (edit)"
    assert main(["validate", str(path), "--root", str(project)]) == 0
    assert "Fix CI" in (memory_root / "index.md").read_text()
    capsys.readouterr()
    assert main(["doctor", "--root", str(project)]) == 0, capsys.readouterr().out  # nothing left to fix


def test_a_repair_that_is_still_invalid_is_not_saved(project, memory_root, editor, capsys, monkeypatch):
    path = write(memory_root, record("runbook", "fix-ci", "Fix CI", tags=["ci"]))
    path.write_text('{"id": "fix-ci",')
    editor({"raw": '{"id": "fix-ci", "title": "Fix CI"}'})
    stdin(monkeypatch, "q\n")
    assert main(["edit", "fix-ci", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    assert "category" in err and "nothing was saved" in err
    assert path.read_text() == '{"id": "fix-ci",'


def test_recovery_files_are_scrubbed_and_pruned(project, memory_root, editor, capsys, monkeypatch, tmp_path):
    write(memory_root, record("runbook", "fix-ci", "Fix CI", tags=["ci"]))
    recovery_dir = tmp_path / "home" / ".local" / "state" / "team-memory" / "recovery"
    recovery_dir.mkdir(parents=True)
    old = recovery_dir / "fix-ci.20200101T000000000000Z.json"
    old.write_text("old")
    os.utime(old, (1, 1))
    editor({"set": {"title": "Fix CI <private>the root password is hunter2</private>", "color": "red"}})
    stdin(monkeypatch, "q\n")
    assert main(["edit", "fix-ci", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    recovery = err.split("is kept for 7 days in ")[1].split(" ")[0]
    assert recovery.startswith(str(recovery_dir))
    text = open(recovery).read()
    assert "hunter2" not in text and "Fix CI" in text
    assert not old.exists()  # older than a week: pruned
