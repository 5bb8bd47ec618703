"""When ``smart`` answers and when it stays silent: a rare word is enough, a common one is not.

The stores are generated at 50, 500 and 5,000 memories so that the rule is seen to hold
whatever the store's size (IDF weights, and so scores, move with it).
"""
from __future__ import annotations

import json
import random

import pytest

from helpers import record, run_hook, run_prompt_hook, write
from team_memory.base.config import load_config
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.weights import evidence
from team_memory.recall.matching import Smart
from team_memory.recall.retrieve import rank

WORDS = ("billing export invoice retry worker queue cache redis kafka schema migration search index "
         "upload report dashboard metrics alert timeout config feature flag release mobile android ios "
         "email webhook payment customer tenant region storage bucket backup restore login session "
         "token audit log trace docker helm terraform cluster node pool batch cron import csv pdf").split()
COMMON = "deploy"  # a tag on a quarter of the store


def _store(memory_root, size: int) -> None:
    """``size`` memories over a small vocabulary; ``auth`` is a tag once but mentioned in 4% of the bodies."""
    rng = random.Random(size)
    for i in range(size):
        tags = rng.sample(WORDS, 3) + ([COMMON] if i % 4 == 0 else [])
        title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {rng.choice(WORDS)} notes {i}"
        text = " ".join(rng.sample(WORDS, 8)) + (" behind the auth proxy" if i % 25 == 7 else "")
        content = {"status": "accepted", "context": text, "decision": text, "rationale": ["r"]}
        write(memory_root, record("decision", f"m{i}", title, tags, content=content))
    write(memory_root, record("constraint", "sso-only", "Authentication must go through the corporate SSO",
                              ["authentication", "sso"]))
    write(memory_root, record("preference", "auth-style", "Keep service-to-service calls on short-lived tokens",
                              ["auth", "tokens"]))


def _shown(memory_root, prompt: str) -> list:
    config = load_config(str(memory_root))
    return [h.entry["path"].rsplit("/", 1)[1][:-5] for h in rank(str(memory_root), config, prompt, 5)]


@pytest.mark.parametrize("size", [50, pytest.param(500, marks=pytest.mark.slow), pytest.param(5000, marks=pytest.mark.slow)])  # 5,000: ~2.5 s, CI runs it
def test_a_rare_tag_answers_and_a_common_word_stays_silent(memory_root, size):
    _store(memory_root, size)
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    for prompt in ("tell me about auth", "what is our auth policy for employees"):
        shown = _shown(memory_root, prompt)
        assert shown and shown[0] in ("auth-style", "sso-only"), (size, prompt, shown)
    assert _shown(memory_root, "tell me about sso")[:1] == ["sso-only"]
    assert _shown(memory_root, "anything on authentication?")[:1] == ["sso-only"]
    assert _shown(memory_root, f"tell me about {COMMON}") == [], size
    assert _shown(memory_root, f"what is our {COMMON} policy for employees") == [], size
    # the same common word beside words that point nowhere in particular still says too little
    assert _shown(memory_root, f"how often do we {COMMON} on fridays, and who decides") == [], size


def test_the_real_hook_answers_a_one_word_question(project, memory_root):
    _store(memory_root, 50)
    proc = run_prompt_hook(project, "tell me about auth")
    out = proc.stdout.decode()
    assert proc.returncode == 0 and "<memory-context" in out and "short-lived tokens" in out
    proc = run_hook("user_prompt_submit.py", {"prompt": f"tell me about {COMMON}", "cwd": str(project),
                                              "hook_event_name": "UserPromptSubmit", "session_id": "t"})
    assert proc.returncode == 0 and proc.stdout == b""


def test_evidence_is_the_best_score_scaled_by_the_share_explained():
    assert evidence(3.0, 3.0) == 3.0
    assert evidence(3.0, 12.0) == pytest.approx(1.5)
    assert evidence(3.0, 2.0) == 3.0  # never more than the best score
    assert evidence(0.0, 5.0) == 0.0 and evidence(2.0, 0.0) == 0.0


