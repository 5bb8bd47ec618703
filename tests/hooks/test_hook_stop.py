"""The real Stop hook, run in a subprocess exactly as hooks.json says."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess

import pytest

import helpers
from helpers import REPO, run_hook, transcript_line
from team_memory.base import state

HOOK = "stop.py"
DECISION = ("We compared Redis and Memcached for the session store.\n"
            "We decided to use Redis because it persists sessions across restarts.\n"
            "Memcached would have been simpler, but we chose Redis over it.")
RUNBOOK = ("The deploy failed with a timeout error again.\n"
           "Root cause: the migration held a lock; the fix was to run it before the rollout.\n"
           "Verified: the deploy now passes.")


@pytest.fixture
def transcript(project):
    path = project / "session.jsonl"
    path.write_text(transcript_line("user", "Which store should hold sessions?") + transcript_line("assistant", DECISION))
    return path


def stop(project, transcript, **extra):
    payload = {"session_id": "abcd1234-ef56", "transcript_path": str(transcript), "cwd": str(project),
               "hook_event_name": "Stop", "stop_hook_active": False}
    payload.update(extra)
    proc = run_hook(HOOK, payload, cwd=str(project))
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    return json.loads(proc.stdout) if proc.stdout else None


def test_blocks_once_with_reason_and_exact_commands(project, transcript):
    out = stop(project, transcript)
    assert out["decision"] == "block"
    reason = out["reason"]
    assert len(reason) < 2000
    assert "- decision: " in reason and "decided to use Redis" in reason
    cli = f'python3 "{REPO / "scripts" / "memory.py"}"'  # quoted: the form the permission rules match
    assert f'{cli} similar --root "{project}" --category decision --title' in reason
    assert f"""\n{cli} save --root "{project}" --record '{{"category": "decision", """ in reason
    assert f'{cli} update ID --root "{project}"' in reason
    assert "<<" not in reason, "a heredoc holding JSON is refused by Claude Code before any hook runs"
    # recall matches words: the reminder asks for the words a teammate would type as tags
    assert "tags: the words a teammate would type later" in reason and "auth/authentication" in reason
    # the same stretch never asks twice
    assert stop(project, transcript) is None


def test_new_text_after_a_reminder_is_judged_again(project, transcript):
    assert stop(project, transcript)["decision"] == "block"
    with open(transcript, "a") as f:
        f.write(transcript_line("user", "thanks, that is all") + transcript_line("assistant", "You're welcome."))
    assert stop(project, transcript) is None
    with open(transcript, "a") as f:
        f.write(transcript_line("user", "the deploy broke") + transcript_line("assistant", RUNBOOK))
    out = stop(project, transcript)
    assert "- runbook: " in out["reason"] and "- decision" not in out["reason"]


def test_stop_hook_active_never_blocks_and_skips_the_saving_turn(project, transcript):
    assert stop(project, transcript, stop_hook_active=True) is None
    # what Claude wrote while saving (or anything before it) is not judged later
    assert stop(project, transcript) is None
    with open(transcript, "a") as f:
        f.write(transcript_line("assistant", RUNBOOK))
    assert "- runbook: " in stop(project, transcript)["reason"]


def test_state_lives_outside_the_repository(project, transcript, memory_root):
    stop(project, transcript)
    saved = state.load_state(str(memory_root), "triage", "abcd1234-ef56")
    assert saved["offset"] == transcript.stat().st_size and saved["path"] == str(transcript)
    assert str(project) not in state.state_path(str(memory_root), "triage", "abcd1234-ef56")


def test_disabled_triage_and_no_store_print_nothing(project, transcript, memory_root, tmp_path):
    (memory_root / "memory-config.json").write_text(json.dumps({"triage": {"enabled": False}}))
    assert stop(project, transcript) is None
    outside = tmp_path / "not-a-repository"
    outside.mkdir()
    assert stop(outside, transcript) is None


