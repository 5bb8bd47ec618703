"""The tool's own ``[PRIVATE]`` marker is text, not a tag: a memory saved with ``<private>`` sections is
shown whole everywhere (recall, SessionStart, ``show``, ``show --json``, ``list``, ``search``, PostToolUse,
``export``); an unclosed private tag in a hand-edited file still hides what follows it, and ``validate``
and ``doctor`` name it with a fix. Real CLI, real hooks."""
from __future__ import annotations

import json

import pytest

from helpers import run_cli, run_hook, run_prompt_hook
from team_memory.records.exposure import hide
from team_memory.records.privacy import PrivateTagError, find_sections, strip_sections, FORMATS

TITLE = "Vendor <private>Acme</private> API allows 10 requests per minute"
RULE = "The <private>Acme</private> partner API accepts at most 10 requests per minute per key; batch calls"
STEPS = ["Ask <private>Dana at Acme</private> for a new key", "Rotate the key in the vault and redeploy"]
ID = "vendor-private-api-allows-10-requests-per-minute"


@pytest.fixture
def saved(project, memory_root):
    (project / "api").mkdir()
    (project / "api" / "client.py").write_text("x = 1\n")
    constraint = {"category": "constraint", "title": TITLE, "tags": ["api"], "related_files": ["api/client.py"],
                  "content": {"kind": "technical", "rule": RULE, "impact": ["slow batch jobs"],
                              "severity": "high", "active": True}}
    runbook = {"category": "runbook", "title": "Rotate the <private>Acme</private> vendor key", "tags": ["vendor"],
               "content": {"trigger": "the vendor key expires", "steps": STEPS, "verification": "calls succeed"}}
    for rec in (constraint, runbook):
        proc = run_cli("save", "--record", json.dumps(rec), cwd=project)
        assert proc.returncode == 0, proc.stderr
    stored = json.loads((memory_root / "constraints" / f"{ID}.json").read_text())
    assert stored["title"] == "Vendor [PRIVATE] API allows 10 requests per minute"
    assert "Acme" not in json.dumps(stored)
    return project


WHOLE = ("Vendor [PRIVATE] API allows 10 requests per minute", "10 requests per minute")


def test_the_stored_marker_is_plain_text():
    for text in ("Vendor [PRIVATE] API allows 10", "a [PRIVATE] b [PRIVATE] c", "[PRIVATE]"):
        assert find_sections(text, FORMATS) == []
        assert hide(text) == text
    # written as a tag and closed, it is still a section; other unclosed tags still count
    assert hide("a [PRIVATE]pw hunter2[/PRIVATE] b") == "a [PRIVATE] b"
    assert hide("[PRIVATE] kept, [private]pw hunter2[/private] b") == "[PRIVATE] kept, [PRIVATE] b"
    assert hide("[private] a [PRIVATE] hunter2 [/private] b") == "[PRIVATE] b"
    assert "hunter2" not in hide("[PRIVATE] kept <private> hunter2")
    assert hide("[PRIVATE] kept <private> hunter2").startswith("[PRIVATE] kept")
    with pytest.raises(PrivateTagError):
        strip_sections("kept [private] hunter2", FORMATS, "[PRIVATE]")


def test_recall_shows_the_whole_memory(saved):
    out = run_prompt_hook(saved, "how many vendor api requests per minute are allowed?").stdout.decode()
    assert "Vendor [PRIVATE] API allows 10 requests per minute" in out
    assert "batch calls" in out or "per key" in out


def test_session_start_shows_the_whole_title(saved):
    out = run_hook("session_start.py", {"cwd": str(saved), "hook_event_name": "SessionStart", "source": "startup",
                                        "session_id": "s"}, cwd=str(saved)).stdout.decode()
    assert "- Vendor [PRIVATE] API allows 10 requests per minute" in out


def test_cli_read_commands_show_the_whole_memory(saved):
    show = run_cli("show", ID, cwd=saved).stdout
    assert WHOLE[0] in show and "per key; batch calls" in show
    record = json.loads(run_cli("show", ID, "--json", cwd=saved).stdout)
    assert record["title"] == WHOLE[0] and record["content"]["rule"].endswith("per key; batch calls")
    runbook = json.loads(run_cli("show", "rotate-the-private-vendor-key", "--json", cwd=saved).stdout)
    assert runbook["content"]["steps"] == ["Ask [PRIVATE] for a new key", "Rotate the key in the vault and redeploy"]
    assert WHOLE[0] in run_cli("list", cwd=saved).stdout
    assert WHOLE[0] in run_cli("search", "vendor api requests per minute", cwd=saved).stdout
    exported = run_cli("export", cwd=saved).stdout
    assert "per key; batch calls" in exported and "Acme" not in exported
    assert run_cli("validate", cwd=saved).returncode == 0
    assert run_cli("doctor", cwd=saved).returncode == 0


