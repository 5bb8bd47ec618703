"""Triage text: ``clean_text`` does what the plain expressions did (it runs them only where a tag or a fence
is present); the Stop hook loads ``re`` (its cues) but neither ``json`` nor ``datetime`` for an ordinary turn,
and SessionStart none of the three."""
from __future__ import annotations

import json
import re
import subprocess
import sys

from hypothesis import given, settings, strategies as st

import helpers
from helpers import REPO, examples, transcript_line
from team_memory.capture.triage import clean_text, paragraphs

PIECES = ["`", "``", "```", "~~~", "\n", "\n\n", " \t\n", "-", "*", "+", ">", "1.", "12)", " ", "\t", "a", "Bc",
          "<private>", "</private>", "<memory-context x>", "</memory-context>", "<system-reminder>",
          "</system-reminder>", "<PRIVATE>", "\u3000", "\u00a0", "é", "İ", "ſ", "<", ">"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def old_clean_text(text: str) -> str:
    """The expressions ``clean_text`` stands for, applied to the whole text."""
    text = re.sub(r"(?is)<private\b[^>]*>.*?(?:</private\s*>|\Z)", " ", text)
    text = re.sub(r"(?is)<memory-context\b[^>]*>.*?(?:</memory-context\s*>|\Z)", " ", text)
    text = re.sub(r"(?is)<(system-reminder|local-command-stdout|local-command-stderr|command-message|"
                  r"command-name|command-args|user-prompt-submit-hook)\b[^>]*>.*?(?:</\1\s*>|\Z)", " ", text)
    text = re.sub(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", "\n", text)
    return re.sub(r"`[^`\n]*`", " ", text)


@settings(max_examples=examples(400), deadline=None)
@given(texts)
def test_clean_text_does_what_the_expressions_did(text):
    assert clean_text(text) == old_clean_text(text)
    assert paragraphs(text) == re.split(r"\n[ \t]*\n", text)


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


def test_stop_and_session_start_load_no_json_or_datetime_and_stop_compiles_its_cues(project, memory_root):
    helpers.write(memory_root, helpers.record("decision", "use-valkey", "Use Valkey for sessions"))
    transcript = project / "session.jsonl"
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project), "stop_hook_active": False}
    transcript.write_text("")

    def turn(text: str) -> list:
        with open(transcript, "a", encoding="utf-8") as f:
            f.write(transcript_line("user", "and the next one?") + transcript_line("assistant", text)
                    + edit_line(str(project / "app" / "session.py")))  # files are counted on the quiet path too
        return [m for m in _loaded("capture", "on_stop", payload) if m != "team_memory.capture.capture"]

    for text in ("Nothing to report.", "Done, the export test passes now.",
                 "We decided to keep the timeout at ten seconds because of the API."):
        assert turn(text) == ["re"]  # every turn compiles the cues (re), nothing else heavy
    _loaded("orientation", "on_session_start", {"cwd": str(project), "source": "startup"})  # builds the index
    start = _loaded("orientation", "on_session_start", {"cwd": str(project), "source": "startup"})
    assert "re" not in start and "json" not in start and "team_memory.capture.capture" not in start