def test_plugin_user_without_a_store_is_reminded_and_the_first_save_creates_it(tmp_path, transcript):
    """Installing the plugin is the opt-in: no .claude/memory/ yet still gets the reminder, at the repository root."""
    repo = tmp_path / "fresh"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    out = stop(repo / "src", transcript)
    assert out["decision"] == "block" and f'--root "{repo}"' in out["reason"]
    assert not (repo / ".claude").exists(), "the hook itself creates nothing"
    save = re.search(r"^(python3 .*) save (--root .*) --record '.*'$", out["reason"], re.M)
    record = json.dumps(helpers.record("decision", "use-redis-for-sessions", "Use Redis for session storage", tags=["redis"]))
    argv = shlex.split(f"{save.group(1)} save {save.group(2)} --record {shlex.quote(record)}")
    proc = subprocess.run(argv, cwd=repo / "src", capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".claude" / "memory" / "decisions" / "use-redis-for-sessions.json").is_file()
    assert "created the memory store" in proc.stderr


def test_drop_in_hooks_without_a_store_stay_quiet(tmp_path, transcript):
    repo = tmp_path / "fresh"
    (repo / ".git").mkdir(parents=True)
    payload = {"session_id": "s", "transcript_path": str(transcript), "cwd": str(repo), "hook_event_name": "Stop"}
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PLUGIN_ROOT"}  # as in a drop-in install
    proc = subprocess.run(["python3", str(REPO / "hooks" / "stop.py")], input=json.dumps(payload).encode(),
                          capture_output=True, cwd=repo, env=env)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr


def test_missing_transcript_falls_back_to_last_message_once(project, tmp_path):
    missing = tmp_path / "gone.jsonl"
    out = stop(project, missing, last_assistant_message=DECISION)
    assert "- decision: " in out["reason"]
    assert stop(project, missing, last_assistant_message=DECISION) is None
    assert stop(project, missing) is None


def test_last_message_not_yet_in_transcript_is_judged(project):
    path = project / "t.jsonl"
    path.write_text(transcript_line("user", "Which store should hold sessions?"))
    assert "- decision: " in stop(project, path, last_assistant_message=DECISION)["reason"]


def test_private_and_recalled_text_never_fire(project):
    path = project / "t.jsonl"
    recalled = f'<memory-context source=".claude/memory/">\n{DECISION}\n</memory-context>\nrename foo to bar'
    path.write_text(transcript_line("user", recalled) + transcript_line("assistant", f"<private>{DECISION}</private> Done.")
                    + transcript_line("assistant", f"```\n{RUNBOOK}\n```"))
    assert stop(project, path) is None


def test_session_summary_gets_a_stable_id(project):
    path = project / "t.jsonl"
    with open(path, "w") as f:
        for i in range(6):
            f.write(transcript_line("user", f"next step {i}"))
            f.write(transcript_line("assistant", "working", tools=["Read", "Edit", "Bash", "Grep", "Write", "Glob"]))
    out = stop(project, path)
    reason = out["reason"]
    assert '- session_summary: "36 tool uses' in reason
    sid = re.search(r'id "(session-\d{4}-\d\d-\d\d-abcd1234)"', reason).group(1)
    assert f"memory.py\" show {sid} --root \"{project}\"` finds it, update it" in reason
    with open(path, "a") as f:  # later in the same session: the same id
        for i in range(6):
            f.write(transcript_line("user", f"more {i}"))
            f.write(transcript_line("assistant", "working", tools=["Read", "Edit", "Bash", "Grep", "Write", "Glob"]))
    assert f'id "{sid}"' in stop(project, path)["reason"]


def test_reason_stays_short_when_everything_fires(project):
    path = project / "t.jsonl"
    big = "\n".join([DECISION, RUNBOOK, "We can't exceed the API rate limit of 100 requests per second in production.",
                     "Please always use type hints; never use Any in new code.",
                     "This is a temporary hack for now; TODO: refactor it properly (HAR-12)."] * 3)
    with open(path, "w") as f:
        for i in range(6):
            f.write(transcript_line("user", big + " " + "x" * 3000))
            f.write(transcript_line("assistant", big, tools=["Read", "Edit", "Bash", "Grep", "Write", "Glob"]))
    reason = stop(project, path)["reason"]
    assert len(reason) <= 3000  # MAX_REASON_CHARS; the save commands are never the part that is cut
    assert re.search(r"^python3 .* save --root .* --record '.*'$", reason, re.M), reason
    for cat in ("decision", "runbook", "constraint", "preference", "tech_debt", "session_summary"):
        assert f"- {cat}" in reason


