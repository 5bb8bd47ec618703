"""The machine cache: same results as the plain path, kept fresh, replaced when broken."""
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
from team_memory.derived import freshness, upkeep
from team_memory.base.config import deep_merge, load_config
from team_memory.base.fsutil import store_lock
from team_memory.derived.index import build_entries, index_path, read_index
from team_memory.derived.refresh import apply_changes, rebuild_index
from team_memory.recall.retrieve import context_for_prompt
from team_memory.recall.rank import rank
from team_memory.recall.matching import get_strategy
from team_memory.text.tokens import words

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)
VOCAB = ("redis cache celery worker pydantic import error deploy rollback kafka topic schema migration "
         "postgres timeout retry token auth rate limit pytest fixture typing hints technical choices "
         "procedures errors session outcome shortcuts cleanup conventions "
         "lost lose bought buy broken break ran run").split()  # irregular forms (``text.wordforms``)
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
    """The cached path ranks exactly as the plain one, which reads bodies from the JSON files themselves."""
    root = str(memory_root)
    entries = read_index(root)
    strategy = get_strategy(config)
    plain_strategy = get_strategy(config)
    if hasattr(plain_strategy, "prepare"):
        bodies: dict = {}
        build_entries(root, config, bodies)
        plain_strategy.prepare(root, entries, {p: set(t) for p, t in bodies.items()})
    for prompt in prompts:
        for limit in limits:
            plain = rank(root, config, prompt, limit, entries=entries, now=NOW, strategy=plain_strategy)
            with cachemod.Cache(cachemod.cache_path(root)) as cache:
                cached = rank(root, config, prompt, limit, now=NOW, strategy=strategy, cache=cache)
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
    # only the other ways of answering (``abstention``) decide: two strong words, or a prompt explained
    "smart-corroborated": {"retrieval": {"min_evidence": 6, "min_corroborated": 0.8, "min_explained": 0}},
    "smart-explained": {"retrieval": {"min_evidence": 6, "min_corroborated": 0, "min_explained": 0.3}},
}


def write_config(memory_root, extra: dict) -> dict:
    path = memory_root / "memory-config.json"
    current = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps(deep_merge(current, extra)))
    return load_config(str(memory_root))


@pytest.mark.parametrize("which", sorted(STRATEGY_CONFIGS))
@pytest.mark.parametrize("seed", [s if s < 3 else pytest.param(s, marks=pytest.mark.slow)  # seeds 3-7 (~7 s): CI
                                  for s in range(8)])
def test_cached_and_uncached_rankings_are_identical(memory_root, seed, which):
    rng = random.Random(seed)
    random_store(memory_root, rng, rng.choice([5, 40, 150]))
    if seed % 2:  # short descriptions that prompts hit: every entry of a category scores its baseline
        (memory_root / "memory-config.json").write_text(json.dumps({"categories": {
            "decision": {"description": "redis cache choices"}, "runbook": {"description": "errors procedures"}}}))
    config = write_config(memory_root, STRATEGY_CONFIGS[which])
    rebuild_index(str(memory_root), config)
    assert_same_results(memory_root, config, [random_prompt(rng) for _ in range(25)])


@pytest.mark.parametrize("which", ["smart", "smart-related", "smart-one-related"])
@pytest.mark.parametrize("seed", range(4))
def test_identical_with_the_fuzzy_step(memory_root, monkeypatch, seed, which):
    """Typos run the fuzzy step (a difflib stand-in for rapidfuzz): the related step keeps its matches."""
    from test_matching import FakeFuzz, FakeProcess
    from team_memory.recall import weights
    monkeypatch.setattr(weights, "_fuzzy_modules", (FakeFuzz, FakeProcess))
    rng = random.Random(seed)
    random_store(memory_root, rng, rng.choice([40, 150]))
    config = write_config(memory_root, STRATEGY_CONFIGS[which])
    rebuild_index(str(memory_root), config)
    prompts = [random_prompt(rng) for _ in range(15)] + ["kafak postgress timout", "celry workr cache retry"]
    assert_same_results(memory_root, config, prompts, limits=(5,))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), prompt=st.text(min_size=10, max_size=60),
       which=st.sampled_from(sorted(STRATEGY_CONFIGS)))
