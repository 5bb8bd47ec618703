"""Cues from config (``triage.extra_cues``) are checked before they run: shapes that backtrack are refused with
one stderr line in the Stop hook and a problem plus its fix in ``doctor``; what is accepted stays fast."""
from __future__ import annotations

import json
import time

import pytest

import pattern_inventory
from helpers import run_cli, run_hook, transcript_line
from team_memory.base.config import load_config
from team_memory.base.patternrisk import MAX_PATTERN_CHARS, backtrack_risk
from team_memory.capture import triage

BACKTRACKING = r"^(\w+\s?)*$"  # the cue: 30 words and a "!" kept Stop busy for minutes
DECISION = ("We compared Redis and Memcached for the session store.\n"
            "We decided to use Redis because it persists sessions across restarts.\n"
            "Memcached would have been simpler, but we chose Redis over it.\n" + " ".join(["word"] * 30) + "!")


@pytest.mark.parametrize("pattern, phrase", [
    (BACKTRACKING, "repeated group"), (r"(a+)+b", "repeated group"), (r"(x+x+)+y", "repeated group"),
    (r"(a|ab)*c", "start alike"), (r"(a|a?)+", "start alike"), (r"\w+\w+x", "in a row"), (r".*a.*b", "in a row"),
    (r"(.*?,){11}P", "in a row"), (r"\s*\s*\s*$", "in a row"), (r"(a{1,10}){1,10}b", "in a row"),
    (r"(\w)\1", "backreference"), (r"(a)?(?(1)b|c)", "backreference"), (r"(?=a)*b", "lookaround"),
    ("x" * (MAX_PATTERN_CHARS + 1), "longer than"), ("(", "not a valid"), (7, "not text"),
])
def test_backtracking_shapes_are_refused(pattern, phrase):
    assert phrase in (backtrack_risk(pattern) or "")


@pytest.mark.parametrize("pattern", [
    r"\bwe decided\b", r"(a|b)*c", r"(?:ab)+c", r"\d{16}", r"(\w+ ){0,6}x", r"(\.\w+)+$", r"\w+(?:\.\w+)*@",
    r"(\s+\S+){0,3}?\s+use", r"[a-z]+ [a-z]+ it is", r".*foo.*", r"\bnot \w+( \w+)?,? but\b",
])
def test_ordinary_cues_are_accepted(pattern):
    assert backtrack_risk(pattern) is None


def test_every_shipped_cue_passes_the_check():
    refused = {p: backtrack_risk(p) for p, _ in pattern_inventory.cue_patterns() if backtrack_risk(p)}
    assert not refused


@pytest.mark.slow  # times every accepted cue shape (~5 s): .ci/run and TEAM_MEMORY_SLOW=1 run it
def test_what_the_check_accepts_is_fast():
    """Random cues built from groups, alternatives and quantifiers: every one the check lets through, run as
    the scorer runs a cue (line by line) on adversarial text, stays well within the bound."""
    runs, slow = pattern_inventory.run_child(["--accepted", 150, 7, 5000], 1.5)
    assert len(runs) > 500
    assert not slow, "\n".join(slow)


def test_scoring_stops_looking_at_its_deadline(monkeypatch):
    turns = [type("Turn", (), {"role": "assistant", "text": DECISION, "tools": []})()]
    config = load_config(None)
    assert [f.category for f in triage.triage(turns, config)] == ["decision"]
    monkeypatch.setattr(triage, "SCORING_SECONDS", -1.0)
    assert triage.triage(turns, config) == []


@pytest.fixture
def hostile_config(memory_root):
    (memory_root / "memory-config.json").write_text(json.dumps(
        {"triage": {"extra_cues": {"decision": {"primary": [BACKTRACKING, r"\bwe went for\b"]}}}}))
    return memory_root


