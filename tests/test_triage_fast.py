"""Triage without ``re`` on the common path: the plain string code does what the expressions did,
cue keywords never hide a match, programs from the cache behave as compiled ones, and the Stop and
SessionStart hooks import neither ``re`` nor ``json`` for an ordinary turn."""
from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys

from hypothesis import given, settings, strategies as st

import helpers
from helpers import REPO, transcript_line
from team_memory.capture import triage_text
from team_memory.base.config import load_config, section
from team_memory.capture.transcript import read_transcript
from team_memory.capture.triage_text import (CASE_SPECIAL, clean_text, compiled, cue_keys, may_match, message_lines,
                                     paragraphs)

FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
PIECES = ["`", "``", "```", "~~~", "\n", "\n\n", " \t\n", "-", "*", "+", ">", "1.", "12)", " ", "\t", "a", "Bc",
          "<private>", "</private>", "<memory-context x>", "</memory-context>", "<system-reminder>",
          "</system-reminder>", "<PRIVATE>", "\u3000", "\u00a0", "é", "İ", "ſ", "<", ">"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def old_clean_text(text: str) -> str:
    """The expressions ``clean_text`` applied before it had plain string code."""
    text = re.sub(r"(?is)<private\b[^>]*>.*?(?:</private\s*>|\Z)", " ", text)
    text = re.sub(r"(?is)<memory-context\b[^>]*>.*?(?:</memory-context\s*>|\Z)", " ", text)
    text = re.sub(r"(?is)<(system-reminder|local-command-stdout|local-command-stderr|command-message|"
                  r"command-name|command-args|user-prompt-submit-hook)\b[^>]*>.*?(?:</\1\s*>|\Z)", " ", text)
    text = re.sub(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", "\n", text)
    return re.sub(r"`[^`\n]*`", " ", text)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_plain_string_code_does_what_the_expressions_did(text):
    assert clean_text(text) == old_clean_text(text)
    assert paragraphs(text) == re.split(r"\n[ \t]*\n", text)
    for line in text.splitlines():
        assert triage_text._without_list_mark(line) == re.sub(r"^\s*(?:[-*+>]|\d+[.)])\s+", "", line)


def test_case_special_is_the_engine_table():
    """Text holding a character that ``re`` folds differently from ``str.lower`` is checked against every cue."""
    try:  # the engine's extra case pairs: re._casefix from 3.11, sre_compile._equivalences before
        from re import _casefix
        table = {chr(c) for k, v in _casefix._EXTRA_CASES.items() for c in (k, *v)}
    except ImportError:
        import sre_compile
        table = {chr(c) for pair in sre_compile._equivalences for c in pair}
    assert CASE_SPECIAL == {c for c in table if not c.isascii()} | {"\u0130"}
    assert may_match(("decided",), "we decıded")  # dotless i: no keyword found, yet every cue is checked


def _default_patterns() -> list:
    cues = section(load_config(None), "triage")["cues"]
    return sorted({p for kinds in cues.values() for patterns in kinds.values() for p in patterns})


def _fixture_lines() -> list:
    lines = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for turn in read_transcript(str(path), 0).turns:
            lines += message_lines(clean_text(turn.text), 0, turn.role)
    return lines


def test_cue_keywords_never_hide_a_match():
    patterns = _default_patterns()
    keys = cue_keys(patterns)
    assert len(keys) >= len(patterns) - 5  # nearly every default cue has keywords
    words = sorted({k for found in keys.values() for k in found})
    samples = _fixture_lines() + [w.upper() + " x " + w.title() for w in words] + [" ".join(words)]
    for pattern, found in keys.items():
        regex = re.compile(pattern, re.IGNORECASE)
        for line in samples:
            if regex.search(line):
                assert may_match(found, line.lower()), (pattern, found, line)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["We ", "decided", "DECIDED", "chose", "Let's ", "use", " or ", "?", "it is",
                                 ". ", "결정", "に統一", "because", "ſ", "İ", "K", "\u212a"]), max_size=12).map("".join))
def test_cue_keywords_never_hide_a_match_in_generated_text(text):
    for pattern, found in cue_keys(_default_patterns()).items():
        if re.search(pattern, text, re.IGNORECASE):
            assert may_match(found, text.lower()), (pattern, text)


PROBE = """
import sys
sys.path.insert(0, {scripts!r})
from team_memory.base import fastjson as json
from team_memory.base import bytecache
bytecache.install()
from team_memory.records.hookio import run_hook
from team_memory.capture.{module} import {handler}
run_hook("x", {handler}, json.loads({payload!r}))
print("\\n" + json.dumps(sorted(m for m in ("re", "json", "datetime", "team_memory.capture.capture") if m in sys.modules)))
"""


def _loaded(module: str, handler: str, payload: dict) -> list:
    """The heavy modules a hook handler loaded, run under ``python3 -S``."""
    code = PROBE.format(scripts=str(REPO / "scripts"), module=module, handler=handler, payload=json.dumps(payload))
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def edit_line(path: str) -> str:
    block = {"type": "tool_use", "id": "e", "name": "Edit", "input": {"file_path": path, "old_string": "a", "new_string": "b"}}
    return json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [block]}}) + "\n"


def test_stop_and_session_start_load_no_json_or_datetime_and_re_only_for_a_cue(project, memory_root, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME")  # a cache of this test's own, under its home: the first run fills it
    helpers.write(memory_root, helpers.record("decision", "use-valkey", "Use Valkey for sessions"))
    transcript = project / "session.jsonl"
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project), "stop_hook_active": False}
    transcript.write_text("")

    def turn(text: str) -> list:
        with open(transcript, "a", encoding="utf-8") as f:
            f.write(transcript_line("user", "and the next one?") + transcript_line("assistant", text)
                    + edit_line(str(project / "app" / "session.py")))  # files are counted on the quiet path too
        return [m for m in _loaded("capture", "on_stop", payload) if m != "team_memory.capture.capture"]

    turn("We decided to keep three retries because of the rate limits.")  # the first run works out the cues once
    assert turn("Nothing to report.") == []  # no cue's keyword: nothing compiled
    for text in ("Done, the export test passes now.", "We decided to keep the timeout at ten seconds because of the API."):
        assert set(turn(text)) <= {"re"}  # a cue's keyword: the cues that may match are compiled (re), nothing else
    _loaded("orientation", "on_session_start", {"cwd": str(project), "source": "startup"})  # builds the index
    start = _loaded("orientation", "on_session_start", {"cwd": str(project), "source": "startup"})
    assert "re" not in start and "json" not in start and "team_memory.capture.capture" not in start
    assert os.environ["HOME"] in str(triage_text._cache_path("x"))


def test_without_a_cache_folder_every_cue_is_compiled_and_results_stay(monkeypatch):
    """No folder to keep the keywords in (a read-only home): no keywords worked out, every cue compiled."""
    from team_memory.capture.triage import triage
    config = load_config(None)
    paths = sorted(FIXTURES.glob("*.jsonl"))[:12]
    expected = [repr(triage(read_transcript(str(p), 0).turns, config)) for p in paths]
    monkeypatch.setenv("XDG_CACHE_HOME", "/dev/null/none")
    monkeypatch.setattr(triage_text, "_key_cache", {})
    assert cue_keys(_default_patterns()) == {}
    assert [repr(triage(read_transcript(str(p), 0).turns, config)) for p in paths] == expected
