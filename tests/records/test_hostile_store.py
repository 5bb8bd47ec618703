"""The issue's "done when": a store holding a committed worst-case title (a run of secret keywords), an absurd
cache header and a backtracking triage cue. Every hook answers within 3 s and recall still finds the other
memories; ``list``, ``validate``, ``search``, ``doctor --fix`` and ``save --record`` stay fast. Each hook runs
as Claude Code runs it (``helpers.run_hook``: the real launcher in a subprocess)."""
from __future__ import annotations

import json
import time

import pytest

from helpers import record, run_cli, run_hook, transcript_line, write

HOOK_SECONDS = 3.0
CLI_SECONDS = 10.0
WORST_TITLE = "Rotate keys " + "api_key-" * 500  # cubic in the old assignment pattern: 20 s and more per pass
ABSURD_HEADERS = (b"team-memory retrieval cache\n99999999999999\n{}", b"team-memory retrieval cache\n" + b"9" * 31 + b"\n{}")
DECISION = ("We compared Redis and Memcached for the session store.\n"
            "We decided to use Redis because it persists sessions across restarts.\n"
            "Memcached would have been simpler, but we chose Redis over it.\n" + " ".join(["word"] * 30) + "!")


@pytest.fixture(params=ABSURD_HEADERS, ids=["huge", "overflowing"])
def hostile(request, project, memory_root):
    write(memory_root, record("runbook", "rotate-keys", WORST_TITLE, ["keys"]))
    write(memory_root, record("decision", "use-redis", "Use Redis for the session store", ["redis", "sessions"],
                              related_files=["app/session.py"]))
    write(memory_root, record("runbook", "deploy-payments", "Deploy the payments service", ["deploy", "payments"]))
    (memory_root / "memory-config.json").write_text(json.dumps(
        {"triage": {"extra_cues": {"decision": {"primary": [r"^(\w+\s?)*$"]}}}}))
    cache = memory_root / ".cache"
    cache.mkdir()
    (cache / "retrieval.bin").write_bytes(request.param)
    (cache / "retrieval.delta").write_bytes(request.param)
    return project


def timed_hook(name: str, payload: dict, project, session: str = "s1"):
    began = time.monotonic()
    proc = run_hook(name, dict(payload, cwd=str(project), session_id=session), cwd=str(project), timeout=60)
    took = time.monotonic() - began
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert took < HOOK_SECONDS, f"{name} took {took:.1f} s"
    return proc.stdout.decode(), proc.stderr.decode()


def test_every_hook_answers_in_time_and_recall_still_works(hostile):
    project = hostile
    out, err = timed_hook("session_start.py", {"hook_event_name": "SessionStart", "source": "startup"}, project)
    assert "Deploy the payments service" in out or "3 " in out
    for n, (prompt, title) in enumerate((("how do we deploy the payments service?", "Deploy the payments service"),
                                         ("which store holds the sessions, redis?", "Use Redis for the session store"),
                                         ("how do we deploy the payments service?", "Deploy the payments service"))):
        out, err = timed_hook("user_prompt_submit.py", {"hook_event_name": "UserPromptSubmit", "prompt": prompt},
                              project, session=f"p{n}")
        assert title in out and "hook skipped" not in err
    out, _ = timed_hook("pre_tool_use.py", {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                            "tool_input": {"command": "echo " + "api_key-" * 500}}, project)
    (project / "app").mkdir()
    (project / "app" / "session.py").write_text("SESSIONS = 'redis'\n")
    out, _ = timed_hook("post_tool_use.py", {"hook_event_name": "PostToolUse", "tool_name": "Read",
                                             "tool_input": {"file_path": str(project / "app" / "session.py")},
                                             "tool_response": {}}, project)
    assert "Use Redis for the session store" in out
    transcript = project / "session.jsonl"
    transcript.write_text(transcript_line("user", "Which store should hold sessions? " + "api_key-" * 500)
                          + transcript_line("assistant", DECISION))
    out, err = timed_hook("stop.py", {"hook_event_name": "Stop", "transcript_path": str(transcript),
                                      "stop_hook_active": False}, project)
    assert json.loads(out)["decision"] == "block" and "ignored triage cue" in err


def timed_cli(*args, **kw):
    began = time.monotonic()
    proc = run_cli(*args, **kw)
    took = time.monotonic() - began
    assert took < CLI_SECONDS, f"{args[0]} took {took:.1f} s"
    return proc


def test_the_commands_stay_fast(hostile, memory_root):
    assert "rotate-keys" in timed_cli("list", "--root", memory_root).stdout
    assert timed_cli("validate", "--root", memory_root).returncode in (0, 1)
    found = timed_cli("search", "deploy the payments service", "--root", memory_root)
    assert found.returncode == 0 and "Deploy the payments service" in found.stdout
    assert timed_cli("doctor", "--fix", "--root", memory_root).returncode in (0, 1)
    rec = {"category": "runbook", "title": "Rotate the keys again", "tags": ["keys"],
           "content": {"trigger": "api_key-" * 500, "steps": ["password-" * 400], "verification": "v"}}
    saved = timed_cli("save", "--root", memory_root, "--record", json.dumps(rec))
    assert saved.returncode == 0, saved.stderr


def test_a_forged_file_map_is_rebuilt_by_the_next_prompt(project, memory_root):
    write(memory_root, record("decision", "use-redis", "Use Redis for the session store", ["redis", "sessions"],
                              related_files=["app/session.py"]))
    (project / "app").mkdir()
    (project / "app" / "session.py").write_text("SESSIONS = 'redis'\n")
    read = {"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_response": {},
            "tool_input": {"file_path": str(project / "app" / "session.py")}}
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": "which store holds the sessions, redis?"}
    timed_hook("user_prompt_submit.py", prompt, project, session="p0")
    (memory_root / ".cache" / "files.map").write_bytes(b"team-memory file map 2\n4 36\napp\t\t9" + b"9" * 29 + b"\n")
    assert "Use Redis" not in timed_hook("post_tool_use.py", read, project, session="r0")[0]  # ignored, never read
    timed_hook("user_prompt_submit.py", prompt, project, session="p1")  # any doubt: rebuilt
    assert "Use Redis for the session store" in timed_hook("post_tool_use.py", read, project, session="r1")[0]
