"""The write guard on a labelled corpus of shell lines (``fixtures/guard_corpus.jsonl``).

Each line is labelled ``write: true`` when it can change ``.claude/memory/`` (so the
guard must deny it) and ``false`` when it provably stays outside or only reads (so it
must pass). The in-process decision runs on every line; the real PreToolUse hook runs
in a subprocess, as Claude Code runs it, on every line (a few at a time) and must agree.
Both sides must be at least 97% right; misclassified lines are listed in the failure.
Run ``python3 -m pytest -q tests/guards/test_guard_corpus.py -s`` to print the figures.
"""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from helpers import run_hook
from team_memory.guards.guards import guard_tool_use

CORPUS = [json.loads(line) for line in (Path(__file__).resolve().parents[1] / "fixtures" / "guard_corpus.jsonl").open()]
TARGET = 0.97


@pytest.fixture
def corpus_project(project, memory_root):
    """A project as the corpus expects it: a store with a memory, and two patches (one into the store)."""
    (memory_root / "decisions").mkdir()
    (memory_root / "decisions" / "x.json").write_text("{}\n")
    (project / "src").mkdir()
    (project / "fix-memory.patch").write_text("--- a/.claude/memory/decisions/x.json\n+++ b/.claude/memory/"
                                              "decisions/x.json\n@@ -1 +1 @@\n-{}\n+{\"title\": \"x\"}\n")
    (project / "fix-src.patch").write_text("--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-a\n+b\n")
    return project


def payload(command: str, project) -> dict:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(project), "session_id": "corpus",
            "hook_event_name": "PreToolUse", "tool_use_id": "toolu_corpus"}


def score(denied: dict) -> tuple:
    """``(figures, misclassified lines)`` from ``{command: denied?}``."""
    wrong = [row for row in CORPUS if denied[row["command"]] != row["write"]]
    writes = [row for row in CORPUS if row["write"]]
    others = [row for row in CORPUS if not row["write"]]
    figures = {
        "write lines denied": (sum(denied[r["command"]] for r in writes), len(writes)),
        "no-write lines allowed": (sum(not denied[r["command"]] for r in others), len(others)),
    }
    return figures, wrong


def check(figures: dict, wrong: list, how: str) -> None:
    report = "; ".join(f"{name}: {ok}/{n} ({100 * ok / n:.1f}%)" for name, (ok, n) in figures.items())
    print(f"\n{how}: {report}")
    listed = "\n".join(f"  {'write' if r['write'] else 'no-write'}: {r['command']!r}" for r in wrong)
    for name, (ok, n) in figures.items():
        assert ok / n >= TARGET, f"{how}: {name} {ok}/{n} is under {TARGET:.0%}; misclassified:\n{listed}"
    if wrong:
        print("misclassified:\n" + listed)


def test_corpus_is_large_and_balanced():
    assert len({row["command"] for row in CORPUS}) == len(CORPUS), "duplicate lines"
    assert sum(row["write"] for row in CORPUS) >= 150 and sum(not row["write"] for row in CORPUS) >= 150


def test_in_process_decision_on_the_corpus(corpus_project):
    denied = {row["command"]: guard_tool_use(payload(row["command"], corpus_project)) is not None for row in CORPUS}
    check(*score(denied), "in-process")


@pytest.mark.slow  # 659 hook processes (~30 s of CPU); the in-process test above decides the same way
def test_real_hook_on_the_corpus(corpus_project):
    def run(command):
        proc = run_hook("pre_tool_use.py", payload(command, corpus_project), cwd=corpus_project, process=True)
        assert proc.returncode == 0 and proc.stderr == b"", (command, proc.stderr)
        if not proc.stdout.strip():
            return command, False
        out = json.loads(proc.stdout)["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny" and "memory.py\" save --record '" in out[
            "permissionDecisionReason"], out
        return command, True

    with ThreadPoolExecutor(max_workers=4) as pool:
        denied = dict(pool.map(run, [row["command"] for row in CORPUS]))
    check(*score(denied), "real PreToolUse hook")
