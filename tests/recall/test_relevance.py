"""A memory is shown only when it explains the prompt's distinctive words (``recall/weights.judge``)."""
from __future__ import annotations

import pytest

from helpers import record, run_cli, write
from team_memory.base.config import load_config
from team_memory.derived.refresh import rebuild_index
from team_memory.recall import weights
from team_memory.recall.retrieve import rank

MEMORIES = [
    ("e2e", "End-to-end tests run in Playwright", ["testing", "playwright", "e2e"]),
    ("zod", "API request types come from zod schemas", ["types", "zod", "api"]),
    ("s3", "Profile images live in S3", ["profile", "images", "s3"]),
    ("queue", "Billing retries go through the Redis queue", ["billing", "redis", "retries"]),
    ("helm", "Deploys use the Helm chart in infra/", ["helm", "deploy"]),
    ("dates", "Dates are stored as UTC and shown in the viewer's zone", ["dates", "timezone"]),
    ("flags", "Feature flags live in LaunchDarkly, never in env vars", ["feature-flags", "launchdarkly"]),
    ("errors", "Errors go to Sentry with the request id attached", ["errors", "sentry"]),
]

# ordinary coding prompts a teammate types: no memory above is what they are about
ORDINARY = [
    "write a test for the date parser",
    "explain TypeScript's type narrowing",
    "add a null check on user.profile",
    "explain the type of this function",
    "rename this variable to something clearer",
    "why does this test fail on CI?",
    "what does ?? do in TypeScript",
    "refactor this function to return early",
    "fix the error in the login form",
]

# questions about the memories themselves: each still gets its memory first
QUESTIONS = [
    ("how do we run the playwright tests?", "e2e"),
    ("where do zod schemas live?", "zod"),
    ("where are profile images stored in s3?", "s3"),
    ("how do billing retries work with redis?", "queue"),
    ("how do we deploy with helm?", "helm"),
    ("which timezone are dates stored in?", "dates"),
    ("where do feature flags live?", "flags"),
    ("where do errors get reported, sentry?", "errors"),
    ("launchdarkly", "flags"),
]


def _store(memory_root, cached: bool) -> None:
    for key, title, tags in MEMORIES:
        write(memory_root, record("decision", key, title, tags))
    if cached:
        rebuild_index(str(memory_root), load_config(str(memory_root)))


def _shown(memory_root, prompt: str) -> list:
    config = load_config(str(memory_root))
    return [h.entry["path"].rsplit("/", 1)[1][:-5] for h in rank(str(memory_root), config, prompt, 5)]


@pytest.mark.parametrize("cached", [False, True])
def test_an_ordinary_prompt_gets_no_block(memory_root, cached):
    _store(memory_root, cached)
    for prompt in ORDINARY:
        assert _shown(memory_root, prompt) == [], prompt


@pytest.mark.parametrize("cached", [False, True])
def test_a_question_still_gets_its_memory(memory_root, cached):
    _store(memory_root, cached)
    for prompt, key in QUESTIONS:
        assert _shown(memory_root, prompt)[:1] == [key], prompt


@pytest.mark.parametrize("cached", [False, True])
def test_one_clear_answer_is_shown_alone(memory_root, cached):
    """A second line must be nearly as strong as the first (``retrieval.near_distinct``)."""
    _store(memory_root, cached)
    assert _shown(memory_root, "how do the playwright end-to-end tests handle errors?") == ["e2e"]


def test_the_rule_can_be_switched_off(memory_root):
    _store(memory_root, False)
    (memory_root / "memory-config.json").write_text('{"retrieval": {"min_distinct": 0}}')
    assert _shown(memory_root, "write a test for the date parser") != []


def test_distinctness_follows_the_rank_in_ordinary_programming_text():
    from team_memory.recall import weights
    table = weights.ranks()
    assert table.size > 5000
    test, parser, unknown = (weights.distinctness(w, table) for w in ("test", "parser", "pydnatic"))
    assert weights.distinctness("the", table) in (0.0, 1.0)  # a stop word is never a prompt token
    assert test < parser < unknown == 1.0
    assert weights.distinctness("funct", table) < 0.25  # "function", folded as prompts are (``textnorm``)