@pytest.mark.parametrize("stdin", [
    b"", b"not json", b"\xff\xfe\x00binary", b"[1]", b"null", b"[" * 100000,
    b'{"transcript_path": 5, "session_id": ["x"], "stop_hook_active": "yes"}',
    b'{"transcript_path": "/dev/null", "last_assistant_message": 7}',
    b'{"transcript_path": "\\u0000bad", "cwd": "\\u0000"}',
])
def test_hostile_stdin_exits_zero_with_clean_stdout(project, stdin):
    proc = run_hook(HOOK, stdin, cwd=str(project))
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert b"Traceback" not in proc.stderr


def test_transcript_that_is_a_folder_or_binary(project, tmp_path):
    assert stop(project, tmp_path) is None
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00\xff" * 10000)
    assert stop(project, junk) is None


def test_activity_adds_up_over_stretches_until_a_summary_is_asked(project):
    path = project / "t.jsonl"
    path.write_text("")
    asked = []
    for i in range(6):
        with open(path, "a") as f:
            f.write(transcript_line("user", f"step {i}"))
            f.write(transcript_line("assistant", "ok", tools=["Read", "Edit", "Bash", "Grep", "Write", "Glob"]))
        out = stop(project, path)
        asked.append(bool(out and "- session_summary" in out["reason"]))
    assert asked[0] is False and any(asked)  # no single stretch is busy enough; together they are


def test_the_first_save_leaves_only_memories_for_git(tmp_path, git_init):
    repo = git_init(tmp_path / "fresh")
    record = json.dumps(helpers.record("decision", "use-redis", "Use Redis", tags=["redis"]))
    proc = helpers.run_cli("save", "--record", record, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    status = subprocess.run(["git", "status", "--short", "--untracked-files=all"], cwd=repo,
                            capture_output=True, text=True).stdout.split("\n")
    assert sorted(filter(None, status)) == ["?? .claude/memory/.gitignore", "?? .claude/memory/decisions/use-redis.json"]


def test_the_save_commands_survive_a_long_reminder():
    from team_memory.capture.capture import MAX_REASON_CHARS, build_reason
    from team_memory.capture.triage import Finding
    findings = [Finding(c, 0.9, ["x" * 140, "y" * 140]) for c in
                ("decision", "runbook", "constraint", "tech_debt", "preference", "session_summary")]
    reason = build_reason(findings, "/home/someone/projects/" + "a" * 80, "session-2026-11-24-abcdef12")
    assert len(reason) <= MAX_REASON_CHARS
    assert re.search(r"^python3 .* save --root .* --record '.*'$", reason, re.M), reason
    assert reason.endswith("Never save secrets, credentials or personal data.")
    assert all(f"- {c}" in reason for c in ("decision", "runbook", "constraint", "tech_debt", "preference"))


def edit_line(name: str, path: str, key: str = "file_path", call: str = "e1", error: bool | None = None) -> str:
    """An assistant line of a real transcript: one editing tool call on ``path``; with ``error``, the user line
    of its result too."""
    block = {"type": "tool_use", "id": call, "name": name, "input": {key: path, "old_string": "a", "new_string": "b"}}
    line = json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [block]}, "sessionId": "s"}) + "\n"
    if error is not None:
        result = {"type": "tool_result", "tool_use_id": call, "content": "String to replace not found" if error
                  else "The file has been updated.", **({"is_error": True} if error else {})}
        line += json.dumps({"type": "user", "message": {"role": "user", "content": [result]}, "sessionId": "s"}) + "\n"
    return line


