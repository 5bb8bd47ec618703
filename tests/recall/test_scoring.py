"""The seed's title/tag score (``similar`` keeps it) and its tokenizer: worked examples A, B and C."""
from __future__ import annotations

from team_memory.cli.viewdupes import score_entry
from team_memory.text.tokens import tokenize



def entry(cat, title, tags):
    return {"category": cat, "title": title, "path": "x", "tags": list(tags)}


def test_tokenizer_seed_examples():
    assert tokenize("How do I fix the pydantic import error?") == {"fix", "pydantic", "import", "error"}
    assert tokenize("go use it") == set()
    assert tokenize("Fix pydantic ImportError") == {"fix", "pydantic", "importerror"}
    assert tokenize("Always use type hints in Python") == {"always", "type", "hints", "python"}
    assert tokenize("ab 12 abc") == {"abc"}  # two-character words are dropped


def test_example_a_exact_scores():
    words = tokenize("fix pydantic import error in tests")
    assert words == {"fix", "pydantic", "import", "error", "tests"}
    parts = {}
    assert score_entry(words, entry("RUNBOOK", "Fix pydantic ImportError", ["pydantic", "import", "error"]), parts) == 13
    assert parts == {"title": ["fix", "pydantic"], "tags": ["error", "import", "pydantic"], "prefix": []}


def test_example_b_prefix_direction_is_prompt_to_target():
    words = tokenize("authentication policy")
    assert score_entry(words, entry("CONSTRAINT", "API auth rate limit", ["api", "auth", "rate"])) == 0


def test_example_c_exact_scores():
    words = tokenize("always prefer type hint convention")
    parts = {}
    assert score_entry(words, entry("PREFERENCE", "Always use type hints in Python", ["python", "typing"]), parts) == 5
    assert parts["prefix"] == ["hint"]


def test_prefix_counts_once_per_prompt_word_and_skips_matched():
    words = {"redis", "cach"}
    # "cach" starts both "cache" and "caching": still +1; "redis" is exact (+2), never re-scored as prefix
    assert score_entry(words, entry("DECISION", "Redis cache caching", [])) == 2 + 1


def test_short_prompt_words_never_prefix_match():
    assert score_entry({"fix"}, entry("RUNBOOK", "fixing things", [])) == 0
