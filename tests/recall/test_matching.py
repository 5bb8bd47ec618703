"""The smart strategy: one test per matching rule, the floor, the fuzzy fallback, the body-token cache."""
from __future__ import annotations

import difflib
import json

from helpers import record, write
from team_memory.recall import matching, weights
from team_memory.derived.cache import Index, encode
from team_memory.text.features import body_text, derive_body_tokens
from team_memory.derived.cache import cache_path
from team_memory.base.config import deep_merge, load_config
from team_memory.derived.refresh import index_in_memory, rebuild_index
from team_memory.recall.matching import Smart
from team_memory.recall.retrieve import rank
from team_memory.text.textnorm import STOP_WORDS, tokenize


def entry(cat, title, tags=(), path=None):
    return {"category": cat, "title": title, "path": path or f".claude/memory/x/{title}.json", "tags": list(tags)}


def smart(min_score=0.0, **retrieval):
    floors = {"min_score": min_score, "min_relative": 0, "min_evidence": 0, "min_runner_up": 0, "min_distinct": 0}
    return Smart({"retrieval": {**floors, **retrieval}})


def scores(strategy, prompt, entries, bodies=None):
    """``{title: (points, parts)}`` of the memories ``strategy`` shows for ``prompt``, over an index of ``entries``."""
    items = [[e, 0.0, [*map(sorted, strategy.surface_tokens(e)), sorted((bodies or {}).get(e["path"], ()))], []]
             for e in entries]
    index = Index(encode({"files": {}}, ([], [], []), items))
    return {index.entry(i)["title"]: (points, parts) for points, i, parts in strategy.score(strategy.query(prompt), index)}


def filler(n=8):
    return [entry("DECISION", f"unrelated topic {i} zeppelin", ["misc"]) for i in range(n)]


def test_exact_tag_beats_title_beats_body():
    es = [entry("DECISION", "kafka consumer setup", path="t"), entry("DECISION", "broker setup", ["kafka"], path="g"),
          entry("DECISION", "broker config", path="b")] + filler()
    got = scores(smart(), "kafka question", es, bodies={"b": ["kafka"]})
    assert got["broker setup"][0] > got["kafka consumer setup"][0] > got["broker config"][0] > 0
    assert got["broker setup"][1]["tags"] == ["kafka"]
    assert got["kafka consumer setup"][1]["title"] == ["kafka"]
    assert got["broker config"][1]["body"] == ["kafka"]


def test_prefix_both_directions():
    es = [entry("CONSTRAINT", "API auth rate limit", ["api", "auth"]), entry("DECISION", "Authentication provider")] + filler()
    got = scores(smart(), "authentication policy", es)  # the seed's example B, now found
    assert "API auth rate limit" in got and got["API auth rate limit"][1]["prefix"]
    got = scores(smart(), "auth flow", es)
    assert "Authentication provider" in got and got["Authentication provider"][1]["prefix"] == [
        "auth~authenticat (title)"]


def test_prefix_needs_four_characters():
    es = [entry("DECISION", "fixture layout"), entry("DECISION", "apiary notes")] + filler()
    assert scores(smart(), "fix api", es) == {}


def test_prefix_counts_less_than_exact():
    es = [entry("DECISION", "postgres tuning", path="a"), entry("DECISION", "postgresql tuning", path="b")] + filler()
    got = scores(smart(), "postgres", es)
    assert got["postgres tuning"][0] > got["postgresql tuning"][0] > 0


def test_rare_tokens_weigh_more_than_common_ones():
    es = [entry("DECISION", f"service {i} deploy", ["service"]) for i in range(10)]
    es.append(entry("DECISION", "terraform state", ["terraform"]))
    got = scores(smart(), "service terraform", es)
    assert got["terraform state"][0] > max(p for t, (p, _) in got.items() if t != "terraform state")


def test_word_forms_and_identifiers_match():
    es = [entry("RUNBOOK", "Fix pydantic ImportError", ["pydantic"]), entry("DECISION", "Retry policy for webhooks")] + filler()
    got = scores(smart(), "fixing an import_error", es)
    assert set(got["Fix pydantic ImportError"][1]["title"]) >= {"fix", "importerror", "import", "error"}
    assert "Retry policy for webhooks" in scores(smart(), "webhook retries policies", es)


