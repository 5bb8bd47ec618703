"""The key content shown under a clear winner, per category."""
from __future__ import annotations

from helpers import record
from team_memory.excerpt import clear_winner, excerpt_line, key_content


class H:
    def __init__(self, score):
        self.score = score


def test_key_content_per_category():
    assert key_content("decision", record("decision", "d", "t")) == ("decision", "d")
    assert key_content("constraint", record("constraint", "c", "t")) == ("rule", "r")
    assert key_content("preference", record("preference", "p", "t")) == ("value", "v")
    assert key_content("tech_debt", record("tech_debt", "t", "t")) == ("debt", "d")
    rb = record("runbook", "r", "t", content={"trigger": "x", "steps": ["a", " ", "b", "c", "d"], "verification": "v"})
    assert key_content("runbook", rb) == ("first steps", "1. a 2. b 3. c")
    s = record("session_summary", "s", "t", content={"goal": "g", "outcome": "partial", "completed": [],
                                                        "next_actions": ["ship it", "write docs"]})
    assert key_content("session_summary", s) == ("session", "outcome partial; next: ship it; write docs")
    assert key_content("decision", {"content": "not a dict"}) == ("", "")


def test_excerpt_is_one_clean_escaped_cut_line():
    rec = record("decision", "d", "t", content={"decision": "Use <b>x</b>\n\u202e -> y #tags:z " + "w" * 500})
    line = excerpt_line("decision", rec, 60)
    assert line.startswith("  decision: Use &lt;b&gt;x&lt;/b&gt;") and "\n" not in line and "\u202e" not in line
    assert " -> " not in line and "#tags:" not in line and line.endswith("\u2026")
    assert excerpt_line("decision", record("decision", "d", "t", content={"decision": "  "}), 60) == ""


def test_clear_winner():
    assert clear_winner([H(5)]) and clear_winner([H(6), H(4)]) and not clear_winner([H(5), H(4)])
    assert not clear_winner([])
