"""The machine cache: the same results as an index built in memory, kept current, ignored and rebuilt when broken."""
from __future__ import annotations

import json
import os
import random
import re
import time
from datetime import datetime, timezone

import pytest
from hypothesis import example, given, settings, strategies as st

from helpers import CONTENT, record, write
from team_memory.derived import cache as cachemod
from team_memory.base import fastjson
from team_memory.base.config import deep_merge, load_config
from team_memory.base.fsutil import store_lock
from team_memory.derived.index import index_path
from team_memory.derived.refresh import apply_changes, current_index, index_in_memory, rebuild_index
from team_memory.recall.retrieve import context_for_prompt
from team_memory.recall.retrieve import rank
from team_memory.recall.matching import get_strategy
from team_memory.text.tokens import words

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)
VOCAB = ("redis cache celery worker pydantic import error deploy rollback kafka topic schema migration "
         "postgres timeout retry token auth rate limit pytest fixture typing hints technical choices "
         "procedures errors session outcome shortcuts cleanup conventions "
         "lost lose bought buy broken break ran run").split()  # irregular forms (``textnorm.alternates``)
ODD = ["Ünïcødé tïtle", "キャッシュ設定", "a -> b #tags:x", "  spaced   out  ", "x" * 130, "<b>&amp;\"q\"</b>",
       "tab\there", "zero\u200bwidth", "ﬁx ligature", "İstanbul deploy"]
CATEGORIES = ["decision", "constraint", "preference", "runbook", "tech_debt", "session_summary"]


def random_store(memory_root, rng: random.Random, n: int):
    for i in range(n):
        cat = rng.choice(CATEGORIES)
        if rng.random() < 0.1:
            title = rng.choice(ODD)
        else:
            title = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 5)))
            title = title[0].upper() + title[1:]
        tags = [rng.choice(VOCAB + ["Mixed Case", "a,b", "ünï"]) for _ in range(rng.randint(0, 4))]
        status = rng.choice(["active"] * 8 + ["retired", "archived"])
        rec = record(cat, f"m{i:04d}-{rng.randrange(1000)}", title, tags,
                     days_ago=rng.choice([2, 10, 45, 400]), record_status=status)
        if rng.random() < 0.6:  # body words for smart (content values, related files)
            content = dict(CONTENT[cat])
            key = next(iter(content))
            content[key] = " ".join(rng.choice(VOCAB + ["RetryPolicy", "src/app.py", "キャッシュ"])
                                    for _ in range(rng.randint(1, 12)))
            rec["content"] = content
        write(memory_root, rec)
    if rng.random() < 0.5:  # duplicate titles force ties broken by index order
        for i in range(3):
            write(memory_root, record("decision", f"dup{i}", "Redis cache policy", ["redis"], days_ago=100))


def random_prompt(rng: random.Random) -> str:
    parts = [rng.choice(VOCAB + ["redi", "cach", "pyda", "migr", "unrelated", "zzzz", "kafak", "postgress",
                                 "retry_policy", "RetryPolicies", "キャッシュ設定", "deploying", "caches"])
             for _ in range(rng.randint(1, 8))]
    return "please " + " ".join(parts) + " now"


def explain(hits):
    return [(h.score, h.priority, h.entry, h.parts) for h in hits]


def assert_same_results(memory_root, config, prompts, limits=(1, 5, 20)):
    """The cache on disk ranks exactly as an index built from the JSON files in memory."""
    root = str(memory_root)
    built = index_in_memory(root, config)
    for prompt in prompts:
        for limit in limits:
            plain = rank(root, config, prompt, limit, built, now=NOW, strategy=get_strategy(config))
            cached = rank(root, config, prompt, limit, current_index(root, config), now=NOW, strategy=get_strategy(config))
            assert explain(cached) == explain(plain), (prompt, limit)


STRATEGY_CONFIGS = {
    "smart": {},  # the default
    "smart-low-floor": {"retrieval": {"min_score": 0.3, "min_relative": 0.1}},
    "smart-no-fuzzy": {"retrieval": {"fuzzy": False, "min_score": 1}},
    "smart-evidence": {"retrieval": {"min_score": 0.5, "min_evidence": 3.5, "min_runner_up": 6}},
    "smart-related": {"retrieval": {"min_score": 0.3, "min_related": 0.15, "max_related": 10}},
    "smart-related-no-floor": {"retrieval": {"min_score": 0, "min_evidence": 0, "min_runner_up": 0,
                                             "min_related": 0, "max_related": 3}},
    "smart-one-related": {"retrieval": {"min_score": 0.3, "min_runner_up": 1, "min_related": 0.1, "max_related": 1}},
    "smart-second-chance": {"retrieval": {"second_chance": 2}},
    "smart-second-chance-strict": {"retrieval": {"min_evidence": 4, "min_relative": 0.3, "second_chance": 3}},
    # only the other ways of answering (``recall.weights``) decide: two strong words, or a prompt explained
    "smart-corroborated": {"retrieval": {"min_evidence": 6, "min_corroborated": 0.8, "min_explained": 0}},
    "smart-explained": {"retrieval": {"min_evidence": 6, "min_corroborated": 0, "min_explained": 0.3}},
}


def write_config(memory_root, extra: dict) -> dict:
    path = memory_root / "memory-config.json"
    current = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps(deep_merge(current, extra)))
    return load_config(str(memory_root))


