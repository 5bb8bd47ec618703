"""Triage scoring: text cleaning, the seed's formula, cues from config, activity."""
from __future__ import annotations

import pytest

from team_memory.base.config import deep_merge, load_config
from team_memory.capture.transcript import Turn
from team_memory.capture.triage import (DENOMINATOR, activity, activity_score, compile_cues, cue_hits,
                                score_categories, score_lines, triage)
from team_memory.capture.triage import clean_text, conversation_lines, split_lines
import re

DECISION = ("We compared Redis and Memcached for the session store.\n"
            "We decided to use Redis because it persists sessions across restarts.\n"
            "Memcached would have been simpler, but we chose Redis over it.")


def cats(text, config=None, role="user"):
    return {f.category for f in triage([Turn(role, text)], config or load_config(None))}


def test_clean_text_removes_code_private_and_recalled_blocks():
    text = ("keep this\n```python\ndecided = True  # we decided\n```\nand this\n"
            "<private>we decided to fire Bob</private> tail <PRIVATE note='x'>secret\nmore</PRIVATE>\n"
            '<memory-context source=".claude/memory/">\n- [DECISION] Use Redis -> x.json\n</memory-context>\n'
            "<system-reminder>always use X</system-reminder>\n~~~\nunclosed fence decided")
    out = clean_text(text)
    for gone in ("decided", "Bob", "secret", "Use Redis", "always use", "fence"):
        assert gone not in out
    assert "keep this" in out and "and this" in out and "tail" in out


def test_unclosed_private_hides_everything_after_it():
    assert "decided" not in clean_text("start <private> we decided to use Redis because it is fast")


def test_stripped_text_never_fires():
    fenced = "```\n" + DECISION + "\n```"
    assert cats(DECISION) == {"decision"}
    assert cats(fenced) == set()
    assert cats(f"<private>{DECISION}</private>") == set()
    assert cats(f'<memory-context source=".claude/memory/">\n{DECISION}\n</memory-context>') == set()


def test_score_follows_the_seed_formula():
    primary = [re.compile(r"\bdecided\b")]
    boosters = [re.compile(r"\bbecause\b")]
    # three unboosted primary lines: 3 * 0.3 / 1.9
    lines = ["we decided a", "x", "x", "x", "we decided b", "x", "x", "x", "we decided c", "we decided d"]
    assert score_lines(lines, primary, boosters)[0] == pytest.approx(0.9 / DENOMINATOR)
    # a booster in the 4-line window (two before, one after) boosts; further away it does not
    assert score_lines(["because", "x", "decided"], primary, boosters)[0] == pytest.approx(0.5 / 1.9)
    assert score_lines(["decided", "because"], primary, boosters)[0] == pytest.approx(0.5 / 1.9)
    assert score_lines(["because", "x", "x", "decided"], primary, boosters)[0] == pytest.approx(0.3 / 1.9)
    assert score_lines(["decided", "x", "because"], primary, boosters)[0] == pytest.approx(0.3 / 1.9)
    # caps: 3 primary and 2 boosted give exactly 1.0, more stays at 1.0
    many = ["decided"] * 5 + ["x"] * 4 + ["decided because", "decided because", "decided because"]
    assert score_lines(many, primary, boosters)[0] == pytest.approx(1.0)


def test_overlapping_cues_count_once_distinct_phrases_count_each():
    regexes = [re.compile(r"go with"), re.compile(r"let's go with"), re.compile(r"decided")]
    assert cue_hits(regexes, "let's go with redis") == 1
    assert cue_hits(regexes, "we decided: let's go with redis") == 2


def test_evidence_is_the_matching_sentence():
    findings = triage([Turn("user", DECISION)], load_config(None))
    assert findings[0].category == "decision"
    assert 1 <= len(findings[0].evidence) <= 2 and all(len(e) <= 140 for e in findings[0].evidence)
    assert any("decided to use Redis" in e for e in findings[0].evidence)