def test_the_stop_hook_refuses_a_backtracking_cue_in_one_line(project, hostile_config):
    transcript = project / "session.jsonl"
    transcript.write_text(transcript_line("user", "Which store should hold sessions?")
                          + transcript_line("assistant", DECISION))
    payload = {"session_id": "abcd1234-ef56", "transcript_path": str(transcript), "cwd": str(project),
               "hook_event_name": "Stop", "stop_hook_active": False}
    began = time.monotonic()
    proc = run_hook("stop.py", payload, cwd=str(project), timeout=20)  # on main: still running after minutes
    assert time.monotonic() - began < 5 and proc.returncode == 0
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and "ignored triage cue" in lines[0] and "extra_cues.decision.primary" in lines[0]
    assert json.loads(proc.stdout)["decision"] == "block"  # the other cues still work


def test_doctor_names_the_cue_and_the_fix(project, hostile_config):
    proc = run_cli("doctor", "--root", hostile_config)
    problem = [line for line in proc.stdout.splitlines() if "extra_cues" in line]
    assert len(problem) == 1 and "can share text" in problem[0] and "rewrite it" in problem[0]
    assert "we went for" not in proc.stdout  # the good cue is no problem


# A cue the check accepts that is still quadratic on a line with no match: 100 of them, as a teammate committed.
QUADRATIC = "|".join(f"[a-z ]*{digit}" for digit in range(10))


@pytest.fixture
def many_cues_config(memory_root):
    cues = [QUADRATIC + f"|x{i}" for i in range(100)]
    (memory_root / "memory-config.json").write_text(json.dumps({"triage": {"extra_cues": {"decision": {"primary": cues}}}}))
    return memory_root


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_many_accepted_quadratic_cues_keep_stop_within_its_time(project, many_cues_config):
    """Each cue passes the check, yet 100 of them on every line is minutes of work: only the first
    ``MAX_EXTRA_CUES`` run, and the deadline is checked between patterns, not only between lines."""
    assert backtrack_risk(QUADRATIC) is None
    lines = [("we decided to use redis number %s " % chr(97 + i % 26) * 40)[:980] + ", 0123456789" for i in range(60)]
    transcript = project / "session.jsonl"
    transcript.write_text(transcript_line("user", "Which store should hold sessions?")
                          + transcript_line("assistant", "\n\n".join(lines)))
    payload = {"session_id": "abcd1234-ef56", "transcript_path": str(transcript), "cwd": str(project),
               "hook_event_name": "Stop", "stop_hook_active": False}
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = run_hook("stop.py", payload, cwd=str(project), timeout=60, process=True)  # main: 6 s, no word of the cap
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # scoring stops at 3 s (SCORING_SECONDS): the hook's CPU time is held to it, not the wall clock a loaded
    # machine stretches (in process, or with other tests beside it, the wall clock read 10 s in CI)
    assert proc.returncode == 0 and cpu < 5, cpu
    assert f"at most {triage.MAX_EXTRA_CUES} triage.extra_cues" in proc.stderr.decode()


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_doctor_names_too_many_cues(project, many_cues_config):
    proc = run_cli("doctor", "--root", many_cues_config)
    problem = [line for line in proc.stdout.splitlines() if "extra_cues" in line]
    assert len(problem) == 1 and "60 cues" in problem[0] and "merge cues" in problem[0], proc.stdout


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_the_deadline_is_checked_between_patterns(monkeypatch):
    """One line, many slow cues: scoring stops at its deadline, not after every cue has run on the line."""
    config = load_config(None)
    config.setdefault("triage", {})["extra_cues"] = {"decision": {"primary": [QUADRATIC + f"|x{i}" for i in range(100)]}}
    line = ("we decided to use redis number a " * 40)[:980] + ", 0123456789"
    turns = [type("Turn", (), {"role": "assistant", "text": line, "tools": []})()]
    monkeypatch.setattr(triage, "SCORING_SECONDS", 0.05)
    began = time.monotonic()
    triage.score_categories(turns, config)  # compiles the cues, then scores them against the deadline
    assert time.monotonic() - began < 1.5  # on main: every cue on the line, 6 s here
