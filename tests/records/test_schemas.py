"""The JSON Schemas in templates/schemas/ agree with the stdlib validator on valid and invalid records."""
from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from helpers import CONTENT, REPO, record
from team_memory.base.model import CATEGORIES
from team_memory.records.recordspec import DRAFT, schema_text
from team_memory.records.validate import validate_record

SCHEMAS = REPO / "templates" / "schemas"

FULL_CONTENT = {
    "decision": dict(CONTENT["decision"], alternatives=[{"option": "rq", "rejected_reason": "no beat"}],
                     consequences=["one more service"]),
    "runbook": dict(CONTENT["runbook"], symptoms=["red CI"], root_cause="stale cache", environment="CI"),
    "constraint": dict(CONTENT["constraint"], workarounds=["batch calls"], expires="2026-12-31"),
    "preference": dict(CONTENT["preference"], examples={"prefer": ["a"], "avoid": ["b"]}),
    "tech_debt": dict(CONTENT["tech_debt"], impact=["slow"], suggested_fix=["rewrite"], acceptance_criteria=["fast"]),
    "session_summary": dict(CONTENT["session_summary"], in_progress=["x"], blockers=["y"], key_changes=["z"]),
}


def validator(category: str):
    schema = json.loads((SCHEMAS / f"{category}.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def valid_records(category: str) -> list:
    minimal = record(category, "a-memory", "A memory", tags=["x"])
    full = record(category, "full_memory-v2", "Ünïcode title · 日本語 ok", tags=["redis", "日本語", "c++", "a.b"],
                  related_files=["src/app.py", "billing/", "billing/**/*.sql", "a..b/.gitignore"], confidence=0.5, times_updated=3,
                  changes=[{"date": "2026-01-02T03:04:05Z", "summary": "created"}],
                  **{"$schema": "../../schemas/x.json"})
    full["content"] = copy.deepcopy(FULL_CONTENT[category])
    retired = record(category, "old", "Old one", tags=["x"], record_status="retired",
                     retired_at="2026-02-01T00:00:00+00:00", retired_reason="superseded")
    archived = record(category, "done", "Done one", tags=["x"], record_status="archived",
                      archived_at="2026-02-01T00:00:00.5Z", archived_reason="finished")
    return [minimal, full, retired, archived]


def _set(path: str, value):
    def mutate(rec):
        *parents, last = path.split(".")
        target = rec
        for key in parents:
            target = target[key]
        if value is _DROP:
            del target[last]
        else:
            target[last] = value
    return mutate


_DROP = object()

COMMON_MUTATIONS = {
    "unknown top field": _set("color", "red"),
    "no title": _set("title", _DROP),
    "empty title": _set("title", ""),
    "blank title": _set("title", "   "),
    "title with newline": _set("title", "a\nb"),
    "title with double space": _set("title", "a  b"),
    "long title": _set("title", "x" * 121),
    "title not text": _set("title", 5),
    "schema version": _set("schema_version", "2.0"),
    "no schema version": _set("schema_version", _DROP),
    "unknown category": _set("category", "note"),
    "id with slash": _set("id", "a/b"),
    "id with space": _set("id", "a b"),
    "id starts with dot": _set("id", ".hidden"),
    "long id": _set("id", "x" * 101),
    "id with a dot": _set("id", "a.b"),
    "id in capitals": _set("id", "Use-Redis"),
    "id in another script": _set("id", "кэш"),
    "id with tag characters": _set("id", "a\U000e0041"),
    "created_at not a time": _set("created_at", "yesterday"),
    "created_at without zone": _set("created_at", "2026-01-01T00:00:00"),
    "created_at a date only": _set("created_at", "2026-01-01"),
    "no tags": _set("tags", []),
    "tags not a list": _set("tags", "redis"),
    "uppercase tag": _set("tags", ["Redis"]),
    "tag with space": _set("tags", ["two words"]),
    "tag with comma": _set("tags", ["a,b"]),
    "tag ends with dash": _set("tags", ["a-"]),
    "duplicate tags": _set("tags", ["a", "a"]),
    "too many tags": _set("tags", [f"t{i}" for i in range(13)]),
    "long tag": _set("tags", ["x" * 41]),
    "status unknown": _set("record_status", "deleted"),
    "confidence above 1": _set("confidence", 1.5),
    "confidence a bool": _set("confidence", True),
    "confidence text": _set("confidence", "high"),
    "times_updated negative": _set("times_updated", -1),
    "times_updated text": _set("times_updated", "3"),
    "related_files not a list": _set("related_files", "src/app.py"),
    "related file empty": _set("related_files", [""]),
    "related file blank": _set("related_files", ["  "]),
    "related file absolute": _set("related_files", ["/etc/passwd"]),
    "related file in the home folder": _set("related_files", ["~/notes.txt"]),
    "related file on a drive": _set("related_files", ["C:\\x.py"]),
    "related file leaves the repository": _set("related_files", ["app/../../x.py"]),
    "related file under .git": _set("related_files", [".Git/hooks/pre-commit"]),
    "related file with a control character": _set("related_files", ["app/\x1bx.py"]),
    "related file too long": _set("related_files", ["a/" * 151]),
    "too many related files": _set("related_files", [f"f{i}.py" for i in range(51)]),
    "changes not a list": _set("changes", {}),
    "change without summary": _set("changes", [{"date": "2026-01-01T00:00:00Z"}]),
    "change with a bad date": _set("changes", [{"date": "soon", "summary": "x"}]),
    "too many changes": _set("changes", [{"date": "2026-01-01T00:00:00Z", "summary": "x"}] * 51),
    "retired_reason empty": _set("retired_reason", ""),
    "content not an object": _set("content", []),
    "no content": _set("content", _DROP),
    "unknown content field": _set("content.extra", "x"),
}

CONTENT_MUTATIONS = {
    "decision": {"bad status": _set("content.status", "maybe"), "no rationale": _set("content.rationale", _DROP),
                 "rationale text": _set("content.rationale", "because"),
                 "alternative without reason": _set("content.alternatives", [{"option": "x"}]),
                 "alternative extra key": _set("content.alternatives", [{"option": "x", "rejected_reason": "y", "z": 1}]),
                 "empty decision": _set("content.decision", " ")},
    "runbook": {"no steps": _set("content.steps", []), "step not text": _set("content.steps", [1]),
                "no verification": _set("content.verification", _DROP),
                "too many steps": _set("content.steps", ["s"] * 201)},
    "constraint": {"active text": _set("content.active", "yes"), "bad severity": _set("content.severity", "huge"),
                   "expires not a date": _set("content.expires", "next year"),
                   "bad kind": _set("content.kind", "rule")},
    "preference": {"bad strength": _set("content.strength", "weak"),
                   "examples extra": _set("content.examples", {"prefer": ["a"], "never": ["b"]}),
                   "examples text": _set("content.examples", "a"), "no topic": _set("content.topic", _DROP)},
    "tech_debt": {"bad priority": _set("content.priority", "urgent"), "bad status": _set("content.status", "done"),
                  "long description": _set("content.description", "x" * 10_001)},
    "session_summary": {"bad outcome": _set("content.outcome", "ok"),
                        "completed text": _set("content.completed", "all"),
                        "no next actions": _set("content.next_actions", _DROP)},
}


def corpus(category: str):
    for i, rec in enumerate(valid_records(category)):
        yield f"valid {i}", rec, True
    base = valid_records(category)[1]
    for name, mutate in {**COMMON_MUTATIONS, **CONTENT_MUTATIONS[category]}.items():
        rec = copy.deepcopy(base)
        mutate(rec)
        yield name, rec, False


@pytest.mark.parametrize("category", CATEGORIES)
def test_schema_and_validator_agree(category):
    check = validator(category)
    disagreements = []
    for name, rec, expected in corpus(category):
        by_validator = not validate_record(rec)
        by_schema = check.is_valid(rec)
        if not (by_validator == by_schema == expected):
            disagreements.append(f"{name}: validator={by_validator} schema={by_schema} expected={expected}")
    assert not disagreements, disagreements


@pytest.mark.parametrize("category", CATEGORIES)
def test_schema_files_are_current_and_well_formed(category):
    path = SCHEMAS / f"{category}.schema.json"
    assert path.read_text(encoding="utf-8") == schema_text(category), "run python3 scripts/make_schemas.py"
    schema = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT and schema["$id"].endswith(f"/{category}.schema.json") and schema["title"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["content"]["additionalProperties"] is False
    assert "$schema" in schema["properties"] and schema["required"][:3] == ["schema_version", "category", "id"]
    assert all(prop.get("description") for prop in schema["properties"].values())


def test_a_category_schema_rejects_another_category():
    rec = record("decision", "a", "A", tags=["x"])
    assert validator("decision").is_valid(rec) and not validator("runbook").is_valid(rec)


def test_demo_store_is_valid_under_the_schemas():
    for path in (REPO / "templates" / "demo").rglob("*.json"):
        rec = json.loads(path.read_text(encoding="utf-8"))
        errors = list(validator(rec["category"]).iter_errors(rec))
        assert not errors, (path, [e.message for e in errors])