@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_identical_for_arbitrary_prompts(tmp_path_factory, seed, prompt, which):
    memory_root = tmp_path_factory.mktemp("p") / ".claude" / "memory"
    memory_root.mkdir(parents=True)
    random_store(memory_root, random.Random(seed), 30)
    config = write_config(memory_root, STRATEGY_CONFIGS[which])
    rebuild_index(str(memory_root), config)
    assert_same_results(memory_root, config, [prompt, prompt + " redis cache"], limits=(5,))


def _index_text(memory_root):
    return (memory_root / "index.md").read_text(encoding="utf-8")


def _full_rebuild_text(memory_root, config):
    rebuild_index(str(memory_root), config, full=True)
    return _index_text(memory_root)


@pytest.mark.parametrize("which", ["smart", "smart-low-floor"])
def test_incremental_changes_match_a_full_rebuild(memory_root, which):
    rng = random.Random(3)
    random_store(memory_root, rng, 60)
    config = write_config(memory_root, STRATEGY_CONFIGS[which])
    rebuild_index(str(memory_root), config)
    folder = memory_root / "decisions"
    for step in range(15):
        changed = []
        action = step % 5
        files = sorted(folder.glob("*.json"))
        if action == 0:  # add
            changed.append(write(memory_root, record("decision", f"new{step}", f"Kafka topic {step}", ["kafka"])))
        elif action == 1:  # edit (atomic replace, as writers do)
            rec = json.loads(files[step % len(files)].read_text())
            rec["title"] = f"Edited title {step} redis"
            tmp = folder / ".tmp.json.tmp"
            tmp.write_text(json.dumps(rec))
            os.replace(tmp, files[step % len(files)])
            changed.append(files[step % len(files)])
        elif action == 2:  # delete
            files[step % len(files)].unlink()
            changed.append(files[step % len(files)])
        elif action == 4:  # the body alone changes: smart's features change, the index line does not
            rec = json.loads(files[step % len(files)].read_text())
            rec["content"] = dict(rec["content"], context=f"zookeeper quorum {step}")
            files[step % len(files)].write_text(json.dumps(rec))
            changed.append(files[step % len(files)])
        else:  # retire
            rec = json.loads(files[step % len(files)].read_text())
            rec["record_status"] = "retired"
            files[step % len(files)].write_text(json.dumps(rec))
            changed.append(files[step % len(files)])
        with store_lock(str(memory_root)):
            apply_changes(str(memory_root), config, [str(p) for p in changed])
        patched = _index_text(memory_root)
        assert_same_results(memory_root, config, ["kafka topic redis", "edited title redis cache",
                                                  f"zookeeper quorum {step} setup", "kafak topik schemma"], limits=(20,))
        assert patched == _full_rebuild_text(memory_root, config), step


def _backdate(memory_root, seconds=60):
    past = time.time() - seconds
    for folder in memory_root.iterdir():
        if folder.is_dir() and folder.name != ".cache":
            os.utime(folder, (past, past))
    time.sleep(0.05)  # file ctimes cannot be set back: let the files age past the racy window