def test_cjk_prompts_match_cjk_titles():
    es = [entry("RUNBOOK", "배포 롤백 절차", ["배포"]), entry("DECISION", "数据库迁移工具"),
          entry("PREFERENCE", "コードレビューの手順")] + filler()
    assert list(scores(smart(2.0), "배포를 롤백하는 방법", es)) == ["배포 롤백 절차"]
    assert list(scores(smart(2.0), "数据库迁移失败怎么办", es)) == ["数据库迁移工具"]
    assert list(scores(smart(2.0), "コードレビューはどうする", es)) == ["コードレビューの手順"]


def test_floor_abstains():
    es = [entry("DECISION", "kafka partitions", ["kafka"])] + filler()
    assert scores(smart(2.0), "kafka partitions", es)
    assert scores(smart(1000.0), "kafka partitions", es) == {}
    assert scores(smart(2.0), "write a haiku about autumn", es) == {}


def test_relative_floor_drops_weak_runners_up():
    es = [entry("DECISION", "kafka partitions rebalancing", ["kafka"]), entry("DECISION", "partitions of disks")] + filler()
    assert len(scores(smart(0.5), "kafka partitions rebalancing", es)) == 2
    assert list(scores(smart(0.5, min_relative=0.5), "kafka partitions rebalancing", es)) == ["kafka partitions rebalancing"]


def test_min_score_bad_value_warns_and_falls_back(capsys):
    assert smart(min_score="lots").min_score == matching.DEFAULT_MIN_SCORE
    assert "min_score" in capsys.readouterr().err


class FakeFuzz:
    ratio = None


class FakeProcess:
    """A stand-in for rapidfuzz.process with the same call shape (difflib ratio, 0-100)."""

    @staticmethod
    def extract(q, choices, scorer=None, score_cutoff=0, limit=3):
        out = [(c, 100 * difflib.SequenceMatcher(None, q, c).ratio(), i) for i, c in enumerate(choices)]
        return sorted([o for o in out if o[1] >= score_cutoff], key=lambda o: -o[1])[:limit]


def test_fuzzy_fallback_only_when_nothing_clears_the_floor(monkeypatch):
    monkeypatch.setattr(weights, "_fuzzy_modules", (FakeFuzz, FakeProcess))
    es = [entry("RUNBOOK", "kubernetes ingress timeout", ["kubernetes"]), entry("DECISION", "other stuff")] + filler()
    got = scores(smart(2.0), "kubrenetes ingres", es)  # "ingres" prefixes "ingress" but scores under the floor
    assert got["kubernetes ingress timeout"][1]["fuzzy"] == ["kubrenet~kubernet (tags)"]
    assert got["kubernetes ingress timeout"][1]["prefix"] == ["ingr~ingress (title)"]
    strict = scores(smart(2.0, fuzzy_cutoff=99), "kubrenetes ingres", es)
    assert strict == {}
    off = scores(smart(2.0, fuzzy=False), "kubrenetes ingres", es)
    assert off == {}
    # an exact match above the floor: no fuzzy step at all
    got = scores(smart(2.0), "kubernetes kubrenetes", es)
    assert got["kubernetes ingress timeout"][1]["fuzzy"] == []


def test_short_tokens_never_fuzzy(monkeypatch):
    monkeypatch.setattr(weights, "_fuzzy_modules", (FakeFuzz, FakeProcess))
    es = [entry("DECISION", "redis cache")] + filler()
    assert scores(smart(0.5), "rdis", es) == {}


def test_without_rapidfuzz_the_step_is_skipped_silently(monkeypatch, capsys):
    monkeypatch.setattr(weights, "_fuzzy_modules", (None, None))
    s = smart(2.0)
    assert not weights.fuzzy_available()
    es = [entry("RUNBOOK", "kubernetes ingress timeout", ["kubernetes"])] + filler()
    assert scores(s, "kubrenetes ingres", es) == {}
    assert capsys.readouterr().err == ""


# -- body tokens: derived at rebuild time, cached beside index.md -------------------------------

