"""``retrieval.second_chance``: a few titles when nothing is confident, only on two rare words."""
from __future__ import annotations

import json

import pytest

from helpers import record, run_prompt_hook, write
from team_memory.base.config import load_config
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.retrieve import rank
from test_abstention import _store

# two words only the ledger memory holds, in its body; six more rare words, each another memory's
# title word: the ledger explains too little of the prompt to be confident
TWO_RARE = "someone asked how to reconcile the ledger, maybe after the orchid or walrus or quartz or amber or cobalt or falcon thing"
ONE_RARE = "someone asked how to reconcile, maybe after the orchid or walrus or quartz or amber or cobalt or falcon thing"
FILLERS = ("orchid", "walrus", "quartz", "amber", "cobalt", "falcon")


def _setup(memory_root, size: int, second_chance) -> dict:
    _store(memory_root, size)
    content = {"status": "accepted", "context": "Month end.", "decision": "We reconcile the ledger nightly.",
               "rationale": ["Finance wants it."]}
    write(memory_root, record("decision", "ledger", "Nightly close for finance", ["finance"], content=content))
    for word in FILLERS:
        write(memory_root, record("preference", word, f"Notes on {word} naming", ["misc"]))
    if second_chance is not None:
        (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"second_chance": second_chance}}))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    return config


def _shown(memory_root, config, prompt: str) -> list:
    return [(h.entry["path"].rsplit("/", 1)[1][:-5], h.related()) for h in rank(str(memory_root), config, prompt, 5)]


@pytest.mark.parametrize("size", [50, 500])
def test_two_rare_words_get_a_title_when_nothing_is_confident(memory_root, size):
    config = _setup(memory_root, size, 2)
    assert _shown(memory_root, config, TWO_RARE) == [("ledger", True)]
    assert _shown(memory_root, config, ONE_RARE) == []  # one rare word is not enough
    assert _shown(memory_root, config, "tell me about deploy") == []  # nor a common one


@pytest.mark.parametrize("size", [50, 500])
def test_off_by_default(memory_root, size):
    config = _setup(memory_root, size, None)
    assert _shown(memory_root, config, TWO_RARE) == []


def test_the_real_hook_lists_the_title_only(project, memory_root):
    _setup(memory_root, 50, 2)
    proc = run_prompt_hook(project, TWO_RARE)
    out = proc.stdout.decode()
    assert proc.returncode == 0 and "Possibly related (titles only):" in out, (out, proc.stderr)
    assert "Nightly close for finance" in out and "reconcile the ledger nightly" not in out  # no excerpt