def test_the_reminder_names_the_edited_files_and_its_save_command_fills_related_files(project, memory_root):
    """Edit/Write/MultiEdit/NotebookEdit calls, most edited first; nothing outside the repository or under .claude/."""
    transcript = project / "session.jsonl"
    lines = [transcript_line("user", "Which store should hold sessions?"),
             edit_line("Edit", str(project / "app" / "session.py")), edit_line("Write", str(project / "app" / "cache.py")),
             edit_line("MultiEdit", "app/session.py"),  # relative to the payload's cwd
             edit_line("NotebookEdit", str(project / "notes" / "load.ipynb"), key="notebook_path"),
             edit_line("Edit", str(memory_root / "decisions" / "x.json")), edit_line("Edit", "/etc/hosts"),
             edit_line("Edit", str(project / "app" / "it's.py")), edit_line("Read", str(project / "README.md")),
             edit_line("Edit", str(project / "pages" / "[id].tsx")),  # would read as a glob
             edit_line("Edit", str(project / "app" / "failed.py"), call="f1", error=True),  # did not happen
             edit_line("Edit", str(project / "app" / "cache.py"), call="ok1", error=False),
             edit_line("Edit", str(project / "app" / "session.py")), transcript_line("assistant", DECISION)]
    transcript.write_text("".join(lines))
    reason = stop(project, transcript)["reason"]
    assert '"related_files": ["app/session.py", "app/cache.py", "notes/load.ipynb"], ' in reason
    assert '--related-file "app/session.py" --related-file "app/cache.py" --related-file "notes/load.ipynb"' in reason
    assert "most edited first" in reason and ".claude" not in reason and "hosts" not in reason
    assert "README" not in reason and "it's" not in reason and "[id]" not in reason and "failed.py" not in reason
    from team_memory.guards.autoallow import allow_cli_call
    commands = [line.split(": ", 1)[-1] for line in reason.splitlines() if "memory.py" in line and "--related-file" in line]
    assert commands and all(allow_cli_call(c, str(project), [str(project)]) for c in commands)
    # The proposed save, filled in as Claude would, stores the files.
    save = re.search(r"^(python3 .*) save (--root .*) --record '(.*)'$", reason, re.M)
    record = save.group(3).replace("<short title>", "Use Redis for sessions").replace("<tag>", "redis").replace(
        "{...}", json.dumps(helpers.CONTENT["decision"]))
    argv = shlex.split(f"{save.group(1)} save {save.group(2)} --record {shlex.quote(record)}")
    assert subprocess.run(argv, cwd=project, capture_output=True).returncode == 0
    saved = json.loads((memory_root / "decisions" / "use-redis-for-sessions.json").read_text())
    assert saved["related_files"] == ["app/session.py", "app/cache.py", "notes/load.ipynb"]


def test_edits_of_quiet_stretches_count_until_a_reminder_names_them(project, memory_root):
    transcript = project / "session.jsonl"
    transcript.write_text(transcript_line("user", "rename it") + edit_line("Edit", str(project / "lib" / "a.py"))
                          + transcript_line("assistant", "Done."))
    assert stop(project, transcript) is None
    with open(transcript, "a") as f:
        f.write(edit_line("Edit", str(project / "lib" / "b.py")) + edit_line("Edit", str(project / "lib" / "b.py"))
                + transcript_line("assistant", DECISION))
    assert '"related_files": ["lib/b.py", "lib/a.py"]' in stop(project, transcript)["reason"]
    with open(transcript, "a") as f:  # named once: the next reminder starts counting again
        f.write(transcript_line("user", "the deploy broke") + transcript_line("assistant", RUNBOOK))
    reason = stop(project, transcript)["reason"]
    assert "- runbook" in reason and "related_files" not in reason and "lib/" not in reason


def test_a_reminder_without_edits_proposes_no_related_files(project, transcript):
    reason = stop(project, transcript)["reason"]
    assert "related_files" not in reason and "--related-file" not in reason


def test_the_commands_stay_whole_when_the_edited_files_do_not_fit():
    from team_memory.capture.capture import MAX_REASON_CHARS, build_reason
    from team_memory.capture.triage import Finding
    categories = ("decision", "runbook", "constraint", "preference", "tech_debt", "session_summary")
    findings = [Finding(c, 1.0, ["we decided this " * 20]) for c in categories]
    files = [f"app/{'y' * 50}{i}.py" for i in range(5)]
    short = build_reason(findings[:1], "/srv/app", "session-x", files)
    assert short.count("--related-file") == 5 and short.endswith("Never save secrets, credentials or personal data.")
    long_root = build_reason(findings, "/home/" + "x" * 230, "session-x", files)
    assert len(long_root) <= MAX_REASON_CHARS and long_root.endswith("Never save secrets, credentials or personal data.")