def test_korean_and_japanese_cues_ship():
    assert "decision" in cats("세션 저장소는 Memcached 대신 Redis로 결정했습니다. 재시작해도 세션이 유지되기 때문입니다.\n"
                              "비교해 보니 Redis가 운영도 단순해서 Redis로 가죠.")
    assert "constraint" in cats("契約上、EU外への複製は一切禁止で、例外は認められないそうです。\n法務に確認しました。")


def test_tool_output_is_not_scored():
    assert {f.category for f in triage([Turn("tool_result", DECISION)], load_config(None))} == set()


def test_config_thresholds_extra_cues_and_disabled_categories():
    base = load_config(None)
    assert cats(DECISION, deep_merge(base, {"triage": {"thresholds": {"decision": 0.99}}})) == set()
    assert cats(DECISION, deep_merge(base, {"categories": {"decision": {"enabled": False}}})) == set()
    text = "ADR-7 accepted.\nADR-8 accepted.\nADR-9 accepted."
    assert cats(text) == set()
    extended = deep_merge(base, {"triage": {"extra_cues": {"decision": {"primary": [r"\bADR-\d+ accepted\b"]}}}})
    assert cats(text, extended) == {"decision"}
    assert len(compile_cues(extended)["decision"][0]) == len(compile_cues(base)["decision"][0]) + 1


def test_bad_cue_patterns_are_ignored_with_a_warning(capsys):
    config = deep_merge(load_config(None), {"triage": {"extra_cues": {"decision": {"primary": ["(unclosed", 5, ""]},
                                                                        "runbook": "not an object"}}})
    assert cats(DECISION, config) == {"decision"}
    assert "ignored triage cue '(unclosed'" in capsys.readouterr().err


def test_activity_and_session_summary():
    turns = []
    for i in range(5):
        turns += [Turn("user", f"step {i}"), Turn("assistant", "ok", ("Read", "Edit", "Bash", "Grep")),
                  Turn("tool_result", "r"), Turn("assistant", "done", ("Write",))]
    act = activity(turns)
    assert act == {"tool_uses": 25, "tools": ["Bash", "Edit", "Grep", "Read", "Write"], "exchanges": 5}
    config = load_config(None)
    assert activity_score(act, config) == pytest.approx((1 + 5 / 6 + 1) / 3)
    summary = [f for f in triage(turns, config) if f.category == "session_summary"]
    assert summary and "25 tool uses" in summary[0].evidence[0]
    assert not [f for f in triage(turns[:4], config) if f.category == "session_summary"]
    config = deep_merge(config, {"triage": {"activity": {"tool_uses": 1000, "distinct_tools": 1000, "exchanges": 1000}}})
    assert activity_score(act, config) < 0.1


def test_split_lines_drops_markers_and_bounds_length():
    assert split_lines("- one\n\n  2. two\n" + "x" * 5000) == ["one", "two", "x" * 1000]


def decision_score(*messages):
    """The decision score of a conversation given as (role, text) pairs."""
    config = load_config(None)
    score, _ = score_categories([Turn(role, text) for role, text in messages], config)["decision"]
    return score


def test_dampers_silence_questions_hypotheticals_and_undecided_choices():
    for text in ("Should we maybe go with Kafka someday? Not sure if it's worth it.",
                 "We haven't decided yet whether to go with Redis or Memcached.",
                 "We could go with Redis, I guess.",
                 "나중에 Redis로 갈지 고민 중이에요. 아직 결정 안 했어요.",
                 "まだ決めていませんが、Lokiにするかもしれません。"):
        assert decision_score(("user", text)) == 0, text
    assert decision_score(("user", "We decided to use Redis because it persists sessions.")) > 0


def test_a_choice_naming_its_alternative_fires_on_its_own():
    assert cats("We'll use server-sent events instead of websockets for the tracking page.") == {"decision"}
    assert cats("세션 저장소는 Memcached 대신 Redis로 하기로 했어요.") == {"decision"}
    assert cats("ログ基盤はDatadogではなくLokiにします。") == {"decision"}
    # an alternative without a choice is only a comparison
    assert cats("It streams pages into one writer rather than loading every label into memory.") == set()