@pytest.mark.parametrize("name", sorted(STRATEGY_CONFIGS))
def test_cache_ranks_as_the_index_built_in_memory(memory_root, name):
    rng = random.Random(name)
    random_store(memory_root, rng, 60)
    config = deep_merge(load_config(str(memory_root)), STRATEGY_CONFIGS[name])
    rebuild_index(str(memory_root), config)
    assert_same_results(memory_root, config, [random_prompt(rng) for _ in range(15)])


def _hook(memory_root, prompt="how is the redis cache policy set up"):
    return context_for_prompt({"prompt": prompt, "cwd": str(memory_root.parent.parent)})


def _cache_file(memory_root):
    return memory_root / ".cache" / cachemod.CACHE_NAME


@pytest.mark.parametrize("damage", [b"", b"garbage", b"team-memory cache 7\n{\"count\": 5}\n{}\n",
                                    b"team-memory cache 7\n[1]\n", None])
def test_a_corrupt_cache_is_ignored_and_rebuilt(memory_root, damage):
    write(memory_root, record("decision", "redis-cache", "Redis cache policy", ["redis", "cache"]))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    good = _hook(memory_root)
    assert "Redis cache policy" in good
    path = _cache_file(memory_root)
    data = path.read_bytes()
    if damage is None:  # a forged token line: ids past the end, then a hostile entry
        data = data.replace(b"tredis\t", b"tredis\t99999999,", 1)
    else:
        data = damage
    path.write_bytes(data)
    assert _hook(memory_root) == good
    assert _hook(memory_root) == good  # and the cache was rewritten sound
    current_index(str(memory_root), load_config(str(memory_root)))


def test_a_forged_entry_path_is_never_followed(memory_root, tmp_path):
    write(memory_root, record("decision", "redis-cache", "Redis cache policy", ["redis", "cache"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(record("decision", "x", "Outside secret", ["redis"])))
    path = _cache_file(memory_root)
    path.write_bytes(path.read_bytes().replace(b".claude/memory/decisions/redis-cache.json",
                                               str(outside).encode()))
    index = cachemod.Index(path.read_bytes())
    hits = rank(str(memory_root), config, "redis cache policy", 5, index)
    assert all("Outside" not in h.entry["title"] for h in hits)


def test_a_changed_file_is_read_again(memory_root):
    path = write(memory_root, record("decision", "redis-cache", "Redis cache policy", ["redis", "cache"]))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    assert "Redis cache policy" in _hook(memory_root)
    st = os.stat(path)
    rec = json.loads(path.read_text())
    rec["title"] = "Kafka topic policy"
    rec["tags"] = ["kafka"]
    path.write_text(json.dumps(rec, indent=2))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime set back: the ctime still moves
    assert "Redis cache policy" not in (_hook(memory_root) or "")
    assert "Kafka topic policy" in _hook(memory_root, "what is our kafka topic policy")


def test_a_deleted_memory_is_gone(memory_root):
    path = write(memory_root, record("decision", "redis-cache", "Redis cache policy", ["redis", "cache"]))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    assert "Redis cache policy" in _hook(memory_root)
    path.unlink()
    assert _hook(memory_root) is None
    assert "redis-cache" not in open(index_path(str(memory_root))).read()


def test_a_retired_memory_is_never_shown(memory_root):
    path = write(memory_root, record("decision", "redis-cache", "Redis cache policy", ["redis", "cache"]))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    rec = json.loads(path.read_text())
    rec["record_status"] = "retired"
    path.write_text(json.dumps(rec, indent=2))
    assert _hook(memory_root) is None
    assert current_index(str(memory_root), load_config(str(memory_root))).n == 0


def test_a_held_lock_never_blocks_the_hook(memory_root):
    write(memory_root, record("decision", "redis-cache", "Redis cache policy", ["redis", "cache"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    write(memory_root, record("decision", "kafka-topic", "Kafka topic policy", ["kafka"]))
    with store_lock(str(memory_root)):  # a writer at work: the hook builds in memory and goes on
        started = time.monotonic()
        assert "Kafka topic policy" in _hook(memory_root, "what is our kafka topic policy")
        assert time.monotonic() - started < 5
    assert "Kafka topic policy" in _hook(memory_root, "what is our kafka topic policy")


def test_unchanged_files_are_not_read_again(memory_root, monkeypatch):
    for i in range(5):
        write(memory_root, record("decision", f"m{i}", f"Redis cache policy {i}", ["redis"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    time.sleep(0.05)  # past the file clock's tick: the stamps are settled
    rebuild_index(str(memory_root), config, full=True)
    time.sleep(0.05)
    write(memory_root, record("decision", "new", "Kafka topic", ["kafka"]))
    from team_memory.derived import index as reader
    seen = []
    real = reader.read_item
    monkeypatch.setattr(reader, "read_item", lambda *args: seen.append(args[-1]) or real(*args))
    with store_lock(str(memory_root)):
        apply_changes(str(memory_root), config)
    assert seen == ["new.json"]


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW on this platform")
def test_the_currency_check_never_reads_a_folder_through_a_link(tmp_path):
    """A file table naming files in a category folder that is a link (a forged cache) reads nothing there."""
    from team_memory.derived import refresh
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text("{}")
    (tmp_path / "decisions").symlink_to(outside, target_is_directory=True)
    assert refresh._ctimes(str(outside), ["x.json"]) is not None  # a real folder is read
    assert refresh._ctimes(str(tmp_path / "decisions"), ["x.json"]) is None