@pytest.mark.parametrize("which", ["smart", "smart-low-floor"])
@pytest.mark.parametrize("change", ["add", "edit", "delete", "retire", "checkout"])
def test_hook_sees_changes_made_behind_its_back(project, memory_root, change, which):
    keep = write(memory_root, record("decision", "keep", "Kafka topic naming", ["kafka"], days_ago=300))
    target = write(memory_root, record("decision", "target", "Kafka retention policy", ["kafka"], days_ago=300))
    config = write_config(memory_root, STRATEGY_CONFIGS[which])
    _backdate(memory_root)
    rebuild_index(str(memory_root), config)
    with cachemod.Cache(cachemod.cache_path(str(memory_root))) as cache:
        assert freshness.stale_folders(cache, {"decision": "decisions"}) == []  # trusted: backdated before the build
    payload = {"prompt": "kafka retention questions", "cwd": str(project)}
    assert "Kafka retention policy" in context_for_prompt(payload)
    if change == "add":
        write(memory_root, record("decision", "added", "Kafka consumer lag runbook", ["kafka"], days_ago=300))
        expect, gone = "Kafka consumer lag runbook", None
        payload["prompt"] = "kafka consumer lag questions"
    elif change == "edit":
        rec = json.loads(target.read_text())
        rec["title"] = "Kafka compaction policy"
        tmp = target.with_name(".t.json.tmp")
        tmp.write_text(json.dumps(rec))
        os.replace(tmp, target)
        expect, gone = "Kafka compaction policy", "Kafka retention policy"
        payload["prompt"] = "kafka compaction or retention policy"
    elif change == "delete":
        target.unlink()
        expect, gone = "Kafka topic naming", "Kafka retention policy"
        payload["prompt"] = "kafka topic naming and retention"
    elif change == "checkout":  # as git does: unlink, then create (the inode number often comes back)
        rec = json.loads(target.read_text())
        rec["title"] = "Kafka retention limits"
        target.unlink()
        target.write_text(json.dumps(rec))
        expect, gone = "Kafka retention limits", "Kafka retention policy"
        payload["prompt"] = "kafka retention limits or policy"
    else:
        rec = json.loads(target.read_text())
        rec["record_status"] = "retired"
        tmp = target.with_name(".t.json.tmp")
        tmp.write_text(json.dumps(rec))
        os.replace(tmp, target)
        expect, gone = "Kafka topic naming", "Kafka retention policy"
        payload["prompt"] = "kafka topic naming and retention"
    out = context_for_prompt(payload)
    assert expect in out
    if gone:
        assert gone not in out
    assert keep.exists()
    index = _index_text(memory_root)
    assert index == _full_rebuild_text(memory_root, config)


