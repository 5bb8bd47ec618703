"""The smart default through the real hook: abstention, the winner's excerpt, no repeats within a session."""
from __future__ import annotations

import json

from helpers import record, run_cli, run_hook, write

HOOK = "user_prompt_submit.py"


def _store(memory_root):
    write(memory_root, record("runbook", "fix-pydantic-import", "Fix pydantic ImportError", ["pydantic", "import"],
                              content={"trigger": "ImportError on BaseSettings",
                                       "steps": ["pip install pydantic-settings", "import from pydantic_settings",
                                                 "re-run pytest", "commit the lock file"],
                                       "verification": "tests pass"}))
    write(memory_root, record("decision", "use-redis-sessions", "Use Redis for sessions", ["redis", "sessions"],
                              content={"status": "accepted", "context": "c",
                                       "decision": "Store sessions in Redis <db 2> & expire them after 24 h",
                                       "rationale": ["r"]}))
    write(memory_root, record("constraint", "partner-rate-limit", "Partner API rate limit", ["api", "rate-limit"],
                              content={"kind": "limitation", "rule": "At most 10 requests a minute per key",
                                       "impact": ["i"], "severity": "high", "active": True}))
    for i in range(6):
        write(memory_root, record("preference", f"style-{i}", f"Code style rule {i} for module layout", ["style"]))


def _hook(project, prompt, session=None, state_dir=None):
    payload = {"prompt": prompt, "cwd": str(project), "hook_event_name": "UserPromptSubmit"}
    if session is not None:
        payload["session_id"] = session
    env = {"TEAM_MEMORY_STATE_DIR": str(state_dir)} if state_dir else None
    proc = run_hook(HOOK, payload, env=env)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    return proc.stdout.decode()


def test_smart_is_the_default_and_abstains_on_unrelated_prompts(project, memory_root):
    _store(memory_root)
    assert _hook(project, "write a haiku about autumn leaves falling") == ""
    assert _hook(project, "what is the capital city of Australia") == ""
    out = _hook(project, "fixing an import_error from pydantic")
    assert "- [RUNBOOK] Fix pydantic ImportError -> .claude/memory/runbooks/fix-pydantic-import.json" in out


def test_clear_winner_gets_a_verbatim_excerpt_under_its_line(project, memory_root):
    _store(memory_root)
    out = _hook(project, "where do we keep user sessions, redis?")
    lines = out.splitlines()
    i = next(n for n, line in enumerate(lines) if "use-redis-sessions.json" in line)
    assert lines[i + 1] == "  decision: Store sessions in Redis <db 2> & expire them after 24 h"
    assert out.count("</memory-context>") == 1 and out.endswith("</memory-context>\n")
    out = _hook(project, "fixing an import_error from pydantic")
    assert "  first steps: 1. pip install pydantic-settings 2. import from pydantic_settings 3. re-run pytest\n" in out
    assert "commit the lock file" not in out  # the first three steps only


def test_no_excerpt_without_a_clear_winner(project, memory_root):
    _store(memory_root)
    out = _hook(project, "code style rule for module layout")
    assert out.count("- [PREFERENCE]") >= 2
    assert "\n  " not in out


def test_excerpt_respects_the_budget_and_can_be_turned_off(project, memory_root):
    _store(memory_root)
    cfg = memory_root / "memory-config.json"
    cfg.write_text(json.dumps({"retrieval": {"excerpt_chars": 0}}))
    assert "  decision:" not in _hook(project, "where do we keep user sessions, redis?")
    cfg.write_text(json.dumps({"retrieval": {"excerpt_chars": 20}}))
    out = _hook(project, "where do we keep user sessions, redis?")
    excerpt = next(line for line in out.splitlines() if line.startswith("  decision: "))
    assert excerpt.endswith("\u2026") and len(excerpt) <= len("  decision: ") + 20 + 10  # escaping may add a few


def test_no_repeats_within_a_session(project, memory_root, tmp_path):
    _store(memory_root)
    state = tmp_path / "state"
    prompt = "where do we keep user sessions, redis?"
    first = _hook(project, prompt, session="s1", state_dir=state)
    assert "use-redis-sessions.json" in first
    for _ in range(3):  # the next three prompts: held back
        assert "use-redis-sessions.json" not in _hook(project, prompt, session="s1", state_dir=state)
    assert "use-redis-sessions.json" in _hook(project, prompt, session="s1", state_dir=state)  # the fourth: shown again
    assert "use-redis-sessions.json" in _hook(project, prompt, session="s2", state_dir=state)  # another session
    assert "use-redis-sessions.json" in _hook(project, prompt, state_dir=state)  # no session id: no dedupe
    assert list(state.rglob("recall-*.json"))
    assert not any("recall" in p.name for p in project.rglob("*"))  # state lives outside the repository


def test_dedupe_window_is_configurable_and_zero_disables(project, memory_root, tmp_path):
    _store(memory_root)
    state = tmp_path / "state"
    prompt = "where do we keep user sessions, redis?"
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"dedupe_prompts": 0}}))
    for _ in range(3):
        assert "use-redis-sessions.json" in _hook(project, prompt, session="s", state_dir=state)
    (memory_root / "memory-config.json").write_text(json.dumps({"retrieval": {"dedupe_prompts": 1}}))
    assert "use-redis-sessions.json" in _hook(project, prompt, session="t", state_dir=state)
    assert "use-redis-sessions.json" not in _hook(project, prompt, session="t", state_dir=state)
    assert "use-redis-sessions.json" in _hook(project, prompt, session="t", state_dir=state)


def test_search_is_not_affected_by_dedupe(project, memory_root, tmp_path):
    _store(memory_root)
    state = tmp_path / "state"
    prompt = "where do we keep user sessions, redis?"
    assert "use-redis-sessions.json" in _hook(project, prompt, session="s1", state_dir=state)
    proc = run_cli("search", prompt, "--root", project, "--json", env={"TEAM_MEMORY_STATE_DIR": str(state)})
    assert proc.returncode == 0
    assert [h["id"] for h in json.loads(proc.stdout)][:1] == ["use-redis-sessions"]


def test_corrupt_session_state_is_ignored(project, memory_root, tmp_path):
    _store(memory_root)
    state = tmp_path / "state"
    prompt = "where do we keep user sessions, redis?"
    _hook(project, prompt, session="s1", state_dir=state)
    for path in state.rglob("*.json"):
        path.write_text("{broken")
    assert "use-redis-sessions.json" in _hook(project, prompt, session="s1", state_dir=state)


def test_block_framing_is_short_and_describes_only_the_categories_shown(project, memory_root):
    write(memory_root, record("runbook", "numpy-pin", 'Pin numpy: pip install "numpy>=1.26,<2" && make test',
                              ["numpy", "pin"]))
    write(memory_root, record("decision", "generic-list", "Return List<int> from the parser", ["parser"]))
    out = _hook(project, "how do we pin numpy for the tests?")
    lines = out.splitlines()
    memory_lines = [line for line in lines if line.startswith(("- [", "  "))]
    framing = len(out) - sum(len(line) + 1 for line in memory_lines)
    assert framing <= 220, out
    assert '- [RUNBOOK] Pin numpy: pip install "numpy>=1.26,<2" && make test -> ' in out  # verbatim, not escaped
    assert lines[-2].startswith("Kinds: RUNBOOK = ") and "DECISION" not in lines[-2] and "descriptions=" not in out
    assert "Return List<int> from the parser" in _hook(project, "what does the parser return, a list?", "s2")
