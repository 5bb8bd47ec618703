"""The triage measurement: the real scorer on the labelled fixture transcripts stays at or above the
figures measured when the cues were tuned (docs/triage.md)."""
from __future__ import annotations

import sys

import pytest

from helpers import REPO

sys.path.insert(0, str(REPO / "scripts"))
import triage_eval  # noqa: E402

# Measured on all 49 fixtures (docs/triage.md): precision, recall. A regression below these fails.
FLOORS = {
    "decision": (0.83, 0.55),
    "runbook": (1.0, 1.0),
    "constraint": (1.0, 0.85),
    "tech_debt": (1.0, 0.85),
    "preference": (1.0, 0.85),
    "session_summary": (1.0, 1.0),
}


@pytest.fixture(scope="module")
def report():
    return triage_eval.evaluate()


def test_fixture_set_is_complete(report):
    assert report["all"]["files"] >= 30
    assert report["tuning"]["files"] + report["held-out"]["files"] == report["all"]["files"]


@pytest.mark.parametrize("category", sorted(FLOORS))
def test_figures_stay_above_the_measured_floor(report, category):
    fig = report["all"]["categories"][category]
    precision, recall = FLOORS[category]
    assert fig["tp"] > 0
    assert fig["precision"] >= precision - 1e-9, fig
    assert fig["recall"] >= recall - 1e-9, fig


def test_negatives_stay_quiet(report):
    labels = {n: t for n, _, t in triage_eval.load_fixtures(triage_eval.DEFAULT_FIXTURES)}
    noisy = [e for e in report["all"]["errors"] if not labels[e["file"]] and e["extra"]]
    assert len(noisy) <= 1, noisy


def test_table_prints(capsys):
    assert triage_eval.main([]) == 0
    out = capsys.readouterr().out
    assert "| decision |" in out and "files: tuning" in out
