"""Strict record validation: every kind of invalid input is named with its field and a fix hint."""
from __future__ import annotations

import copy
import json

import pytest

from helpers import CONTENT, FOLDERS, REPO, record
from team_memory.records.validate import check_file, validate_record


def _fields(problems):
    return {p.field for p in problems}


@pytest.mark.parametrize("category", sorted(CONTENT))
def test_minimal_records_of_every_category_are_valid(category):
    assert validate_record(record(category, "an-id", "A title", ["tag"]), folder_category=category,
                           file_id="an-id") == []


def test_demo_store_is_valid():
    files = sorted((REPO / "templates" / "demo").glob("*/*.json"))
    assert len(files) >= 6
    for path in files:
        assert check_file(str(path)) == [], path


def test_full_records_with_all_optional_fields_are_valid():
    rec = record("decision", "d", "Use X", ["x"], **{
        "$schema": "https://example.invalid/memory.schema.json", "related_files": ["src/a.py"], "confidence": 0.5,
        "changes": [{"date": "2026-01-02T03:04:05Z", "summary": "made", "by": "cli"}], "times_updated": 2,
        "record_status": "archived", "archived_at": "2026-01-03T00:00:00+00:00", "archived_reason": "done"})
    rec["content"].update(alternatives=[{"option": "Y", "rejected_reason": "slow"}], consequences=["c"])
    assert validate_record(rec) == []
    pref = record("preference", "p", "Tabs", ["make"])
    pref["content"]["examples"] = {"prefer": ["\tcmd"], "avoid": ["    cmd"]}
    con = record("constraint", "c", "Rate limit", ["api"])
    con["content"].update(expires="2026-12-31", workarounds=["batch"])
    assert validate_record(pref) == [] and validate_record(con) == []


BAD = [  # (change to a valid decision record, the field that must be reported)
    (lambda r: r.pop("title"), "title"),
    (lambda r: r.update(title=""), "title"),
    (lambda r: r.update(title="   \u200b "), "title"),
    (lambda r: r.update(title="x" * 121), "title"),
    (lambda r: r.update(title="line\nbreak"), "title"),
    (lambda r: r.update(title="a -> b"), "title"),
    (lambda r: r.update(title=42), "title"),
    (lambda r: r.update(tags=[]), "tags"),
    (lambda r: r.update(tags=[f"t{i}" for i in range(13)]), "tags"),
    (lambda r: r.update(tags=["Upper"]), "tags[0]"),
    (lambda r: r.update(tags=["a", "a"]), "tags[1]"),
    (lambda r: r.update(tags="a,b"), "tags"),
    (lambda r: r.update(tags=[1]), "tags[0]"),
    (lambda r: r.update(schema_version="2.0"), "schema_version"),
    (lambda r: r.update(category="idea"), "category"),
    (lambda r: r.update(id="../escape"), "id"),
    (lambda r: r.update(id=""), "id"),
    (lambda r: r.update(created_at="yesterday"), "created_at"),
    (lambda r: r.update(updated_at="2026-13-01T00:00:00Z"), "updated_at"),
    (lambda r: r.update(updated_at="2026-01-01T00:00:00"), "updated_at"),  # no time zone
    (lambda r: r.update(created_at="2026-02-01T00:00:00Z", updated_at="2026-01-01T00:00:00Z"), "updated_at"),
    (lambda r: r.update(record_status="deleted"), "record_status"),
    (lambda r: r.update(confidence=1.5), "confidence"),
    (lambda r: r.update(confidence=True), "confidence"),
    (lambda r: r.update(times_updated=-1), "times_updated"),
    (lambda r: r.update(related_files="a.py"), "related_files"),
    (lambda r: r.update(changes=[{"date": "2026-01-01T00:00:00Z", "summary": "s"}] * 51), "changes"),
    (lambda r: r.update(changes=[{"summary": "s"}]), "changes[0].date"),
    (lambda r: r.update(changes=["s"]), "changes[0]"),
    (lambda r: r.update(retired_reason=""), "retired_reason"),
    (lambda r: r.update(unknown=1), "unknown"),
    (lambda r: r.pop("content"), "content"),
    (lambda r: r.update(content=[]), "content"),
    (lambda r: r["content"].pop("decision"), "content.decision"),
    (lambda r: r["content"].update(status="maybe"), "content.status"),
    (lambda r: r["content"].update(rationale="because"), "content.rationale"),
    (lambda r: r["content"].update(rationale=[1]), "content.rationale[0]"),
    (lambda r: r["content"].update(context=" "), "content.context"),
    (lambda r: r["content"].update(context="x" * 10_001), "content.context"),
    (lambda r: r["content"].update(extra="x"), "content.extra"),
    (lambda r: r["content"].update(alternatives=[{"option": "Y"}]), "content.alternatives[0].rejected_reason"),
    (lambda r: r["content"].update(alternatives=[{"option": "Y", "rejected_reason": "n", "x": 1}]),
     "content.alternatives[0].x"),
]