def test_post_tool_use_recalls_the_whole_title(saved):
    payload = {"cwd": str(saved), "hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Read",
               "tool_input": {"file_path": str(saved / "api" / "client.py")}, "tool_response": {}}
    out = run_hook("post_tool_use.py", payload, cwd=str(saved)).stdout.decode()
    assert "Vendor [PRIVATE] API allows 10 requests per minute" in out


def test_an_unclosed_tag_in_a_hand_edited_file_hides_the_rest_and_is_reported(saved, memory_root):
    path = memory_root / "constraints" / f"{ID}.json"
    record = json.loads(path.read_text())
    record["content"]["rule"] = "The [PRIVATE] partner API allows 10 calls <private> the key is hunter2"
    path.write_text(json.dumps(record, indent=2) + "\n")
    show = run_cli("show", ID, cwd=saved).stdout
    assert "hunter2" not in show and "The [PRIVATE] partner API allows 10 calls" in show
    validate = run_cli("validate", cwd=saved)
    assert validate.returncode == 1 and "content.rule" in validate.stdout + validate.stderr
    assert "unclosed private tag" in validate.stdout + validate.stderr and "hunter2" not in validate.stdout
    assert "</private>" in validate.stdout + validate.stderr  # the fix says how to close it
    doctor = run_cli("doctor", cwd=saved)
    assert doctor.returncode == 1 and "unclosed private tag" in doctor.stdout and "hunter2" not in doctor.stdout
    assert "close the private tag" in doctor.stdout


def test_an_unclosed_bracket_tag_is_reported_whatever_the_formats(saved, memory_root):
    path = memory_root / "constraints" / f"{ID}.json"
    record = json.loads(path.read_text())
    record["content"]["rule"] = "calls are limited [private] the key is hunter2"
    path.write_text(json.dumps(record, indent=2) + "\n")
    assert "hunter2" not in run_cli("show", ID, cwd=saved).stdout
    validate = run_cli("validate", cwd=saved)
    assert validate.returncode == 1 and "unclosed private tag" in validate.stdout + validate.stderr


from hypothesis import given, strategies as st  # noqa: E402

PIECES = st.lists(st.sampled_from(["[PRIVATE]", "Vendor", "API", " ", "\n", "step 2", "; batch", "[REDACTED]"]),
                  max_size=30).map("".join)


@given(PIECES)
def test_any_text_holding_only_markers_is_shown_whole(text):
    assert hide(text) == text


@given(PIECES, PIECES, st.sampled_from(["<private>hunter2</private>", "[private]hunter2[/private]",
                                         "<!-- private -->hunter2<!-- /private -->", "<private> hunter2",
                                         "[PRIVATE]hunter2[/PRIVATE]"]))
def test_a_real_section_beside_markers_is_still_hidden(before, after, section):
    assert "hunter2" not in hide(before + section + after)


def test_with_the_bracket_format_listed_a_stored_marker_is_still_text(project, memory_root):
    (memory_root / "memory-config.json").write_text(json.dumps(
        {"privacy": {"private_tags": {"formats": ["xml", "bracket", "comment"]}}}))
    rule = {"category": "constraint", "title": "Vendor [private]Acme[/private] API limit", "tags": ["api"],
            "content": {"kind": "technical", "rule": "The <private>Acme</private> API: 10 calls a minute",
                        "impact": ["slow"], "severity": "high", "active": True}}
    assert run_cli("save", "--record", json.dumps(rule), cwd=project).returncode == 0
    memory_id = "vendor-private-api-limit"
    update = run_cli("update", memory_id, "--tag", "vendor", cwd=project)  # rewrites the record: scrubbed again
    assert update.returncode == 0, update.stderr
    assert run_cli("validate", cwd=project).returncode == 0 and run_cli("doctor", cwd=project).returncode == 0
    record = json.loads(run_cli("show", memory_id, "--json", cwd=project).stdout)
    assert record["title"] == "Vendor [PRIVATE] API limit" and record["content"]["rule"].endswith("10 calls a minute")


def test_an_unclosed_tag_in_one_step_hides_that_step_only(project, memory_root):
    from helpers import record, write
    rec = record("runbook", "rotate-vendor-key", "Rotate the vendor key", ["vendor"])
    rec["content"]["steps"] = ["Ask ops <private> for the hunter2 key", "Rotate the key in the vault"]
    write(memory_root, rec)
    out = run_prompt_hook(project, "how do we rotate the vendor key?").stdout.decode()
    assert "Rotate the vendor key" in out and "hunter2" not in out
    assert "2. Rotate the key in the vault" in out


MIXED = st.lists(st.sampled_from(["[PRIVATE]", "<private>", "</private>", "[private]", "[/private]", "<!-- private -->",
                                  "password=", "hunter2x9", " AKIAIOSFODNN7EXAMPLE ", "word", " ", "\n", "```\n",
                                  "~~~\n", "token:\n  ", "- ", "`", "\t"]),
                 max_size=25).map("".join)


@given(MIXED)
def test_hiding_twice_changes_nothing(text):
    once = hide(text)
    assert hide(once) == once
    assert "AKIAIOSFODNN7EXAMPLE" not in once