def test_search_explain_says_why_it_stayed_silent(memory_root):
    _store(memory_root, False)
    out = run_cli("search", "write a test for the date parser", "--explain", "--root", str(memory_root)).stdout
    assert "no memory matches" in out
    assert "ordinary words" in out and "test" in out.split("ordinary words", 1)[1].split("\n", 1)[0]
    assert "under retrieval.min_distinct 1" in out and "covers 11% of the prompt" in out  # what the best scored, against what bar


def test_a_question_about_the_teams_own_ways_needs_less_proof(memory_root):
    """"should I" / "we" / "our" ask what a team memory is for: the bar is ``retrieval.min_distinct_team``.
    The same ordinary words asked as a coding request stay silent."""
    write(memory_root, record("preference", "undefined", "Optional fields are undefined, not null",
                              ["typescript", "optional"]))
    write(memory_root, record("decision", "e2e", "End-to-end tests run in Playwright", ["testing", "playwright"]))
    assert _shown(memory_root, "do we return null for missing fields?") == ["undefined"]  # evidence 0.78
    assert _shown(memory_root, "return null for missing fields") == []  # the same words, asked as a task
    (memory_root / "memory-config.json").write_text('{"retrieval": {"min_distinct_team": 1.0}}')
    assert _shown(memory_root, "do we return null for missing fields?") == []


@pytest.mark.parametrize("prompt, asks", [
    ("how do we deploy?", True), ("Should I squash this?", True), ("what's our rule on retries", True),
    ("We\u2019re moving to pnpm, right?", True), ("is that allowed here", True), ("add a test for parse_date", False),
    ("explain TypeScript's type narrowing", False), ("trust the weather API", False), ("", False),
    ("we should add aggregation group unit test", False), ("the team should add a unit test", False),  # tasks
    ("we just pushed a broken release, how do I undo it", True),
    ("add the user's email to every request log line in our middleware", True),  # "our": the team's own code
])
def test_asks_team(prompt, asks):
    assert weights.asks_team(prompt) is asks
    assert weights.asks_team("x" * weights.TEAM_SLICE + " we") is False  # a bounded slice is read


def test_a_path_is_about_the_file_it_names(memory_root):
    """A pasted path's last name is what it is about: ``pgbouncer`` of ``/usr/local/bin/pgbouncer`` counts in full."""
    _store(memory_root, False)
    write(memory_root, record("decision", "pgbouncer", "Use PgBouncer in transaction mode", ["pgbouncer"]))
    assert _shown(memory_root, "/usr/local/bin/pgbouncer crashes on start") == ["pgbouncer"]
    assert weights.named_by_path("usr/local/bin/pgbouncer", "pgbouncer")
    assert not weights.named_by_path("usr/local/bin/pgbouncer", "bin") and not weights.named_by_path("pgbouncer", "pgb")


@pytest.mark.parametrize("cached", [False, True])
def test_cjk_word_forms_and_typos_still_recall(memory_root, cached):
    """With the rule on: Korean, Japanese and Chinese prompts, a word form and a typo still get their memory."""
    _store(memory_root, False)
    for key, title, tags in [("ko", "배포는 금요일에 하지 않는다", ["배포"]), ("ja", "決済APIのリトライは三回まで", ["決済"]),
                             ("zh", "数据库迁移必须先在预发布环境运行", ["数据库迁移"])]:
        write(memory_root, record("constraint", key, title, tags))
    if cached:
        rebuild_index(str(memory_root), load_config(str(memory_root)))
    assert _shown(memory_root, "금요일에 배포해도 되나요?")[:1] == ["ko"]
    assert _shown(memory_root, "決済のリトライは何回？")[:1] == ["ja"]
    assert _shown(memory_root, "数据库迁移要先在哪里运行？")[:1] == ["zh"]
    assert _shown(memory_root, "how are billing retries retried with redis?")[:1] == ["queue"]  # word forms
    assert _shown(memory_root, "do we use launchdarkyl?")[:1] == ["flags"]  # a typo (the fuzzy step)


def test_a_number_alone_does_not_make_a_prompt_speak(memory_root):
    """``10`` of "the first 10 lines" meets "Python 3.10" but says nothing of what the prompt is about."""
    write(memory_root, record("preference", "py310", "Support Python 3.10 and newer", ["python-versions"]))
    for i in range(20):
        write(memory_root, record("preference", f"note-{i}", f"Notes on topic {i + 20}", ["misc"]))
    assert _shown(memory_root, "print the first 10 lines of the file") == []
    assert _shown(memory_root, "列出并删除最早的10个文件") == []
    assert _shown(memory_root, "do we still support python 3.10?")[:1] == ["py310"]
    assert weights.distinctness("10", weights.ranks()) == weights.NUMBER < 1.0


