"""related_files on the write side: each refused entry named with its index, reason and fix; writes keep
the normalised form (add, save, update, import, edit); update replaces and clears them."""
from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings, strategies as st

from helpers import CONTENT, examples, record, write
from team_memory.cli.main import main
from team_memory.records import relpaths
from team_memory.records.validate import validate_record


def stored(memory_root, folder: str, memory_id: str) -> dict:
    return json.loads((memory_root / folder / f"{memory_id}.json").read_text())


def snapshot(memory_root) -> dict:
    return {str(p): p.read_bytes() for p in memory_root.rglob("*.json")}


def test_each_refused_entry_is_a_problem_with_its_index_reason_and_fix():
    rec = record("decision", "a", "A", tags=["x"],
                 related_files=["app/ok.py", "/etc/passwd", "../up.py", 7, "", ".git/config", "app/**/*.sql", "./"])
    problems = {p.field: p for p in validate_record(rec)}
    assert set(problems) == {"related_files[1]", "related_files[2]", "related_files[3]", "related_files[4]",
                             "related_files[5]", "related_files[7]"}
    assert "relative to the repository root" in problems["related_files[1]"].message
    assert problems["related_files[1]"].hint == "write it relative to the repository root: app/session.py"
    assert "'..'" in problems["related_files[2]"].message and "inside the repository" in problems["related_files[2]"].hint
    assert problems["related_files[3]"].message == "must be text, not a number"
    assert "empty" in problems["related_files[4]"].message and "remove" in problems["related_files[4]"].hint
    assert ".git" in problems["related_files[5]"].message
    assert "glob" in problems["related_files[7]"].hint


def test_at_most_max_entries():
    ok = record("decision", "a", "A", tags=["x"], related_files=[f"f{i}.py" for i in range(relpaths.MAX_ENTRIES)])
    assert validate_record(ok) == []
    many = dict(ok, related_files=ok["related_files"] + ["one-more.py"])
    (problem,) = validate_record(many)
    assert problem.field == "related_files" and f"at most {relpaths.MAX_ENTRIES}" in problem.message
    assert "folder" in problem.hint and "glob" in problem.hint


def test_add_save_and_update_store_the_normalised_form_once(project, memory_root, capsys):
    assert main(["add", "--root", str(project), "--category", "decision", "--title", "Use Redis", "--tag", "redis",
                 "--content-json", json.dumps(CONTENT["decision"]), "--related-file", "./app//session.py",
                 "--related-file", "app/session.py", "--related-file", "app\\cache\\", "--related-file", " app/**/*.sql"]) == 0
    assert stored(memory_root, "decisions", "use-redis")["related_files"] == ["app/session.py", "app/cache/", "app/**/*.sql"]
    rec = {"category": "runbook", "title": "Fix the export", "tags": ["export"], "content": CONTENT["runbook"],
           "related_files": ["billing/./export.py", "billing//"]}
    assert main(["save", "--root", str(project), "--record", json.dumps(rec)]) == 0
    assert stored(memory_root, "runbooks", "fix-the-export")["related_files"] == ["billing/export.py", "billing/"]
    assert main(["update", "use-redis", "--root", str(project), "--related-file", "./lib/x.py"]) == 0
    assert stored(memory_root, "decisions", "use-redis")["related_files"] == ["lib/x.py"]


@pytest.mark.parametrize("argv", [
    ["add", "--category", "decision", "--title", "T", "--tag", "t", "--content-json", json.dumps(CONTENT["decision"]),
     "--related-file", "ok.py", "--related-file", "ok.py", "--related-file", "../secret"],
    ["save", "--record", json.dumps({"category": "decision", "title": "T", "tags": ["t"], "content": CONTENT["decision"],
                                     "related_files": ["ok.py", "ok.py", "/etc/shadow"]})],
])
def test_a_refused_entry_is_exit_1_names_its_index_and_writes_nothing(project, memory_root, capsys, argv):
    before = snapshot(memory_root)
    assert main([argv[0], "--root", str(project), *argv[1:]]) == 1
    err = capsys.readouterr().err
    assert "related_files[2]: " in err and "(fix: " in err and "nothing was written" in err
    assert snapshot(memory_root) == before


