"""The answer's shape: "when ...?" prefers, among memories that meet it alike, the one holding a date.

``text.answershape`` reads the question and the memory; ``rank._finish`` adds
``retrieval.answer_shape`` points (1) to a checked hit that holds the shape asked for, after the
strategy decided which memories are clear hits and which are possibly related titles.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from helpers import record, run_prompt_hook, write
from team_memory.base.config import load_config
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.retrieve import rank
from team_memory.text.answershape import COUNT, DATE, DURATION, MONEY, TIME, asked_shape, holds_shape
from test_cache import assert_same_results


@pytest.mark.parametrize("prompt, shape", [
    ("when is Maya's interview?", DATE),
    ("When did Jon move out", DATE),
    ("what day is the quiz night", DATE),
    ("hey, quick one - when does Ana fly out?", DATE),
    ("do you remember when the lease ends", DATE),
    ("what time does the ceremony start?", TIME),
    ("at what time is the stand-up", TIME),
    ("how much was Priya's raise?", MONEY),
    ("ok so how much did the band get paid", MONEY),
    ("how many people can Priya invite?", COUNT),
    ("how long was Ana on the waiting list?", DURATION),
    ("not sure who knows this, but how long do we keep raw history", DURATION),
    ("what is our auth policy for employees", None),
    ("what does Maya check when she pops in on Gran?", None),  # ``when`` joins two clauses here
    ("deploy the service when the tests pass", None),
    ("tell me about auth", None),
    ("", None),
])
def test_the_shape_a_question_asks_for(prompt, shape):
    assert asked_shape(prompt) == shape


@pytest.mark.parametrize("shape, text", [
    (DATE, "The interview is on 11 June with Dr Shah."),
    (DATE, "Moving day is Friday."),
    (DATE, "Lease runs to 2026."),
    (DATE, "Booked for the 3rd."),
    (DATE, "Quiz night, 18 May."),
    (DATE, "Back tomorrow."),
    (TIME, "Ceremony at 1pm, dinner later."),
    (TIME, "Stand-up is at 9:30 sharp."),
    (TIME, "Starts at 7 pm."),
    (TIME, "Carriages at midnight."),
    (TIME, "Doors open at eight o'clock."),
    (MONEY, "The pass is £40 a month."),
    (MONEY, "They paid us $250."),
    (MONEY, "A 3% raise from April."),
    (MONEY, "Forty quid, or 40 quid."),
    (MONEY, "The budget is 12k."),
    (COUNT, "Room for 120 guests."),
    (COUNT, "Three maids of honour."),
    (DURATION, "She waited eight months for it."),
    (DURATION, "Two weeks' notice."),
    (DURATION, "It took a fortnight."),
    (DURATION, "Retention is 90 days."),
    (DURATION, "Speeches under 5 minutes each."),
])
def test_a_text_that_holds_the_shape(shape, text):
    assert holds_shape(shape, text)


@pytest.mark.parametrize("shape, text", [
    (DATE, "You may want to check with Maya first."),  # ``may`` the verb, no number beside it
    (DATE, "We march on regardless."),
    (DATE, "Use the salmon kibble."),
    (TIME, "The ratio is 3:2 and the ids are 1:23456."),
    (TIME, "Notes on the pm role."),
    (MONEY, "Ask the vet about the chicken."),
    (COUNT, "Ask the vet about the chicken."),
    (DURATION, "Every day counts."),  # a unit without a number
    (DURATION, "Version 3 of the day planner."),
])
def test_a_text_that_does_not(shape, text):
    assert not holds_shape(shape, text)


@given(st.text(max_size=300), st.sampled_from([DATE, TIME, MONEY, COUNT, DURATION]))
def test_any_text_is_read_without_error(text, shape):
    """Prompts and memories are untrusted: any text gives a shape or None, and a yes or no."""
    assert asked_shape(text) in (None, DATE, TIME, MONEY, COUNT, DURATION)
    assert holds_shape(shape, text) in (True, False)


def _interview_store(memory_root, answer_shape=None) -> dict:
    """Two memories that meet "when is Maya's interview" alike; only the second holds a date."""
    plain = {"status": "accepted", "context": "Maya talked about it in the group chat.",
             "decision": "Maya is nervous about the panel and is practising answers with Carol.", "rationale": []}
    dated = {"status": "accepted", "context": "Maya talked about it in the group chat.",
             "decision": "The panel is on 11 June, with Dr Shah and Carol.", "rationale": []}
    write(memory_root, record("decision", "maya-nerves", "Maya's interview nerves", ["maya", "interview"], content=plain))
    write(memory_root, record("decision", "maya-panel", "Maya's interview panel", ["maya", "interview"], content=dated))
    for i in range(30):  # a store around them, so the two are rare
        write(memory_root, record("preference", f"note-{i}", f"Notes on topic {i}", ["misc"]))
    if answer_shape is not None:
        (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"answer_shape": answer_shape}}))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    return config


def _ids(memory_root, config, prompt: str) -> list:
    return [h.entry["path"].rsplit("/", 1)[1][:-5] for h in rank(str(memory_root), config, prompt, 5)]


def test_a_when_question_puts_the_dated_memory_first(memory_root):
    config = _interview_store(memory_root)
    assert _ids(memory_root, config, "when is Maya's interview?") == ["maya-panel", "maya-nerves"]
    # a question that asks for no date keeps the strategy's order (index order on equal scores)
    assert _ids(memory_root, config, "what about Maya's interview?") == ["maya-nerves", "maya-panel"]


def test_switched_off_it_changes_nothing(memory_root):
    config = _interview_store(memory_root, answer_shape=0)
    assert _ids(memory_root, config, "when is Maya's interview?") == ["maya-nerves", "maya-panel"]


def test_the_cached_path_orders_the_same(memory_root):
    config = _interview_store(memory_root)
    assert_same_results(memory_root, config, ["when is Maya's interview?", "how long is Maya's interview",
                                              "what time is the interview", "Maya interview"])


def _shown(memory_root, answer_shape, prompts, **retrieval) -> list:
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"answer_shape": answer_shape,
                                                                              **retrieval}}))
    config = load_config(str(memory_root))
    out = []
    for prompt in prompts:
        hits = rank(str(memory_root), config, prompt, 5)
        out.append(sorted((h.entry["path"], h.related()) for h in hits))
        flags = [h.related() for h in hits]
        assert flags == sorted(flags), (prompt, flags)  # clear hits first, then the related titles
    return out


def test_it_never_breaks_a_silence_nor_crosses_the_related_line(memory_root):
    """The bonus reorders what the strategy returned: even at 100 points it adds no memory, breaks
    no silence, and moves none across the line between clear hits and possibly related titles."""
    _interview_store(memory_root)
    for i, (title, text) in enumerate([("Signing keys rotation", "Rotate the signing keys on 1 March."),
                                       ("Signing keys storage", "The signing keys moved to the vault on 2 May."),
                                       ("Interview app deploys", "Deploy the interview app at 9:30."),
                                       ("Vault costs", "The vault costs $40 a month for 3 seats.")]):
        content = {"status": "accepted", "context": "c", "decision": text, "rationale": []}
        write(memory_root, record("runbook", f"r{i}", title, ["signing", "vault", "interview"][i % 3:i % 3 + 1],
                                  content=content))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    prompts = ["when is the next full moon?", "when do we rotate the signing keys?", "how much does the vault cost",
               "what time do we deploy the interview app", "when is Maya's interview?", "how long are the keys kept"]
    for relevance in ({}, {"min_distinct": 0}):  # with the relevance rule, and without it (more related titles)
        off = _shown(memory_root, 0, prompts, **relevance)
        assert off[0] == [] and any(any(related for _, related in hits) for hits in off), off
        assert _shown(memory_root, 1, prompts, **relevance) == off
        assert _shown(memory_root, 100, prompts, **relevance) == off
    _shown(memory_root, 1, prompts, min_distinct=0)
    related = rank(str(memory_root), load_config(str(memory_root)), prompts[1], 5)[-1]
    assert related.related() and related.parts.get("answer_shape") == "date"  # a related title that holds a date


def test_the_real_hook_shows_the_dated_memory_first(project, memory_root):
    _interview_store(memory_root)
    proc = run_prompt_hook(project, "when is Maya's interview?")
    out = proc.stdout.decode()
    assert proc.returncode == 0 and "Maya's interview panel" in out, (out, proc.stderr)
    assert out.index("Maya's interview panel") < out.index("Maya's interview nerves"), out
