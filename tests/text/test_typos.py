"""Typos through the real prompt hook, with rapidfuzz installed (found under ``python3 -S``).

A clear typo of a rare tag or title word answers ("the pydnatic valdation is failing again");
a typo that stops the stemmer is met by the written word (``validaiton`` against ``validation``,
not the stem ``validat``); a near spelling of a word half the store carries stays silent.
CI installs rapidfuzz with the dev extras, so these run there.
"""
from __future__ import annotations

import pytest

from helpers import record, run_prompt_hook, write
from team_memory.base.config import load_config
from team_memory.derived.refresh import rebuild_index
from team_memory.recall import weights
from team_memory.recall.retrieve import rank
from team_memory.text.fuzzycheck import forms_by_length, spelled_forms, stem_of
from test_cache import assert_same_results

pytest.importorskip("rapidfuzz", reason="the fuzzy step needs rapidfuzz: pip install -e '.[dev]'")

ROWS = [
    ("decision", "pydantic-v2", "Use pydantic v2 for schema validation", ["pydantic", "validation"]),
    ("runbook", "rollback", "Roll back a bad release with helm rollback", ["helm"]),
    ("constraint", "sso-only", "Authentication must go through the corporate SSO", ["authentication", "sso"]),
    ("preference", "auth-lib", "Prefer the auth helper library for tokens", ["auth", "tokens"]),
    ("decision", "postgres", "Use PostgreSQL 16 for the main database", ["postgres", "database"]),
    ("runbook", "redis-flush", "Flush the redis cache after a schema change", ["redis", "cache"]),
    ("decision", "celery", "Run background jobs on celery workers", ["celery", "queue"]),
    ("preference", "pytest", "Tests use pytest fixtures, not unittest classes", ["pytest", "testing"]),
    ("decision", "k8s", "Run services on kubernetes with helm charts", ["kubernetes", "helm"]),
]
AREAS = ("billing", "search", "mobile", "reports", "exports", "alerts", "uploads", "webhooks", "metrics", "tenants")


def _store(memory_root) -> None:
    """Nine memories with rare tags, and ten whose one shared tag, ``deployment``, is on half the store."""
    for category, memory_id, title, tags in ROWS:
        write(memory_root, record(category, memory_id, title, tags))
    for area in AREAS:
        write(memory_root, record("runbook", f"deploy-{area}", f"Ship the {area} service", ["deployment", area]))


def _said(project, prompt: str) -> str:
    proc = run_prompt_hook(project, prompt)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode()


def test_a_typo_of_two_rare_tags_answers_through_the_hook(project, memory_root):
    _store(memory_root)
    out = _said(project, "the pydnatic valdation is failing again")
    assert "pydantic-v2.json" in out and "Use pydantic v2 for schema validation" in out, out


def test_a_typo_of_one_rare_word_answers_and_of_a_common_one_stays_silent(project, memory_root):
    _store(memory_root)
    # ``validaiton`` does not fold to ``validat`` (82 against the stem, 90 against the written word)
    assert "pydantic-v2.json" in _said(project, "what about validaiton?")
    assert "k8s.json" in _said(project, "anything on kubernetse")  # a prefix of it is a tag: the typo wins
    # ``deploymnet`` is as close to ``deployment``, but half the store carries that tag
    assert _said(project, "what about deploymnet?") == ""
    assert _said(project, "where do we go for lunch today") == ""


def test_the_cached_and_plain_paths_agree_on_typos(memory_root):
    _store(memory_root)
    config = load_config(str(memory_root))
    rebuild_index(str(memory_root), config)
    assert_same_results(memory_root, config, ["the pydnatic valdation is failing again", "what about validaiton?",
                                              "anything on kubernetse", "what about deploymnet?",
                                              "postgress databse is down", "flush the rediss cahce"], limits=(5,))


def test_without_the_fuzzy_step_the_typos_stay_silent(memory_root):
    """What the fuzzy step adds (so the hook tests above test it): switched off, nothing answers."""
    _store(memory_root)
    (memory_root / "memory-config.json").write_text('{"retrieval": {"fuzzy": false}}')
    config = load_config(str(memory_root))
    for prompt in ("the pydnatic valdation is failing again", "what about validaiton?"):
        assert rank(str(memory_root), config, prompt, 5) == [], prompt


def test_the_written_forms_come_from_the_stem_alone():
    stems = {"validat", "postgr", "redis", "検索", "vers", "version"}
    forms = spelled_forms(sorted(stems))
    assert {"validation", "validated", "validations", "postgres", "redis", "検索"} <= set(forms)
    assert not any(f.startswith("検索") and f != "検索" for f in forms) and "deploye" not in spelled_forms(["deploy"])
    assert stem_of("validation", stems) == stem_of("validated", stems) == "validat"
    assert stem_of("postgres", stems) == "postgr" and stem_of("version", stems) == "version"  # a stem is its own
    by_length = forms_by_length({7: ["validat"], 6: ["postgr"]}, wanted={8, 10})
    assert set(by_length) == {8, 10} and "postgres" in by_length[8] and "validation" in by_length[10]
    assert all(len(form) == length for length, forms in by_length.items() for form in forms)
    assert weights.FUZZY_LIMIT == 3


@pytest.mark.e2e
def test_the_real_client_passes_a_typo_s_memory_to_the_model(tmp_path):
    """The real Claude Code CLI (offline harness), as a plugin: the typo prompt's memory reaches the model."""
    import e2e_support as e2e
    e2e.require_claude()
    project = e2e.plugin_project(tmp_path)
    _store(e2e.memory_root(project))
    result = e2e.ask(project, "the pydnatic valdation is failing again", e2e.REPO, label="typo")
    assert result.seen("<memory-context"), result.describe()
    assert result.seen("[DECISION] Use pydantic v2 for schema validation"), result.describe()