def test_body_text_covers_content_files_and_id():
    rec = record("runbook", "fix-celery", "Fix celery", related_files=["app/tasks.py"],
                 content={"trigger": "worker stuck", "steps": ["restart beat"], "verification": "ok"})
    text = body_text(rec)
    assert "worker stuck" in text and "restart beat" in text and "app/tasks.py" in text and "fix-celery" in text
    assert {"worker", "stuck", "restart", "beat", "app/tasks.py", "task"} <= set(derive_body_tokens(rec, STOP_WORDS))


def test_neighbouring_prompt_words_met_by_one_memory_add_a_phrase_bonus():
    es = [entry("DECISION", "radio notes", path="a"), entry("DECISION", "radio facts", path="b")] + filler()
    bodies = {"a": sorted(tokenize("data rate")), "b": sorted(tokenize("data loss"))}
    got = scores(smart(), "data rate or loss", es, bodies)
    # both meet two prompt words as rare as each other; "rate" is the neighbour of "data", "loss" is not
    a, b = got["radio notes"], got["radio facts"]
    assert a[0] > b[0] and a[1]["body"] == sorted(tokenize("data rate"))
    exact = [(0, "adapt", (1.0, "body", "exact", "adapt")), (1, "data", (2.0, "title", "exact", "data")),
             (2, "rate", (3.0, "tags", "prefix", "rates")), (3, "loss", (0.5, "body", "exact", "loss"))]
    # pairs (0, 1): min(1, 2); (1, 2): a prefix match is no phrase; (2, 3): no
    assert weights.adjacency(exact) == weights.ADJACENT * 1.0
    # only the best pair counts; two words written as one are no neighbours of anything
    exact += [(4, "rate", (4.0, "tags", "exact", "rate")), (5, "+losserate", (5.0, "tags", "exact", "losserate"))]
    assert weights.adjacency(exact) == weights.ADJACENT * 1.0  # (3, 4): min(0.5, 4), less than (0, 1)
    exact.append((5, "fee", (3.0, "body", "exact", "fee")))
    assert weights.adjacency(exact) == weights.ADJACENT * 3.0


def test_body_coverage_counts_prompt_words_met_in_the_content_beyond_the_first():
    def body(g, points):
        return (g, f"w{g}", (points, "body", "exact", f"w{g}"))
    title = (9, "t", (2.0, "title", "exact", "t"))
    assert weights.body_coverage([body(0, 1.3), title]) == 0.0  # one content word: as before
    assert weights.body_coverage([body(0, 1.3), body(0, 0.5), title]) == 0.0  # one word's two tokens
    assert abs(weights.body_coverage([body(0, 1.3), body(1, 0.7), title]) - 0.2 * 2.0) < 1e-9
    assert abs(weights.body_coverage([body(g, 1.0) for g in range(5)]) - 0.4 * 5.0) < 1e-9  # at most x 0.4


def test_three_rare_content_words_outrank_two_rare_title_words_in_both_paths(memory_root):
    """``body_coverage``: a memory whose content holds three of the prompt's rare words (3 x 1.3, x 1.4:
    5.46 points) comes before one whose title holds two others (4.0); without it the content gave 3.9."""
    content = {"status": "accepted", "context": "Ask Wren.", "decision": "Keep the marigold, the juniper and the saffron.",
               "rationale": ["r"]}
    write(memory_root, record("decision", "garden", "Planting plan", ["misc"], content=content))
    write(memory_root, record("decision", "herbs", "Basil and thyme beds", ["misc"]))
    for i in range(8):
        write(memory_root, record("decision", f"other{i}", f"Unrelated topic {i} zeppelin", ["misc"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    prompt = "marigold kettle juniper lantern basil mirror saffron pebble thyme"  # no two known words side by side
    plain = [h.entry["path"] for h in rank(str(memory_root), config, prompt, 5, index_in_memory(str(memory_root), config))]
    cached = [h.entry["path"] for h in rank(str(memory_root), config, prompt, 5)]
    assert plain == cached
    assert [p.rsplit("/", 1)[1] for p in plain] == ["garden.json", "herbs.json"]