@pytest.mark.parametrize("prompt, name", [
    ("When did Elena register for the half marathon?", "Elena"),
    ("quick one - what's Elena's race number?", "Elena"),  # 's: even first in its sentence
    ("Elena went to Kyoto. When?", "Kyoto"),  # a sentence's first word may be any word
    ("ok so Elena asked me about Kyoto, when was it?", "Kyoto"),  # who asked is not what it is about
    ("What's our rule on using Alembic autogenerate?", "Alembic"),
    ("what does ?? do in TypeScript", ""),  # a capital inside the word: code, not a name
    ("my test fails with RemovedInAirflow3Warning", ""),
    ("write a Test for the Parser", ""),  # ordinary words, whatever their case
    ("ask the SRE team", ""),
    ("help Elena with the deploy runbook", ""),  # a task, not a question about someone
    ("When did John sign up?", "John"), ("what is Dave's race number?", "Dave"),  # names docs hold too
    ("does it run on Windows or Linux?", ""), ("can we use Python here?", ""),  # common words of programming text
    ("", ""), ("................", ""), ("??? !!!", ""),  # no word at all
])
def test_subject_name(prompt, name):
    from team_memory.text.textnorm import STOP_WORDS
    assert weights.subject_name(prompt, STOP_WORDS) == name


def test_a_prompt_about_a_name_no_memory_mentions_stays_silent(memory_root):
    """The same question about someone the store never names is about someone else ("the next conversation's
    store"): nothing is shown, and ``search --explain`` says why. ``retrieval.unknown_names: false`` turns it off."""
    write(memory_root, record("decision", "maya-race", "Maya's half marathon", ["maya", "half-marathon"],
                              content={"status": "accepted", "context": "Race news.", "rationale": [],
                                       "decision": "Maya registered for the Riverside half marathon in March."}))
    write(memory_root, record("decision", "kyoto", "Trip to Kyoto in October", ["travel", "kyoto"]))
    assert _shown(memory_root, "When did Maya register for the half marathon?")[:1] == ["maya-race"]
    assert _shown(memory_root, "When did Elena register for the half marathon?") == []
    assert _shown(memory_root, "what's Elena's half marathon time?") == []
    assert _shown(memory_root, "ok so Elena asked me when Maya registered for the half marathon")[:1] == ["maya-race"]
    assert _shown(memory_root, "when was Maya's trip to Kyoto?")[:1] == ["kyoto"]  # every name known
    out = run_cli("search", "When did Elena register for the half marathon?", "--explain",
                  "--root", str(memory_root)).stdout
    assert "no memory matches" in out and "the prompt is about Elena, a name no memory mentions" in out
    assert "maya-race.json" in out  # what it would have met, listed as a near miss
    (memory_root / "memory-config.json").write_text('{"retrieval": {"unknown_names": false}}')
    assert _shown(memory_root, "When did Elena register for the half marathon?")[:1] == ["maya-race"]


def test_a_name_must_be_written_out_not_only_share_its_token(memory_root):
    """"James" folds to the token of "jam", "Evan" to that of "Evans": a store holding only those words never
    names them, so a question about James or Evan stays silent. A memory writing the name (or its
    possessive, or the singular of "the Smiths") out in its body is enough; so is a name's other name."""
    write(memory_root, record("decision", "rehearsal", "Band rehearsal: the Thursday jam session",
                              ["band", "jam", "rehearsal"]))
    write(memory_root, record("decision", "mr-evans-boiler", "Mr Evans the landlord fixed the boiler",
                              ["flat", "boiler", "evans"]))  # the id and a tag write "evans" in lowercase
    assert _shown(memory_root, "when is the Thursday jam session?")[:1] == ["rehearsal"]
    assert _shown(memory_root, "When did James book the jam session?") == []
    assert _shown(memory_root, "what did Evan say about the boiler?") == []
    out = run_cli("search", "When did James book the jam session?", "--explain", "--root", str(memory_root)).stdout
    assert "the prompt is about James, a name no memory mentions" in out
    write(memory_root, record("decision", "drums", "New drum kit for the band", ["band", "drums"],
                              content={"status": "accepted", "context": "Kit.", "rationale": [],
                                       "decision": "James's old kit goes to the school."}))
    assert _shown(memory_root, "When did James book the jam session?")[:1] == ["rehearsal"]
    write(memory_root, record("decision", "smith", "The Smith family moved to Leeds", ["neighbours"]))
    assert _shown(memory_root, "when did the Smiths move to Leeds?")[:1] == ["smith"]


