"""Names of one thing: "the k8s upgrade" meets the memory about *Kubernetes*, at ``SYNONYM`` x the points."""
from __future__ import annotations

import pytest

from helpers import record
from team_memory.recall.retrieve import rank
from team_memory.recall.weights import BODY, SYNONYM
from team_memory.text.textnorm import NAMES, STOP_WORDS, _build_alternates, fold, synonyms
from test_cache import assert_same_results
from test_wordforms import indexed_store


@pytest.mark.parametrize("word, names", [
    ("k8s", {"kubernetes", "kube"}), ("kubectl", {"kubernetes"}), ("postgres", {"postgresql", "psql"}),
    ("l10n", {"localization", "translation"}), ("ssl", {"tls"}), ("copilot", {"chatgpt", "genai", "llm"}),
])
def test_the_other_names_of_a_thing(word, names):
    assert set(synonyms(fold(word))) >= {fold(n) for n in names}


@pytest.mark.parametrize("word", ["delete", "remove", "database", "db", "config", "test", "type", "null", "lost"])
def test_everyday_words_have_none(word):
    """Their other names are as common as they are: meeting them would let ordinary prompts speak."""
    assert synonyms(fold(word)) == ()


def test_every_folded_name_is_a_part_of_the_table_s_text():
    """What lets ``synonyms`` and ``alternates`` skip building their tables for a word their text lacks."""
    from team_memory.text.textnorm import VERBS
    for text in (NAMES, VERBS):
        for word in text.replace(",", " ").split():
            assert fold(word) in text, word


def test_the_table_is_symmetric_and_holds_no_stop_word():
    table = _build_alternates(NAMES, frozenset())
    assert len(table) > 40
    for form, others in table.items():
        assert form not in STOP_WORDS and form not in others
        assert all(form in table[other] for other in others)


def _store(memory_root, settings=None) -> dict:
    return indexed_store(memory_root, [
        record("runbook", "cluster-upgrade", "Upgrade the Kubernetes cluster one minor version at a time",
               ["upgrade", "cluster"]),
        record("decision", "l10n-files", "Localization strings live in one FTL file per component", ["fluent"]),
    ], settings)


def test_a_short_form_recalls_the_memory_and_says_how(memory_root):
    config = _store(memory_root)
    hits = rank(str(memory_root), config, "how do we do a k8s upgrade?", 5)
    assert hits and hits[0].entry["path"].endswith("cluster-upgrade.json")
    assert hits[0].parts["synonym"] == ["k8s~kubernet (title)"], hits[0].parts
    hits = rank(str(memory_root), config, "where do the l10n strings for a new component go?", 5)
    assert hits and hits[0].entry["path"].endswith("l10n-files.json")


def test_at_the_synonym_share_of_the_word_itself(memory_root):
    config = _store(memory_root, {"retrieval": {"min_score": 0, "min_evidence": 0, "min_distinct": 0}})
    [itself] = rank(str(memory_root), config, "kubernetes", 1)
    [other] = rank(str(memory_root), config, "k8s", 1)
    assert other.entry == itself.entry
    assert other.score == pytest.approx(SYNONYM * itself.score, abs=0.01)
    assert itself.score > BODY


def test_the_cached_path_scores_the_same(memory_root):
    config = _store(memory_root)
    assert_same_results(memory_root, config, ["k8s upgrade", "kubectl upgrade", "l10n strings", "postgres k8s",
                                              "the kube cluster"])
