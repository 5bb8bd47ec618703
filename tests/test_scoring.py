"""The prior plugin's scoring (the evaluation's baseline, ``seed_scorer``): its tables and worked examples A, B and C,
with their exact scores."""
from __future__ import annotations

from datetime import datetime, timezone

from helpers import record, write
from team_memory.base.config import load_config
from seed_scorer import SeedScorer as TitleTags, score_description, score_entry
from team_memory.recall.rank import rank
from team_memory.text.tokens import tokenize

RUNBOOK_DESC = "Step-by-step procedures for diagnosing and fixing specific errors or issues"
PREFERENCE_DESC = "User conventions, tool choices, coding standards, and workflow preferences"


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
    assert score_description(words, tokenize(RUNBOOK_DESC)) == 0  # one prefix (error->errors) = int(0.5) = 0


def test_example_b_prefix_direction_is_prompt_to_target():
    words = tokenize("authentication policy")
    assert score_entry(words, entry("CONSTRAINT", "API auth rate limit", ["api", "auth", "rate"])) == 0


def test_example_c_exact_scores():
    words = tokenize("always prefer type hint convention")
    parts = {}
    assert score_entry(words, entry("PREFERENCE", "Always use type hints in Python", ["python", "typing"]), parts) == 5
    assert parts["prefix"] == ["hint"]
    assert score_description(words, tokenize(PREFERENCE_DESC)) == 1


def test_description_cap_and_truncation():
    desc = tokenize("alpha beta gamma delta")
    assert score_description({"alpha", "beta", "gamma"}, desc) == 2  # capped
    assert score_description({"alph"}, desc) == 0  # 0.5 truncates to 0
    assert score_description({"alph", "bet", "gamm"}, desc) == 1  # 0.5 + 0.5
    assert score_description(set(), desc) == 0


def test_prefix_counts_once_per_prompt_word_and_skips_matched():
    words = {"redis", "cach"}
    # "cach" starts both "cache" and "caching": still +1; "redis" is exact (+2), never re-scored as prefix
    assert score_entry(words, entry("DECISION", "Redis cache caching", [])) == 2 + 1


def test_short_prompt_words_never_prefix_match():
    assert score_entry({"fix"}, entry("RUNBOOK", "fixing things", [])) == 0


def test_worked_examples_through_the_full_ranking(memory_root):
    now = datetime.now(timezone.utc)
    write(memory_root, record("runbook", "fix-pydantic-import", "Fix pydantic ImportError",
                              ["pydantic", "import", "error"], days_ago=4))
    write(memory_root, record("preference", "python-type-hints", "Always use type hints in Python",
                              ["python", "typing"], days_ago=200))
    write(memory_root, record("constraint", "api-auth", "API auth rate limit", ["api", "auth", "rate"], days_ago=200))
    config = load_config(str(memory_root))
    config["categories"]["runbook"]["description"] = RUNBOOK_DESC
    config["categories"]["preference"]["description"] = PREFERENCE_DESC

    hits = rank(str(memory_root), config, "fix pydantic import error in tests", 5, now=now, strategy=TitleTags(config))
    assert [(h.entry["title"], h.score) for h in hits][:1] == [("Fix pydantic ImportError", 14)]  # 13 + recency 1
    hits = rank(str(memory_root), config, "always prefer type hint convention", 5, now=now, strategy=TitleTags(config))
    assert [(h.entry["title"], h.score) for h in hits if h.entry["category"] == "PREFERENCE"] == [
        ("Always use type hints in Python", 6)]
    hits = rank(str(memory_root), config, "authentication policy", 5, now=now, strategy=TitleTags(config))
    assert "API auth rate limit" not in [h.entry["title"] for h in hits]


def test_category_priority_breaks_ties(memory_root):
    for cat, mid in [("session_summary", "s"), ("tech_debt", "t"), ("runbook", "r"), ("preference", "p"),
                     ("constraint", "c"), ("decision", "d")]:
        write(memory_root, record(cat, mid, "zebra crossing", []))
    config = load_config(str(memory_root))
    for cat in config["categories"]:
        config["categories"][cat]["description"] = ""
    hits = rank(str(memory_root), config, "zebra crossing now", 10, strategy=TitleTags(config))
    assert [h.entry["category"] for h in hits] == ["DECISION", "CONSTRAINT", "PREFERENCE", "RUNBOOK", "TECH_DEBT",
                                                   "SESSION_SUMMARY"]
    assert len({h.score for h in hits}) == 1


def test_strategy_object_matches_functions():
    s = TitleTags({"categories": {"runbook": {"description": RUNBOOK_DESC}}})
    q = s.query("fix pydantic import error in tests")
    points, parts = s.score(q, entry("RUNBOOK", "Fix pydantic ImportError", ["pydantic", "import", "error"]))
    assert points == 13 and parts["description"] == 0