def test_an_absolute_path_inside_the_project_is_refused_with_its_relative_form(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis", tags=["redis"]))
    before = snapshot(memory_root)
    assert main(["update", "use-redis", "--root", str(project), "--related-file", str(project / "app" / "x.py")]) == 1
    assert "--related-file app/x.py" in capsys.readouterr().err
    assert snapshot(memory_root) == before


def test_update_replaces_and_clears_related_files(project, memory_root, capsys):
    write(memory_root, record("decision", "use-redis", "Use Redis", tags=["redis"], related_files=["a.py", "b/"]))
    assert main(["update", "use-redis", "--root", str(project), "--related-file", "c.py", "--related-file", "d/"]) == 0
    assert stored(memory_root, "decisions", "use-redis")["related_files"] == ["c.py", "d/"]
    assert main(["update", "use-redis", "--root", str(project), "--no-related-files"]) == 0
    assert stored(memory_root, "decisions", "use-redis")["related_files"] == []
    assert main(["update", "use-redis", "--root", str(project), "--no-related-files", "--related-file", "x.py"]) == 2
    capsys.readouterr()
    main(["update", "--help"])
    assert "update use-redis-for-sessions --no-related-files" in capsys.readouterr().out


def test_import_and_edit_store_the_normalised_form(project, memory_root, monkeypatch, capsys, tmp_path):
    rec = record("preference", "tabs", "Tabs in Makefiles", tags=["make"], related_files=["./Makefile", "mk//"])
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps(rec) + "\n")
    assert main(["import", str(export), "--root", str(project)]) == 0
    assert stored(memory_root, "preferences", "tabs")["related_files"] == ["Makefile", "mk/"]

    editor = tmp_path / "editor.py"  # an "editor" that adds a related file in a sloppy form
    editor.write_text("import json, sys\np = sys.argv[1]\nr = json.load(open(p))\n"
                      "r['related_files'].append('./mk//rules.mk')\njson.dump(r, open(p, 'w'))\n")
    monkeypatch.setenv("EDITOR", f"python3 {editor}")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["edit", "tabs", "--root", str(project)]) == 0
    assert stored(memory_root, "preferences", "tabs")["related_files"] == ["Makefile", "mk/", "mk/rules.mk"]


def similar(capsys, project, *argv):
    code = main(["similar", "--root", str(project), "--category", "decision", *map(str, argv), "--json"])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_similar_matches_memories_about_the_same_files(project, memory_root, capsys):
    write(memory_root, record("decision", "sessions", "Keep sessions in Redis", ["redis"],
                              related_files=["app/session.py", "app/auth/"]))
    write(memory_root, record("decision", "billing", "Billing exports are batched", ["billing"],
                              related_files=["billing/**/*.sql"]))
    write(memory_root, record("runbook", "other", "Restart the session worker", ["ops"], related_files=["app/session.py"]))
    # No shared word: found by the exact file alone, and says why.
    best = similar(capsys, project, "--title", "Cookie lifetime", "--related-file", "./app/session.py")
    assert best["id"] == "sessions" and best["why"] == ["shares app/session.py"] and best["score"] == 3
    # A file under a folder of the other, a file a glob of the other names: covered (less than shared).
    best = similar(capsys, project, "--title", "Token refresh", "--related-file", "app/auth/tokens.py",
                   "--related-file", "notes.md")
    assert best is None  # one covered file alone is not enough
    best = similar(capsys, project, "--title", "Nightly run", "--related-file", "billing/daily/export.sql")
    assert best is None
    best = similar(capsys, project, "--title", "Billing totals", "--related-file", "billing/daily/export.sql")
    assert best["id"] == "billing" and "billing/**/*.sql covers billing/daily/export.sql" in best["why"]
    best = similar(capsys, project, "--title", "Auth tokens", "--related-file", "app/", "--related-file", "app/auth/x.py")
    assert best["id"] == "sessions" and best["why"] == ["app/ covers app/session.py", "app/auth/ covers app/auth/x.py"]
    # Nothing shared: nothing similar (the runbook about the same file is another category).
    assert similar(capsys, project, "--title", "Cookie lifetime", "--related-file", "lib/x.py") is None
    assert main(["similar", "--root", str(project), "--category", "decision", "--title", "Cookie lifetime",
                 "--related-file", "app/session.py"]) == 0
    assert "why: shares app/session.py" in capsys.readouterr().out


