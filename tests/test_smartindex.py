"""``smart`` on the cache's bit planes: the bound never misses a hit, whatever keys are dense."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from helpers import record, write
from team_memory.derived import cache as cachemod
from team_memory.recall import bitplanes, smartindex
from team_memory.base.fsutil import store_lock
from team_memory.derived.refresh import apply_changes, rebuild_index
from team_memory.text.fuzzycheck import fuzzy_may_match, fuzzy_may_match_groups, spelled_forms
from test_cache import STRATEGY_CONFIGS, assert_same_results, random_prompt, random_store, write_config

DENSITIES = {"all-dense": (1, 10 ** 9), "mixed": (3, 10 ** 9), "none-dense": (10 ** 9, 1)}


@pytest.fixture(params=sorted(DENSITIES))
def density(request, monkeypatch):
    floor, ratio = DENSITIES[request.param]
    monkeypatch.setattr(cachemod, "DENSE_FLOOR", floor)
    monkeypatch.setattr(cachemod, "DENSE_RATIO", ratio)
    return request.param


@pytest.mark.parametrize("which", ["smart", "smart-low-floor", "smart-no-fuzzy", "smart-evidence"])
@pytest.mark.parametrize("seed", range(4))
def test_bitmaps_or_postings_give_the_plain_results(memory_root, density, seed, which):
    rng = random.Random(100 + seed)
    random_store(memory_root, rng, rng.choice([40, 150]))
    config = write_config(memory_root, STRATEGY_CONFIGS[which])
    rebuild_index(str(memory_root), config)
    with cachemod.Cache(cachemod.cache_path(str(memory_root))) as cache:
        numbers = cache.bitmaps_between(0, cache.n_keys())
        dense = sum(1 for x in numbers if x != cachemod.NO_BITS)
    assert (dense == 0) == (density == "none-dense")
    if density == "all-dense":
        assert dense == len(numbers)
    assert_same_results(memory_root, config, [random_prompt(rng) for _ in range(20)], limits=(20,))


def test_patched_bitmaps_lose_removed_entries_and_gain_new_ones(memory_root, density):
    """Dead ids leave a dense key's bitmap, patched-in ids join it: still the plain results."""
    rng = random.Random(9)
    random_store(memory_root, rng, 80)
    config = write_config(memory_root, STRATEGY_CONFIGS["smart-low-floor"])
    rebuild_index(str(memory_root), config)
    folder = memory_root / "decisions"
    for step in range(8):
        files = sorted(folder.glob("*.json"))
        target = files[step % len(files)]
        if step % 3 == 0:
            changed = write(memory_root, record("decision", f"n{step}", f"Redis cache worker {step}", ["redis", "cache"]))
        elif step % 3 == 1:
            rec = json.loads(target.read_text())
            rec["record_status"] = "retired"
            target.write_text(json.dumps(rec))
            changed = target
        else:
            rec = json.loads(target.read_text())
            rec["title"] = f"Celery retry timeout {step}"
            target.write_text(json.dumps(rec))
            changed = target
        with store_lock(str(memory_root)):
            apply_changes(str(memory_root), config, [str(changed)])
        with cachemod.Cache(cachemod.cache_path(str(memory_root))) as cache:
            assert cache.xpost and cache.n_ids > len(cache.order) - 1
        assert_same_results(memory_root, config, ["redis cache worker", "celery retry timeout", "redi cach",
                                                  random_prompt(rng)], limits=(20,))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 300), st.lists(st.integers(0, 199), max_size=60)), max_size=12),
       st.integers(1, 3000))
def test_bit_planes_add_and_compare_like_integers(adds, threshold):
    planes = bitplanes._Planes()
    totals = [0] * 200
    for units, ids in adds:
        planes.add(cachemod.bits_of(set(ids), 25), units)
        for i in set(ids):
            totals[i] += units
    expected = [i for i, total in enumerate(totals) if total >= threshold]
    assert cachemod.ids_of_bits(planes.at_least(threshold)) == expected


@given(st.sets(st.integers(0, 5000), max_size=200))
def test_bitmaps_round_trip(ids):
    assert cachemod.ids_of_bits(cachemod.bits_of(ids, 626)) == sorted(ids)


def test_rounding_up_keeps_the_bound_above_the_points():
    for points in (0.0, 0.01, 0.1 * 3, 2.49, 1 / 3, 0.07 * 100 / 100, 3.0, 2.9999999999):
        assert bitplanes._units(points) * bitplanes.QUANTUM > points
        assert bitplanes._ladder(bitplanes._units(points)) >= bitplanes._units(points)


def _fuzzy_may_match_reference(prompt_tokens, vocabulary, cutoff):
    """The per-pair definition the grouped check must agree with: ``fuzz.ratio`` reaches the cutoff."""
    c = (cutoff - 1e-6) / 200.0
    for q in prompt_tokens:
        for t in vocabulary:
            need = c * (len(q) + len(t))
            if _lcs(q, t) >= need:
                return True
    return False


def _lcs(a: str, b: str) -> int:
    """The longest common subsequence, by the textbook table (``fuzzycheck.lcs_length`` keeps one row)."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            table[i][j] = table[i - 1][j - 1] + 1 if x == y else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


def test_the_precheck_says_what_rapidfuzz_finds():
    """With rapidfuzz installed: the precheck is true exactly when ``process.extract`` finds a token
    (``lisbon`` shares letters with many written forms and reaches 85 with none)."""
    rapidfuzz = pytest.importorskip("rapidfuzz", reason="compares with rapidfuzz itself: pip install -e '.[dev]'")
    from rapidfuzz import fuzz, process
    vocabulary = sorted(set(spelled_forms(["validat", "postgr", "kubernet", "pydant", "lisb", "bonsai", "sobl", "redis"])))
    for word in ("lisbon", "valdat", "validaiton", "postgress", "kuberent", "pydnatic", "weather", "obnisl", "redsi"):
        for cutoff in (70, 85, 95):
            found = bool(process.extract(word, vocabulary, scorer=fuzz.ratio, score_cutoff=cutoff, limit=1))
            assert fuzzy_may_match([word], vocabulary, cutoff) == found, (word, cutoff)
    assert rapidfuzz is not None


_WORD = st.text(alphabet="abcdeéx日本", min_size=1, max_size=9)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=4), st.lists(_WORD, max_size=30), st.sampled_from([50, 70, 85, 100]))
def test_grouped_fuzzy_precheck_agrees_with_the_pairwise_definition(prompt_tokens, vocabulary, cutoff):
    expected = _fuzzy_may_match_reference(prompt_tokens, vocabulary, cutoff)
    assert fuzzy_may_match(prompt_tokens, vocabulary, cutoff) == expected
    by_len: dict = {}
    for t in vocabulary:
        by_len.setdefault(len(t), []).append(t)
    assert fuzzy_may_match_groups(prompt_tokens, by_len, cutoff) == expected


def test_the_related_step_keeps_what_the_fuzzy_step_scored():
    """An entry left unscored by the clear step but scored by the fuzzy step keeps its fuzzy matches."""
    from team_memory.recall.matching import Smart
    from team_memory.recall.smartindex import _related
    exact = [(0, "ingress", (5.0, "title", "exact", "ingress"))]
    with_fuzzy = exact + [(1, "kubrenet", (2.1, "tags", "fuzzy", "kubernet"))]
    found, totals = {7: with_fuzzy}, {7: 7.1, 3: 10.0}
    _related(Smart({}), [], None, 10.0, 0.0, [(-5.0, 7, exact)], [7], found, totals)
    assert found[7] is with_fuzzy and totals[7] == 7.1