def test_accepting_a_proposal_is_a_decision_routine_yes_is_not():
    proposal = ("assistant", "Two options:\n1. Redis, heavier but persistent.\n2. Memcached, simpler.\n"
                             "I'd recommend Redis.")
    assert decision_score(proposal, ("user", "ok, do that")) >= 0.4
    assert decision_score(("user", "Redis or Memcached?"),
                          ("assistant", "Redis persists across restarts; Memcached is simpler."),
                          ("user", "Redis it is.")) >= 0.4
    assert decision_score(("user", "Redis와 Memcached 중에 뭐가 나을까요?"),
                          ("assistant", "Redis는 재시작해도 유지되고, Memcached는 더 단순해요."),
                          ("user", "그럼 Redis로 가자.")) >= 0.4
    # a confirmation counts only as a reply to a proposal
    assert decision_score(("assistant", "Added the column. Want me to also expose it in the API?"),
                          ("user", "yes please, go ahead")) == 0
    assert decision_score(("user", "ok, do that")) == 0
    # the assistant accepting its own proposal is not an accepted proposal
    assert decision_score(proposal, ("assistant", "ok, do that")) == 0


def test_paragraph_booster_reaches_past_the_window():
    primary, boosters = [re.compile(r"\bdecided\b")], [re.compile(r"\bbecause\b")]
    text = "because a\nx\ny\nz\nwe decided b"
    lines = conversation_lines([Turn("user", text)])
    assert score_lines(lines, primary, boosters)[0] == pytest.approx(0.5 / DENOMINATOR)
    lines = conversation_lines([Turn("user", text.replace("z\n", "z\n\n"))])
    assert score_lines(lines, primary, boosters)[0] == pytest.approx(0.3 / DENOMINATOR)


def test_fixed_expressions_are_not_choices():
    assert decision_score(("user", "I don't know what it is.")) == 0
    assert decision_score(("user", "ありがとうございます、参考にします。")) == 0
    assert decision_score(("assistant", "설정을 수정했습니다.")) == 0


def test_a_team_can_give_any_category_proposals_without_confirmations():
    config = deep_merge(load_config(None), {"triage": {"extra_cues": {"runbook": {"proposals": [r"\btwo ways\b"]}}}})
    turns = [Turn("assistant", "Two ways out: restart the worker or clear the queue."), Turn("user", "hello")]
    assert {f.category for f in triage(turns, config)} == set()


@pytest.mark.parametrize("text, category", [
    ("We decided to switch the session store from Redis to Valkey because of the license change.", "decision"),
    ("We chose Valkey over Redis because it stays BSD-licensed.", "decision"),
    ("never call the partner API more than 10 times a minute, it's a hard limit", "constraint"),
    ("라이선스 변경 때문에 세션 저장소를 Redis에서 Valkey로 바꾸기로 결정했습니다.", "decision"),
    ("파트너 API는 1분에 10번 넘게 호출하면 안 됩니다. 하드 리밋이에요.", "constraint"),
    ("ライセンスの変更があったので、RedisではなくValkeyを選びました。", "decision"),
    ("ライセンス変更のため、セッションストアをRedisからValkeyに切り替えることに決めました。", "decision"),
    ("パートナーAPIは1分間に10回を超えて呼び出してはいけません。これは厳格な上限です。", "constraint"),
])
def test_a_choice_that_names_what_it_replaces_and_a_stated_hard_limit_fire(text, category):
    assert category in cats(text)


@pytest.mark.parametrize("text", [
    "I decided to look at the CI logs first because the test only fails there.",
    "テストが遅いので、まずプロファイルを取ることにしました。",
    "Could we switch from Redis to Valkey at some point? Not sure yet.",
    "Redis에서 Valkey로 바꾸면 어떨까요? 아직 결정은 안 했어요.",
])
def test_a_step_with_a_reason_or_an_open_switch_is_not_a_decision(text):
    assert "decision" not in cats(text)
