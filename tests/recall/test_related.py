"""Progressive disclosure: clear hits first, then a few "possibly related" memories by title only.

A memory under the clear bar (``retrieval.min_relative`` x the best, ``min_runner_up``) but at
``retrieval.min_related`` x the best and ``min_score`` is shown after every clear hit, under
one ``RELATED_HEAD`` line, at most ``retrieval.max_related`` of them; ``eval`` counts them in
recall and precision, and reports the clear hits' own precision beside.
"""
from __future__ import annotations

import json

from helpers import record, write
from team_memory.base.config import load_config
from team_memory.cli.main import main
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.block import RELATED_HEAD, format_block
from team_memory.recall.evaluate import metrics
from team_memory.recall.retrieve import rank

PROMPT = "kafka lag with consumer alerting thresholds"


def _store(memory_root, recent_runner_ups: bool = False) -> None:
    for i in range(30):
        write(memory_root, record("decision", f"filler-{i}", f"Filler note {i} about billing", [f"billing{i % 5}"]))
    write(memory_root, record("runbook", "lag", "Kafka lag", ["kafka"]))
    for n, (tag, title) in enumerate([("consumer", "Consumer groups rebalance on deploy"),
                                      ("thresholds", "Thresholds for disk usage pages"),
                                      ("alerting", "Alerting goes to the on-call channel")]):
        write(memory_root, record("decision", f"runner-{n}", title, [tag], days_ago=2 if recent_runner_ups else 100))


def _ranked(memory_root, **retrieval):
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": retrieval}))
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    return config, rank(str(memory_root), config, PROMPT, 5)


def _ids(hits):
    return [h.entry["path"].rsplit("/", 1)[1][:-5] for h in hits]


def test_runner_ups_under_the_clear_bar_come_after_it_marked_related(memory_root):
    _store(memory_root)
    config, hits = _ranked(memory_root, max_related=5)
    assert _ids(hits)[0] == "lag" and hits[0].parts.get("related") is None
    related = [h for h in hits if h.parts.get("related")]
    assert related and set(_ids(related)) <= {"runner-0", "runner-1", "runner-2"}
    assert all(h.score < 0.6 * hits[0].score for h in related)  # under min_relative: not clear hits
    # switched off (min_related at min_relative), the same prompt shows the clear hit alone
    _, alone = _ranked(memory_root, min_related=0.6)
    assert _ids(alone) == ["lag"]


def test_related_ones_stay_after_the_clear_hits_whatever_their_recency(memory_root):
    _store(memory_root, recent_runner_ups=True)
    _, hits = _ranked(memory_root, max_related=5, min_relative=0.3, min_runner_up=0)
    clear = [h for h in hits if not h.parts.get("related")]
    assert len(clear) >= 2  # the recent runner-ups that pass min_relative 0.3 are clear hits
    _, hits = _ranked(memory_root, max_related=5)
    flags = [bool(h.parts.get("related")) for h in hits]
    assert flags == sorted(flags) and flags[0] is False and flags[-1] is True
    assert any(h.parts["recency"] for h in hits if h.parts.get("related"))


def test_max_related_caps_the_titles_list(memory_root):
    _store(memory_root)
    _, hits = _ranked(memory_root, max_related=5)
    assert sum(1 for h in hits if h.parts.get("related")) == 3
    _, hits = _ranked(memory_root, max_related=1)
    assert sum(1 for h in hits if h.parts.get("related")) == 1 and _ids(hits)[0] == "lag"
    _, hits = _ranked(memory_root, max_related=0)
    assert _ids(hits) == ["lag"]


def test_block_heads_the_related_titles_and_keeps_the_clear_winners_content(memory_root):
    _store(memory_root)
    config, hits = _ranked(memory_root, max_related=2)
    from team_memory.records.hookio import DATA_NOTE
    block = format_block(hits, config, 4000, 240, note=DATA_NOTE)
    lines = block.splitlines()
    head = lines.index(RELATED_HEAD)
    assert "Kafka lag" in "\n".join(lines[:head])
    assert lines[head - 1].startswith("  ")  # the clear winner's excerpt, before the titles list
    assert sum(1 for line in lines[head + 1:] if line.startswith("- [")) == 2
    assert block.count(RELATED_HEAD) == 1


def test_explain_names_max_related_for_a_related_memory_left_out(project, memory_root, capsys):
    _store(memory_root)
    _ranked(memory_root, max_related=1)
    assert main(["search", PROMPT, "--root", str(project), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "retrieval.max_related" in out.split("near misses")[1]


def test_eval_counts_related_titles_and_reports_the_clear_hits_precision():
    results = [{"expected": ["a"], "got": ["a", "b", "c"], "related": ["b", "c"]},
               {"expected": ["d"], "got": ["x", "d"], "related": ["d"]}]
    m = metrics(results)
    assert m["recall@5"] == 1.0 and m["hit@1"] == 0.5
    assert m["precision"] == 2 / 5 and m["clear_precision"] == 1 / 2


def test_the_real_hook_shows_the_clear_hit_then_the_related_titles(project, memory_root):
    from helpers import run_prompt_hook
    _store(memory_root)
    proc = run_prompt_hook(project, PROMPT)
    out = proc.stdout.decode()
    assert proc.returncode == 0 and RELATED_HEAD in out
    before, after = out.split(RELATED_HEAD)
    assert "Kafka lag" in before and "Kafka lag" not in after
    assert sum(1 for line in after.splitlines() if line.startswith("- [")) == 3  # retrieval.max_related