@pytest.mark.parametrize("mutate, field", BAD)
def test_every_kind_of_invalid_record_is_named(mutate, field):
    rec = record("decision", "d", "Use X", ["x"])
    mutate(rec)
    problems = validate_record(rec)
    assert field in _fields(problems), problems
    for p in problems:
        assert p.message and p.hint


@pytest.mark.parametrize("category, change, field", [
    ("runbook", {"steps": []}, "content.steps"),
    ("constraint", {"active": "yes"}, "content.active"),
    ("constraint", {"expires": "soon"}, "content.expires"),
    ("constraint", {"kind": "rule"}, "content.kind"),
    ("session_summary", {"outcome": "done"}, "content.outcome"),
    ("tech_debt", {"priority": "urgent"}, "content.priority"),
    ("preference", {"examples": {"prefer": "x"}}, "content.examples.prefer"),
    ("preference", {"strength": "weak"}, "content.strength"),
])
def test_category_content_rules(category, change, field):
    rec = record(category, "a", "A title", ["t"])
    rec["content"].update(change)
    assert field in _fields(validate_record(rec))


def test_every_problem_is_listed_at_once():
    problems = validate_record({"category": "runbook", "title": "", "tags": [], "content": {"steps": "x"}, "z": 1})
    assert {"schema_version", "id", "created_at", "updated_at", "title", "tags", "content.trigger", "content.steps",
            "content.verification", "z"} <= _fields(problems)


def test_place_must_match_folder_and_file_name():
    rec = record("decision", "d", "Use X", ["x"])
    assert _fields(validate_record(rec, folder_category="runbook", file_id="other")) == {"category", "id"}
    assert validate_record("not an object")[0].field == "(record)"


def test_check_file_reports_syntax_place_and_leftover_secrets(memory_root):
    folder = memory_root / FOLDERS["decision"]
    folder.mkdir()
    broken = folder / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert check_file(str(broken))[0].field == "(file)"
    rec = record("decision", "leaky", "Leaky", ["x"])
    rec["content"]["context"] = "password=hunter22 <private>p</private>"
    leaky = folder / "leaky.json"
    leaky.write_text(json.dumps(rec), encoding="utf-8")
    messages = [p.message for p in check_file(str(leaky))]
    assert any("secret" in m for m in messages) and any("private" in m for m in messages)
    moved = copy.deepcopy(rec)
    moved["content"]["context"] = "clean"
    (folder / "wrong-name.json").write_text(json.dumps(moved), encoding="utf-8")
    assert _fields(check_file(str(folder / "wrong-name.json"))) == {"id"}


@pytest.mark.parametrize("text, expected", [
    ("2026-02-01T00:00:00Z", (2026, 2, 1, 0, 0, 0, 0, 0)),
    ("2026-02-01T00:00:00.5Z", (2026, 2, 1, 0, 0, 0, 500000, 0)),
    ("2026-02-01t10:20:30,1234567z", (2026, 2, 1, 10, 20, 30, 123456, 0)),
    ("2026-02-01T10:20+0130", (2026, 2, 1, 10, 20, 0, 0, 5400)),
    ("2026-02-01T10:20:30-05:00", (2026, 2, 1, 10, 20, 30, 0, -18000)),
    ("2026-02-01T10:20:30", None), ("2026-02-30T10:20:30Z", None), ("2026-02-01T25:00:00Z", None),
    ("2026-02-01 10:20:30Z", None), ("20260201T102030Z", None), ("2026-02-01T10:20:30.Z", None),
    ("2026-02-01T10:20:30+2400", None), ("２０２６-02-01T10:20:30Z", None), ("2026-02-01T10Z", None),
])
def test_times_read_the_same_on_every_python(text, expected):
    # written out rather than datetime.fromisoformat, whose grammar differs between 3.9 and 3.11
    from team_memory.records.validate import parse_iso
    got = parse_iso(text)
    if expected is None:
        assert got is None
    else:
        assert (got.year, got.month, got.day, got.hour, got.minute, got.second, got.microsecond,
                got.utcoffset().total_seconds()) == expected


def test_a_naive_time_is_utc_for_ranking_and_a_space_may_separate():
    from team_memory.records.store import parse_time
    assert parse_time("2026-02-01 10:20:30").utcoffset().total_seconds() == 0
    assert parse_time("not a time") is None and parse_time(None) is None


def test_an_id_that_spells_a_secret_is_named_by_validate_and_doctor(tmp_path, git_init):
    """Ids are file names, shown by every command: an AWS key lower-cased into one is found (old code: valid)."""
    from helpers import record, run_cli, write
    git_init(tmp_path)
    root = tmp_path / ".claude" / "memory"
    write(root, record("decision", "rotate-akiaiosfodnn7example", "Rotate the deploy key"))
    out = run_cli("validate", cwd=tmp_path)
    assert out.returncode != 0 and "spells a secret (AWS access key)" in out.stdout + out.stderr, out.stdout
    doctor = run_cli("doctor", cwd=tmp_path)
    assert "spells a secret" in doctor.stdout, doctor.stdout