def test_a_name_held_by_many_memories_is_taken_as_written_out(memory_root):
    """At most ``NAME_READS`` memories are read to find a name written out; past them the tokens decide."""
    from team_memory.recall.matching import NAME_READS
    for i in range(NAME_READS + 1):
        write(memory_root, record("decision", f"jam-{i}", f"Jam session number {i}", ["jam", f"session-{i}"]))
    out = run_cli("search", "When did James book the jam session?", "--explain", "--root", str(memory_root)).stdout
    assert "the question asks about James" in out and "a name no memory mentions" not in out
    (memory_root / "decisions" / "jam-0.json").unlink()
    out = run_cli("search", "When did James book the jam session?", "--explain", "--root", str(memory_root)).stdout
    assert "the prompt is about James, a name no memory mentions" in out


@pytest.mark.parametrize("text, name, found", [
    ("Mr Evans the landlord", "evan", False), ("the jam session", "james", False), ("ask Evan's sister", "evan", True),
    ("tags: maya-running", "maya", True), ("Mayapur", "maya", False), ("The Smith family", "smiths", True),
    ("EVAN", "evan", True), ("", "evan", False), ("xevan evanx Evan", "evan", True),
    ("two JSON schemas", "schema", True), ("the Schemas team", "schema", False), ("new boxes", "box", True),
    ("evans", "evan", True),
    ("the boxer", "box", False), ("İstanbul trip with Evan", "evan", True),
])
def test_written_out(text, name, found):
    from team_memory.recall.matching import written_out
    assert written_out(text, name) is found
    assert written_out(text, name, plural=False) is (found and text not in ("two JSON schemas", "new boxes", "evans"))


def test_a_memory_that_does_not_name_the_question_s_subject_ranks_lower(memory_root):
    """"who's Maya's boss now?": Priya's boss is someone else's; at ``SUBJECT_MISSING`` x its points it follows
    the memory about Maya."""
    write(memory_root, record("decision", "priya-boss", "Priya's boss Gareth is retiring", ["priya", "boss", "work"]))
    write(memory_root, record("decision", "maya-ward", "Maya moved to Ward 7", ["maya", "ward", "work"],
                              content={"status": "accepted", "context": "Work news.", "rationale": [],
                                       "decision": "Maya moved to Ward 7; her boss there is Dr Okafor."}))
    for i in range(12):  # Maya is in many memories, so her name weighs less than "boss"
        write(memory_root, record("preference", f"note-{i}", f"Notes on topic {i}", ["maya" if i < 8 else "misc"]))
    assert _shown(memory_root, "who's Maya's boss now?")[:1] == ["maya-ward"]
    assert _shown(memory_root, "who is the boss of Priya?")[:1] == ["priya-boss"]
    out = run_cli("search", "who's Maya's boss now?", "--explain", "--root", str(memory_root)).stdout
    assert "the question asks about Maya: a memory that does not name it counts at 0.5 of its points" in out
    (memory_root / "memory-config.json").write_text('{"retrieval": {"unknown_names": false}}')
    assert _shown(memory_root, "who's Maya's boss now?")[:1] == ["priya-boss"]  # the boss tag outweighs a body word


def test_subject_name_reads_a_bounded_number_of_words():
    """Each capitalized word is looked up in ``ordinary.txt``: at most ``NAMES_TRIED`` of them are."""
    from team_memory.text.textnorm import STOP_WORDS
    ordinary = " ".join(w.capitalize() for w in ("function", "return", "value", "string", "object", "number",
                                                  "array", "error", "class", "method"))
    assert weights.NAMES_TRIED < 10
    assert weights.subject_name(f"how do {ordinary} Elena?", STOP_WORDS) == ""
    assert weights.subject_name("how do Function Return Elena?", STOP_WORDS) == "Elena"