def doctor(capsys, project, *extra) -> tuple:
    code = main(["doctor", "--root", str(project), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_doctor_gives_the_update_command_that_fixes_refused_entries(project, memory_root, capsys):
    write(memory_root, record("decision", "sessions", "Keep sessions in Redis", ["redis"],
                              related_files=["./app//session.py", "/etc/passwd", "../up.py", "billing/**/*.sql",
                                             str(project / "lib" / "store.py")]))
    write(memory_root, record("decision", "only-bad", "Only bad entries", ["x"], related_files=["~/notes"]))
    write(memory_root, record("decision", "also-title", "Bad  title", ["x"], related_files=["/abs"]))
    code, findings = doctor(capsys, project)
    fixes = {f["path"].rsplit("/", 1)[-1]: f for f in findings if f["kind"] == "invalid"}
    assert code == 1 and set(fixes) == {"sessions.json", "only-bad.json", "also-title.json"}
    assert "related_files[1]" in fixes["sessions.json"]["message"] and "related_files[2]" in fixes["sessions.json"]["message"]
    fix = fixes["sessions.json"]["fix"]
    assert ("update decisions/sessions --related-file app/session.py --related-file 'billing/**/*.sql' "
            "--related-file lib/store.py " in fix)  # a path inside the project in its relative form
    code = main(["validate", "--root", str(project), "--json"])
    (checked,) = [r for r in json.loads(capsys.readouterr().out) if r["path"].endswith("sessions.json")]
    hints = {p["field"]: p["hint"] for p in checked["problems"]}
    assert hints["related_files[4]"] == "write it relative to the repository root: lib/store.py"
    assert hints["related_files[1]"] == "write it relative to the repository root: app/session.py"
    assert "update decisions/only-bad --no-related-files " in fixes["only-bad.json"]["fix"]
    assert "update" not in fixes["also-title.json"]["fix"] and "edit decisions/also-title" in fixes["also-title.json"]["fix"]
    # The command as given fixes it.
    assert main(["update", "decisions/sessions", "--root", str(project), "--related-file", "app/session.py",
                 "--related-file", "billing/**/*.sql", "--related-file", "lib/store.py"]) == 0
    assert main(["update", "decisions/only-bad", "--root", str(project), "--no-related-files"]) == 0
    capsys.readouterr()
    code, findings = doctor(capsys, project)
    assert [f["path"].rsplit("/", 1)[-1] for f in findings if f["kind"] == "invalid"] == ["also-title.json"]


def test_doctor_warns_of_related_files_through_a_link_and_never_follows_it(project, memory_root, capsys, tmp_path):
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "secret.txt").write_text("x")
    (project / "app").mkdir()
    (project / "app" / "real.py").write_text("x")
    (project / "app" / "ext").symlink_to(outside)
    (project / "app" / "lnk.py").symlink_to(outside / "secret.txt")
    (project / "app" / "loop").symlink_to(project / "app" / "loop")  # a link loop: stat would fail, lstat does not
    write(memory_root, record("decision", "linked", "Linked files", ["x"], related_files=[
        "app/ext/secret.txt", "app/lnk.py", "app/real.py", "app/ext/**/*.py", "app/*/x.py", "app/loop/", "app/gone.py"]))
    assert main(["rebuild", "--root", str(project)]) == 0
    capsys.readouterr()
    code, findings = doctor(capsys, project)
    links = [f for f in findings if f["kind"] == "related-link"]
    assert code == 0 and all(f["warning"] for f in links)
    assert [f["message"].split(" ", 1)[0] for f in links] == ["related_files[0]", "related_files[1]",
                                                            "related_files[3]", "related_files[5]"]
    assert "'app/ext'" in links[0]["message"] and "update decisions/linked --related-file" in links[0]["fix"]
    assert main(["doctor", "--root", str(project), "--strict"]) == 1


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(alphabet="ab/.\\ *~:\x00é", max_size=12), max_size=8))
def test_a_write_stores_every_list_validation_accepts_in_a_form_it_accepts_again(entries):
    from team_memory.edits.write import tidy_related
    tidied = tidy_related(list(entries))
    refused = [i for i, e in enumerate(entries) if relpaths.problem(e)]
    problems = [p.field for p in validate_record(record("decision", "a", "A", tags=["x"], related_files=tidied))]
    if refused:  # left as given: every refused entry named by the index the writer used
        assert tidied == entries and problems == [f"related_files[{i}]" for i in refused]
    else:  # stored normalised, once each, and stable
        assert problems == [] and tidy_related(tidied) == tidied == relpaths.usable(entries)