def test_old_floor_keys_still_work_and_new_ones_can_be_switched_off():
    old = Smart({"retrieval": {"min_score": 2.5, "min_relative": 0.5}})  # a store config from before
    assert (old.min_score, old.min_relative, old.min_evidence) == (2.5, 0.5, 1.9)
    off = Smart({"retrieval": {"min_score": 0, "min_relative": 0, "min_evidence": 0, "min_runner_up": 0}})
    assert off.confident(0.1, 50.0, 0, {}, {}, 0) and off.bar(4.0) == 0
    assert Smart({"retrieval": {"min_evidence": "lots"}}).min_evidence == 1.9


def _compound_store(memory_root, size: int) -> None:
    """``size`` memories; four carry the compound tag ``sleep-current``, none the word ``current`` alone."""
    rng = random.Random(size + 1)
    for i in range(size):
        tags = rng.sample(WORDS, 3) + (["sleep-current"] if i < 4 else [])
        title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} notes {i}"
        write(memory_root, record("constraint" if i < 4 else "decision", f"m{i}", title, tags))


@pytest.mark.parametrize("size", [50, pytest.param(500, marks=pytest.mark.slow)])
@pytest.mark.parametrize("cached", [False, True])
def test_a_part_of_a_compound_tag_is_not_a_tag(memory_root, size, cached):
    """``what's our current position on this?`` meets ``sleep-current`` only by a part: it stays silent."""
    _compound_store(memory_root, size)
    if cached:
        rebuild_index(str(memory_root), load_config(str(memory_root)))
    assert _shown(memory_root, "so what's our current position on this?") == [], size
    for prompt in ("tell me about sleep-current", "tell me about sleep current", "sleepcurrent?"):
        shown = _shown(memory_root, prompt)
        assert shown and set(shown) <= {"m0", "m1", "m2", "m3"}, (prompt, shown)
    # two words written as one meet a tag whole, never its prefixes: "sleep" alone says little
    assert _shown(memory_root, "sleep current limits") == _shown(memory_root, "tell me about sleep-current")
    assert _shown(memory_root, "how long should I sleep cursorily") == []


def test_compound_parts_can_be_switched_off():
    entry = {"title": "Sleep budget", "tags": ["sleep-current"], "path": "x.json"}
    on = Smart({}).prepare_entry(entry)
    off = Smart({"retrieval": {"compound_parts": False}}).prepare_entry(entry)
    assert "current" in on[1] and "current" not in on[0] and "sleep-current" in on[0]
    assert "current" in off[0]


@pytest.mark.parametrize("size", [50, pytest.param(500, marks=pytest.mark.slow)])
@pytest.mark.parametrize("cached", [False, True])
def test_a_number_word_is_no_evidence(memory_root, size, cached):
    """``a three day trip`` meets a title with ``three`` in it by chance: number words are stop words."""
    _compound_store(memory_root, size)
    write(memory_root, record("decision", "alert", "Alert after three missed uplinks", ["alerting"]))
    if cached:
        rebuild_index(str(memory_root), load_config(str(memory_root)))
    assert _shown(memory_root, "help me plan a three day trip to the coast") == [], size
    assert _shown(memory_root, "what about missed uplinks?")[:1] == ["alert"], size


def _note(memory_root, ident: str, title: str, tags: list, text: str) -> None:
    content = {"status": "accepted", "context": text, "decision": text, "rationale": ["r"]}
    write(memory_root, record("decision", ident, title, tags, content=content))


def _people_store(memory_root, size: int, seed: int, name: str, every: int) -> None:
    """``size`` memories of a group chat over a small vocabulary; ``name`` is a tag of ``every`` in 5."""
    rng = random.Random(seed)
    for i in range(size):
        tags = rng.sample(WORDS, 2) + ([name] if i % 5 < every else ["someone"])
        title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} notes {i}"
        _note(memory_root, f"m{i}", title, tags, " ".join(rng.sample(WORDS, 8)))


