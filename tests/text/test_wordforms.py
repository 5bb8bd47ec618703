"""Irregular verb forms: "what did Ana lose?" meets the memory that says she *lost* it, at half points."""
from __future__ import annotations

import json

import pytest

from helpers import record, run_prompt_hook, write
from team_memory.base.config import load_config
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.retrieve import rank
from team_memory.recall.weights import BODY, IRREGULAR
from team_memory.text.textnorm import fold
from team_memory.text.textnorm import STOP_WORDS
from team_memory.text.textnorm import _build_alternates as _build, alternates
from test_cache import assert_same_results


@pytest.mark.parametrize("word, forms", [
    ("lose", {"lost"}), ("lost", {"lose"}), ("buy", {"bought"}), ("bought", {"buy"}),
    ("broken", {"break", "broke"}), ("run", {"ran"}), ("paid", {"pay"}), ("meet", {"met"}),
])
def test_the_other_forms_of_a_verb(word, forms):
    assert set(alternates(fold(word))) == {fold(f) for f in forms}


@pytest.mark.parametrize("word", ["left", "ground", "rose", "saw", "went", "got", "made", "knew", "redis", "deploy"])
def test_words_left_out(word):
    """Forms that are as often another word, verbs whose forms are stop words, and every other word."""
    assert alternates(fold(word)) == ()


def test_the_table_is_symmetric_and_holds_no_stop_word():
    table = _build()
    for form, others in table.items():
        assert form not in STOP_WORDS and form not in others
        for other in others:
            assert form in table[other]


def indexed_store(memory_root, memories: list, settings=None) -> dict:
    """``memories`` and 30 unrelated notes, ``settings`` as the store's config, indexed: the config."""
    for memory in memories:
        write(memory_root, memory)
    for i in range(30):
        write(memory_root, record("preference", f"note-{i}", f"Notes on topic {i}", ["misc"]))
    if settings:
        (memory_root / "memory-config.json").write_text(json.dumps(settings))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    return config


def _store(memory_root) -> dict:
    content = {"status": "accepted", "context": "Trip notes.", "decision": "Ana lost her passport in Kyoto; "
               "the embassy issued a temporary one.", "rationale": []}
    return indexed_store(memory_root, [record("decision", "ana-passport", "Ana's trip, October", ["ana", "travel"],
                                              content=content)])


def test_a_question_in_the_base_form_meets_the_past_form(memory_root):
    config = _store(memory_root)
    hits = rank(str(memory_root), config, "what did Ana lose in Kyoto?", 5)
    assert hits and hits[0].entry["path"].endswith("ana-passport.json")
    body = {m for m in hits[0].parts["body"]}
    assert "lost" in body and "kyoto" in body, hits[0].parts


def test_at_half_the_points_of_the_word_itself(memory_root):
    _store(memory_root)
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"min_score": 0, "min_evidence": 0,
                                                                          "min_distinct": 0}}))
    config = load_config(str(memory_root))
    [lost] = rank(str(memory_root), config, "lost", 1)
    [lose] = rank(str(memory_root), config, "lose", 1)
    assert lost.score == pytest.approx(BODY, abs=0.01)  # a body word one memory holds: weight 1
    assert lose.score == pytest.approx(IRREGULAR * BODY, abs=0.01)
    assert lose.parts["body"] == ["lost"] and lose.parts["prefix"] == []


def test_the_cached_path_scores_the_same(memory_root):
    config = _store(memory_root)
    assert_same_results(memory_root, config, ["what did Ana lose in Kyoto?", "passport lose", "passport lost",
                                              "Ana losing her passport", "who loses passports"])


def test_the_real_hook_recalls_it(project, memory_root):
    _store(memory_root)
    proc = run_prompt_hook(project, "what did Ana lose in Kyoto?")
    out = proc.stdout.decode()
    assert proc.returncode == 0 and "ana-passport.json" in out, (out, proc.stderr)