def test_in_place_edit_is_caught_by_rebuild(memory_root):
    path = write(memory_root, record("decision", "a", "Alpha redis", ["redis"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    rec = json.loads(path.read_text())
    rec["title"] = "Beta redis"
    path.write_text(json.dumps(rec))  # same inode, new size and time
    rebuild_index(str(memory_root), config, full=False)
    assert [e["title"] for e in read_index(str(memory_root))] == ["Beta redis"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "format", "byteorder", "strategy", "index"])
def test_corrupt_or_foreign_cache_is_ignored_and_replaced(project, memory_root, damage):
    write(memory_root, record("decision", "a", "Use redis for sessions", ["redis"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    path = cachemod.cache_path(str(memory_root))
    data = open(path, "rb").read()
    if damage == "garbage":
        data = os.urandom(len(data))
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    elif damage in ("format", "byteorder", "strategy"):
        head_len = int(data[len(cachemod.MAGIC):data.index(b"\n", len(cachemod.MAGIC))])
        start = data.index(b"\n", len(cachemod.MAGIC)) + 1
        meta = json.loads(data[start:start + head_len])
        meta.update({"format": {"format": 99}, "byteorder": {"byteorder": "middle"},
                     "strategy": {"strategy": "other"}}[damage])
        head = json.dumps(meta).encode()
        data = cachemod.MAGIC + str(len(head)).encode() + b"\n" + head + data[start + head_len:]
    else:  # index.md edited by hand: the cache no longer describes it
        (memory_root / "index.md").write_text("# Memory Index\n\n")
    if damage != "index":
        open(path, "wb").write(data)
    out = context_for_prompt({"prompt": "which redis sessions store", "cwd": str(project)})
    assert "Use redis for sessions" in out
    with cachemod.Cache(path) as fresh:  # replaced by a valid one
        assert fresh.meta["count"] == 1
    assert "Use redis for sessions" in _index_text(memory_root)


def test_cache_is_replaced_atomically(project, memory_root, monkeypatch):
    write(memory_root, record("decision", "a", "Use redis", ["redis"]))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    path = cachemod.cache_path(str(memory_root))
    before = open(path, "rb").read()
    write(memory_root, record("decision", "b", "Use kafka", ["kafka"]))

    def boom(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(cachemod.os, "replace", boom)
    with pytest.raises(OSError):
        rebuild_index(str(memory_root), config, full=True)
    monkeypatch.undo()
    assert open(path, "rb").read() == before  # the old cache, whole
    assert not [n for n in os.listdir(os.path.dirname(path)) if n.endswith(".tmp")]
    with cachemod.Cache(path) as cache:  # still describes the index.md beside it; the new file makes it stale
        assert upkeep.cache_compatible(cache, config, get_strategy(config))
        assert freshness.stale_folders(cache, {"decision": "decisions"}) == ["decisions"]


def test_cache_folder_ignores_itself(memory_root):
    write(memory_root, record("decision", "a", "Use redis", ["redis"]))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    assert (memory_root / ".cache" / ".gitignore").read_text().splitlines()[-1] == "*"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_tokenizer_splits_like_the_seed_regex(text):
    assert words(text) == re.findall(r"[a-z0-9]+", text.lower())


@pytest.mark.slow  # 300 generated documents (~1.2 s): run by .ci/run and TEAM_MEMORY_SLOW=1
@settings(max_examples=300, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=20))
def test_fastjson_reads_what_json_writes(value):
    text = json.dumps(value)
    assert fastjson.loads(text) == json.loads(text)
    assert fastjson.loads(" \n" + text + "\t") == value


_JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                            max_leaves=12)


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
@settings(max_examples=300, deadline=None)
@given(_JSON_VALUES)
def test_fastjson_small_encoder_writes_what_json_reads_back(value):
    """The encoder the hook uses without ``json`` loaded: floats included, never importing ``json`` for them."""
    text = "".join(fastjson.encode(value))
    assert text.isascii()
    assert json.loads(text) == value
    if isinstance(value, float):
        assert text == json.dumps(value)


def test_fastjson_small_encoder_spells_special_floats_as_json_does():
    for value in (float("nan"), float("inf"), float("-inf"), -0.0, 1e300, 0.1):
        assert "".join(fastjson.encode([value])) == json.dumps([value], separators=(",", ":"))


@pytest.mark.parametrize("bad", ["", "   ", "[1", "[1] x", "{'a': 1}", "\ufeff[1]", "[1,]"])
def test_fastjson_rejects_what_json_rejects(bad):
    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        fastjson.loads(bad)


def test_fastjson_turns_deep_nesting_into_a_value_error():
    with pytest.raises(ValueError):
        fastjson.loads("[" * 100_000)


def test_hook_after_a_failed_write_still_sees_everything(project, memory_root, monkeypatch):
    test_cache_is_replaced_atomically(project, memory_root, monkeypatch)
    out = context_for_prompt({"prompt": "which kafka setup do we use", "cwd": str(project)})
    assert "Use kafka" in out


def test_hook_fast_path_imports_little(project, memory_root):
    """With a fresh cache the hook, started without site, needs neither re, json, pathlib nor tempfile."""
    import subprocess
    import sys
    from helpers import REPO
    write(memory_root, record("decision", "a", "Use redis for sessions", ["redis"]))
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    _backdate(memory_root)
    rebuild_index(str(memory_root), load_config(str(memory_root)))
    code = ("import sys; sys.path.insert(0, %r);"
            "from team_memory.recall.retrieve import context_for_prompt;"
            "out = context_for_prompt({'prompt': 'which redis sessions store', 'cwd': %r});"
            "print(out is not None and 'Use redis' in out, sorted(set(sys.modules) & {'re', 'json', 'pathlib', 'tempfile'}))"
            ) % (str(REPO / "scripts"), str(project))
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.stdout.strip() == "True []", proc.stdout + proc.stderr


def test_optional_extras_load_site_lazily():
    """Under ``-S`` an optional extra from site-packages is still found, once it is asked for."""
    import subprocess
    import sys
    from helpers import REPO
    code = ("import sys; sys.path.insert(0, %r); from team_memory.base.optional import import_optional;"
            "print('site' in sys.modules, import_optional('hypothesis') is not None, 'site' in sys.modules,"
            " import_optional('no_such_module_here') is None)") % str(REPO / "scripts")
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "True", "True", "True"], proc.stdout + proc.stderr


_LINE_PARTS = st.sampled_from(["a", "B", " ", "-", ">", "#", "tags", ":", ",", "[", "]", ".json", "/", "\t", "é",
                               "\u00a0", "\u2028", "->", " -> ", "#tags:", "\x85", "İ", "DECISION"])


# What ``index.md`` lines were parsed with (quadratic on a run of spaces): the reference the parsers must equal.
INDEX_EXPRESSION = r"^-\s+\[([A-Z_]+)\]\s+(.+?)\s+->\s+(\S+)(?:\s+#tags:(.+))?$"


@settings(max_examples=500, deadline=None)
@example("DECISION", ["\t", " -> "], [], ["a"])  # a title of spaces only where nothing else fits (found by CI's seed)
@given(st.sampled_from(["DECISION", "RUNBOOK", "NOPE"]), st.lists(_LINE_PARTS, max_size=6),
       st.lists(_LINE_PARTS, max_size=4), st.none() | st.lists(_LINE_PARTS, max_size=4))
@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_index_line_parser_fast_path_agrees_with_the_regex(category, title, path, tags):
    """Both plain-string parsers (the writer's lines, then any other) say what the expression said."""
    from team_memory.derived import index
    line = f"- [{category}] {''.join(title)} -> {''.join(path)}" + ("" if tags is None else " #tags:" + "".join(tags))
    m = re.match(INDEX_EXPRESSION, line.rstrip("\r\n"))
    expected = None
    if m and index.category_from_display(m.group(1)) is not None:
        t = m.group(4)
        expected = {"category": m.group(1), "title": m.group(2).strip(), "path": m.group(3),
                    "tags": [x.strip().lower() for x in t.split(",") if x.strip()] if t else []}
    assert index.parse_index_line(line) == expected


def test_fastjson_rejects_bad_json_as_value_error_without_json_loaded():
    """Started without ``json`` imported, bad JSON is still a ValueError. (Whether the C scanner's
    error path then imports ``json.decoder`` depends on the interpreter: 3.9 and 3.12+ do, 3.10
    and 3.11 do not; only the error path, so the hooks' start-up is the same.)"""
    import subprocess
    import sys
    from helpers import REPO
    code = ("import sys; sys.path.insert(0, %r); from team_memory.base import fastjson\n"
            "out = []\n"
            "for bad in ('{broken', '[1,]', '{\"a\" 1}', '\"abc', '[1'):\n"
            "    try:\n        fastjson.loads(bad)\n    except ValueError:\n        out.append('ok')\n"
            "print(' '.join(out), 'json' in sys.modules)") % str(REPO / "scripts")
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=30)
    loaded = "True" if sys.version_info[:2] == (3, 9) or sys.version_info >= (3, 12) else "False"
    assert proc.stdout.strip() == "ok ok ok ok ok " + loaded, proc.stdout + proc.stderr


def test_a_folder_stamp_is_trusted_two_file_clock_ticks_after_the_change():
    window = cachemod.fine_window()
    assert 2_000_000 <= window <= cachemod.RACY_FINE_NS
    changed = 1_700_000_000_123_456_789
    assert cachemod.racy(changed, changed + window - 1)
    assert not cachemod.racy(changed, changed + window)
    whole = 1_700_000_000_000_000_000  # a file system with whole-second times: two seconds
    assert cachemod.racy(whole, whole + cachemod.RACY_NS - 1) and not cachemod.racy(whole, whole + cachemod.RACY_NS)
    assert not cachemod.racy(None, changed)