def _settle(memory_root, cached: bool, retrieval: dict | None = None) -> None:
    """Write ``retrieval`` settings (if any) and, for the cached path, rebuild the cache."""
    if retrieval is not None:
        (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": retrieval}))
    if cached:
        rebuild_index(str(memory_root), load_config(str(memory_root)))


def _pottery_store(memory_root, size: int) -> None:
    """``maya`` is a tag of 60% of the memories; ``pottery`` is in one body."""
    _people_store(memory_root, size, size + 2, "maya", 3)
    _note(memory_root, "hobby", "Maya's new Thursday plans", ["maya", "plans"],
          "Maya started a pottery class at the community studio on Thursdays")


@pytest.mark.parametrize("size", [50, pytest.param(500, marks=pytest.mark.slow), pytest.param(5000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("cached", [False, True])
def test_a_question_its_best_memory_explains_answers_under_the_evidence_floor(memory_root, size, cached):
    """One rare body word and a common name: under ``min_evidence``, yet the memory explains the whole question."""
    _pottery_store(memory_root, size)
    _settle(memory_root, cached)
    assert _shown(memory_root, "what did maya say about pottery?")[:1] == ["hobby"], size
    assert _shown(memory_root, "pottery?")[:1] == ["hobby"], size
    # the same rare word among words the store never saw explains little of the prompt
    assert _shown(memory_root, "how do I glaze pottery without a kiln at home") == [], size
    # a common word alone, or a common name, is no answer
    assert _shown(memory_root, "what about maya?") == [], size
    if size < 500:
        return  # in a small store the rare word weighs enough for ``min_evidence`` alone
    # the other ways off: the evidence rule alone stays silent on the question
    _settle(memory_root, cached, {"min_explained": 0, "min_corroborated": 0})
    assert _shown(memory_root, "what did maya say about pottery?") == [], size


def _party_store(memory_root, size: int) -> None:
    """``jon`` is a tag of a fifth of the memories; one says how much Jon raised, three are about the
    end of a month (``end`` is a title word elsewhere)."""
    _people_store(memory_root, size, size + 3, "jon", 1)
    for i in range(3):
        write(memory_root, record("runbook", f"close{i}", f"Month end close, step {i}", ["billing"]))
    _note(memory_root, "charity", "Jon's charity run in June", ["jon", "june"],
          "He raised 420 for the animal shelter with the charity run")


@pytest.mark.parametrize("size", [50, pytest.param(500, marks=pytest.mark.slow), pytest.param(5000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("cached", [False, True])
def test_two_strong_words_in_one_memory_answer_under_the_evidence_floor(memory_root, size, cached):
    """A name tagged on a fifth of the store and a rare body word, both in the memory the question is
    about, while another prompt word is a title word elsewhere: ``min_evidence`` alone stays silent."""
    _party_store(memory_root, size)
    _settle(memory_root, cached)
    assert _shown(memory_root, "how much did jon raise in the end?")[:1] == ["charity"], size
    # the name alone says nothing; a word of the memory beside a word of other memories is chance
    assert _shown(memory_root, "what is jon up to?") == [], size
    assert _shown(memory_root, "should we raise prices at the end of the year") == [], size
    if size < 500:
        return  # in a small store the rare words weigh enough for ``min_evidence`` alone
    _settle(memory_root, cached, {"min_corroborated": 0})
    assert _shown(memory_root, "how much did jon raise in the end?") == [], size


def test_strong_words_count_exact_matches_of_different_prompt_words():
    """Strong: a tag or title word less than half the store holds, a rare body word; the same share at any size."""
    from team_memory.recall.weights import strong_weights, strong_words

    def match(field, weight, kind="exact"):
        return ({"tags": 3.0, "title": 2.0, "body": 1.3}[field] * weight, field, kind, "t")

    for n in (50, 500, 50_000):
        least = strong_weights(n)
        assert least["tags"] == least["title"] < least["body"] == 0.5
        common, rare = least["tags"] * 0.9, least["tags"] * 1.1
        assert strong_words([(0, "jon", match("tags", rare)), (1, "party", match("title", 1.0))], n) == 2
        assert strong_words([(0, "jon", match("tags", common)), (1, "party", match("title", 1.0))], n) == 1
        assert strong_words([(0, "jon", match("tags", rare)), (0, "jons", match("title", 1.0))], n) == 1  # one word
        assert strong_words([(0, "jon", match("body", 0.45)), (1, "party", match("body", 0.55))], n) == 1
        assert strong_words([(0, "jon", match("tags", 1.0, "prefix")), (1, "party", match("title", 1.0))], n) == 1
        assert strong_words([(0, "+sleepcurrent", match("tags", 1.0)), (1, "sleep", match("title", 1.0))], n) == 1
    # a word tagged on a third of the store is strong at every size, though its weight falls as the store grows
    from team_memory.recall.weights import idf as _idf
    third = [_idf(n / 3, n) / _idf(1, n) for n in (50, 500, 50_000)]
    assert third[0] > third[1] > third[2] and all(w > strong_weights(n)["tags"] for w, n in zip(third, (50, 500, 50_000)))


def test_a_best_under_min_score_that_answers_is_shown_whatever_its_rounding(memory_root):
    """A prefix of a rare tag asked about alone scores 0.4 x 3 = 1.2000000000000002 and answers the
    ``explained`` way; rows are rounded to 1.2, so the bar must be taken from the rounded best too."""
    for i in range(30):
        write(memory_root, record("decision", f"m{i}", f"Notes on area {i}", [f"area{i}"]))
    write(memory_root, record("decision", "k8s", "Run services on a managed cluster", ["kubernetes"]))
    (memory_root / "memory-config.json").write_text('{"retrieval": {"fuzzy": false}}')
    config = load_config(str(memory_root))
    assert _shown(memory_root, "anything on kubernetss") == ["k8s"]  # plain path
    rebuild_index(str(memory_root), config)
    assert _shown(memory_root, "anything on kubernetss") == ["k8s"]  # from the cache


@pytest.mark.parametrize("size", [50, pytest.param(500, marks=pytest.mark.slow)])
def test_a_short_form_beside_an_exact_tag_is_at_least_possibly_related(project, memory_root, size):
    """"auth policy": ``auth`` is one memory's tag and a prefix of another's ``authentication``. The second
    scores 0.4 x a tag, under the runner-up floor; with its prefix counted as the word it stands for it
    reaches it, so it is listed by title under "Possibly related" (plain, cached, the real hook) when the
    relevance rule is off (``retrieval.min_distinct`` 0). With the rule on, the memory tagged ``auth``
    still answers first (the prompt's ordinary words, ``policy`` and ``employees``, prove nothing)."""
    _store(memory_root, size)
    prompt = "what is our auth policy for employees"
    (memory_root / "memory-config.json").write_text('{"retrieval": {"min_distinct": 0}}')
    config = load_config(str(memory_root))
    for cached in (False, True):
        if cached:
            rebuild_index(str(memory_root), config)
        hits = rank(str(memory_root), config, prompt, 5)
        names = {h.entry["path"].rsplit("/", 1)[1][:-5]: h for h in hits}
        assert {"auth-style", "sso-only"} <= set(names), (size, cached, list(names))
        assert names["sso-only"].parts.get("related") and not names["auth-style"].parts.get("related")
    out = run_prompt_hook(project, prompt).stdout.decode()
    assert "auth-style.json" in out and out.index("Possibly related") < out.index("sso-only.json"), out
    # the short form alone, with no exact match beside it, still answers nothing new
    assert _shown(memory_root, f"what is our {COMMON} policy for employees") == []
    (memory_root / "memory-config.json").unlink()
    assert _shown(memory_root, prompt)[:1] == ["auth-style"]


def test_a_pair_met_as_one_word_and_as_two_counts_at_half(memory_root):
    """``metadata-database`` meets "metadata", "database" and the pair "metadatadatabase": the pair counts at
    ``JOINED_FACTOR``, so it does not outweigh a title that meets three of the prompt's words."""
    migration = record("runbook", "new-migration", "Add a metadata-database migration after changing the ORM",
                       ["alembic", "migrations", "database"])
    marker = record("preference", "db-test-marker", "Mark tests that touch the database with db_test",
                    ["pytest", "database", "xdist"])
    others = [record("decision", f"db-{i}", title, ["database"]) for i, title in enumerate(
        ["Database backups run nightly", "Database users are per service", "Test data is generated, never copied"])]
    from test_wordforms import indexed_store
    config = indexed_store(memory_root, [migration, marker] + others)
    hits = rank(str(memory_root), config, "mark this test module as needing the metadata database", 5)
    assert [h.entry["path"].rsplit("/", 1)[-1] for h in hits[:2]] == ["db-test-marker.json", "new-migration.json"], hits
    assert rank(str(memory_root), config, "metadata database migration", 5)[0].entry["path"].endswith("new-migration.json")
    from team_memory.recall.weights import twice_met
    exact = (2.0, "title", "exact", "")
    # "no data" meets the tag ``no-data`` as one word only ("no" is a stop word): the pair counts in full
    assert twice_met([(0, "data", exact), (1, "+nodata", exact)]) == set()
