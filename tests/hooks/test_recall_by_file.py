"""Recall by file: the real PostToolUse hook, in a real git repository, shows the memories tied to
the file a tool touched, once per session, whichever hook showed them first."""
from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from helpers import REPO, copy_of, record, run_cli, run_hook, write
from team_memory.derived.filemap import memories_for
from team_memory.derived.refresh import encode_map

POST = "post_tool_use.py"
PROMPT = "user_prompt_submit.py"


@pytest.fixture(scope="session")
def _repo_template(tmp_path_factory):
    root = tmp_path_factory.mktemp("by-file") / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for rel in ("app/session.py", "app/views.py", "billing/export.py", "billing/sql/q1.sql", "docs/x.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    memory_root = root / ".claude" / "memory"
    write(memory_root, record("decision", "redis-sessions", "Sessions live in Redis", ["redis"],
                              related_files=["app/session.py"]))
    write(memory_root, record("constraint", "billing-retry", "Never change the billing retry loop", ["billing"],
                              related_files=["billing/"]))
    write(memory_root, record("runbook", "sql-review", "SQL files need a second reviewer", ["sql"],
                              related_files=["**/*.sql"]))
    write(memory_root, record("decision", "old-idea", "An old idea about views", ["views"],
                              related_files=["app/views.py"], record_status="retired"))
    assert run_cli("rebuild", cwd=root).returncode == 0
    (root / ".gitignore").write_text(".claude/memory/index.md\n.claude/memory/.lock\n.claude/memory/.cache/\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "init"], check=True)
    return root


@pytest.fixture
def repo(tmp_path, _repo_template):
    """A real git repository with a store and a few files, everything committed: a copy (every file its own) of one
    built once a session, its cache rebuilt for the copy (the files' stamps changed with it)."""
    root = copy_of(_repo_template, tmp_path)
    assert run_cli("rebuild", cwd=root).returncode == 0
    return root


def post(repo, tool="Read", session="s1", **tool_input):
    payload = {"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": tool_input, "cwd": str(repo),
               "tool_response": {}}
    if session:
        payload["session_id"] = session
    proc = run_hook(POST, payload, cwd=repo)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    if not proc.stdout:
        return None
    out = json.loads(proc.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    return out["hookSpecificOutput"]["additionalContext"]


def test_reading_a_file_injects_its_memory_once_per_session(repo):
    text = post(repo, file_path=str(repo / "app" / "session.py"))
    assert text.startswith('<memory-context source=".claude/memory/">\nRecalled team memory')
    assert "- [DECISION] Sessions live in Redis -> .claude/memory/decisions/redis-sessions.json" in text
    assert "app/session.py" in text and text.endswith("</memory-context>\n") and len(text) <= 1000
    assert post(repo, file_path=str(repo / "app" / "session.py")) is None  # not twice in a session
    assert post(repo, tool="Edit", file_path="app/session.py", old_string="x", new_string="y") is None
    assert "Sessions live in Redis" in post(repo, session="s2", file_path=str(repo / "app" / "session.py"))


def test_a_folder_and_a_glob_entry_match(repo):
    text = post(repo, tool="Write", file_path=str(repo / "billing" / "sql" / "q1.sql"), content="select 1")
    assert "Never change the billing retry loop" in text and "SQL files need a second reviewer" in text
    assert post(repo, session="s3", file_path=str(repo / "billing" / "export.py")).count("- [") == 1


def test_no_output_for_a_file_without_memories_or_outside_the_repository(repo, tmp_path):
    assert post(repo, file_path=str(repo / "docs" / "x.md")) is None
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "session.py").write_text("")
    assert post(repo, file_path=str(tmp_path / "app" / "session.py")) is None
    assert post(repo, file_path="../app/session.py") is None
    assert post(repo, session=None, file_path=str(repo / "app" / "session.py")) is None  # no session: no "once"


def test_a_retired_memory_is_never_shown(repo):
    assert post(repo, file_path=str(repo / "app" / "views.py")) is None
    map_text = (repo / ".claude" / "memory" / ".cache" / "files.map").read_text()
    assert "old-idea" not in map_text and "redis-sessions" in map_text


def test_a_memory_retired_since_the_map_was_written_is_not_shown(repo):
    path = repo / ".claude" / "memory" / "decisions" / "redis-sessions.json"
    rec = json.loads(path.read_text())
    rec["record_status"] = "retired"
    path.write_text(json.dumps(rec))  # by hand: the map still names it until the next refresh
    assert "redis-sessions" in (repo / ".claude" / "memory" / ".cache" / "files.map").read_text()
    assert post(repo, file_path=str(repo / "app" / "session.py")) is None


def test_the_prompt_hook_and_the_file_hook_show_a_memory_once_between_them(repo):
    out = run_hook(PROMPT, {"prompt": "where do sessions live, redis?", "cwd": str(repo), "session_id": "s1"},
                   cwd=repo).stdout.decode()
    assert "redis-sessions.json" in out
    assert post(repo, file_path=str(repo / "app" / "session.py")) is None  # the prompt hook showed it
    assert "Never change the billing retry loop" in post(repo, file_path=str(repo / "billing" / "export.py"))
    out = run_hook(PROMPT, {"prompt": "the billing retry loop: can we change it?", "cwd": str(repo),
                            "session_id": "s1"}, cwd=repo).stdout.decode()
    assert "billing-retry.json" not in out  # the file hook showed it: held back for the prompt hook's window


def test_bash_readers_name_their_files(repo):
    text = post(repo, tool="Bash", command="sed -n '1,20p' app/session.py | head -5")
    assert "Sessions live in Redis" in text
    assert "SQL files" in post(repo, tool="Bash", session="s4", command="python3 -m pytest -q billing/sql/q1.sql::t")
    assert post(repo, tool="Bash", session="s5", command="cd docs && cat ../app/session.py") is None
    assert post(repo, tool="Bash", session="s5", command="rm app/session.py") is None
    assert post(repo, tool="Bash", session="s5", command="cat $F") is None


def test_at_most_three_lines_within_a_thousand_characters(repo):
    memory_root = repo / ".claude" / "memory"
    for i in range(5):
        write(memory_root, record("preference", f"style-{i}", f"Style rule {i} " + "w" * 150, ["style"],
                                  related_files=["docs/"]))
    assert run_cli("rebuild", cwd=repo).returncode == 0
    text = post(repo, file_path=str(repo / "docs" / "x.md"))
    assert text.count("\n- [") == 3 and len(text) <= 1000
    assert post(repo, file_path=str(repo / "docs" / "x.md")) is None  # a file's memories come once, not 3 a Read
    assert post(repo, file_path=str(repo / "docs" / "y.md")).count("\n- [") == 2  # the rest, with another file


def test_hostile_entries_never_read_anything_outside(repo, tmp_path):
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "leak.json").write_text(json.dumps(record("decision", "leak", "LEAKED", related_files=["x.py"])))
    memory_root = repo / ".claude" / "memory"
    write(memory_root, record("decision", "hostile", "Hostile entries",
                              related_files=["../x.py", "/etc/passwd", "~/.ssh/id_rsa", ".git/config", "x.py"]))
    os.symlink(outside / "leak.json", memory_root / "decisions" / "linked.json")
    os.symlink(outside, memory_root / "linked-folder")
    assert run_cli("rebuild", cwd=repo).returncode == 0
    map_text = (memory_root / ".cache" / "files.map").read_text()
    assert "../x.py" not in map_text and "/etc/passwd" not in map_text and ".git/config" not in map_text
    assert "linked" not in map_text and "leak" not in map_text
    # a forged map naming a file outside the store, a link and a path with '..'
    forged = {".claude/memory/../../secret/leak.json": ["x.py"], ".claude/memory/decisions/linked.json": ["x.py"],
              ".claude/memory/linked-folder/leak.json": ["x.py"], "/etc/passwd": ["x.py"]}
    (memory_root / ".cache" / "files.map").write_bytes(encode_map(forged))
    assert memories_for(str(memory_root), ["x.py"])  # the forged map does name them
    text = post(repo, file_path=str(repo / "x.py"))
    assert text is None
    for rel in ("/etc/passwd", str(repo / ".git" / "config")):
        assert post(repo, session="s9", file_path=rel) is None


def test_a_link_as_the_map_is_not_followed(repo, tmp_path):
    cache = repo / ".claude" / "memory" / ".cache"
    forged = tmp_path / "forged.map"
    forged.write_bytes(encode_map({".claude/memory/decisions/redis-sessions.json": ["app/session.py"]}))
    (cache / "files.map").unlink()
    os.symlink(forged, cache / "files.map")
    assert post(repo, file_path=str(repo / "app" / "session.py")) is None


def test_the_guard_s_report_and_the_file_s_memories_arrive_in_one_answer(repo):
    memory_root = repo / ".claude" / "memory"
    write(memory_root, record("preference", "memory-format", "Memory files are written by the CLI", ["memory"],
                              related_files=[".claude/memory/decisions/"]))
    assert run_cli("rebuild", cwd=repo).returncode == 0
    bad = memory_root / "decisions" / "bad.json"
    bad.write_text('{"title": "y"}\n')
    text = post(repo, tool="Write", file_path=str(bad), content='{"title": "y"}\n')
    assert "bad.json changed outside the CLI and is not a valid memory" in text
    assert "- [PREFERENCE] Memory files are written by the CLI" in text
    assert text.index("not a valid memory") < text.index("<memory-context")


def test_a_teammate_s_memory_pulled_with_git_is_recalled_after_the_next_prompt(repo, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    git = ["-c", "user.name=t", "-c", "user.email=t@e"]
    write(repo / ".claude" / "memory", record("runbook", "views-cache", "Clear the views cache after a deploy", ["views"],
                                              related_files=["app/views.py"]))
    subprocess.run(["git", "-C", str(repo), *git, "add", ".claude/memory/runbooks"], check=True)
    subprocess.run(["git", "-C", str(repo), *git, "commit", "-qm", "views runbook"], check=True)
    run_hook(PROMPT, {"prompt": "hello there, what is new today?", "cwd": str(clone), "session_id": "c"}, cwd=clone)
    assert post(clone, session="c", file_path=str(clone / "app" / "views.py")) is None
    subprocess.run(["git", "-C", str(clone), *git, "pull", "-q", "--no-rebase"], check=True)
    assert post(clone, session="c", file_path=str(clone / "app" / "views.py")) is None  # the map: at the next prompt
    run_hook(PROMPT, {"prompt": "hello again, anything else new?", "cwd": str(clone), "session_id": "c"}, cwd=clone)
    assert "Clear the views cache after a deploy" in post(clone, session="c", file_path=str(clone / "app" / "views.py"))
    assert subprocess.run(["git", "-C", str(clone), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""  # the derived files stay out of git's way


def test_the_drop_in_install_runs_post_tool_use_on_reads_too(tmp_path):
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    assert run_cli("install", str(project)).returncode == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    hooks_json = json.loads((REPO / "hooks.json").read_text())
    (group,) = settings["hooks"]["PostToolUse"]
    assert group["matcher"] == hooks_json["hooks"]["PostToolUse"][0]["matcher"] == \
        "Read|Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell"


def test_a_stale_memory_is_marked_in_the_file_block(repo):
    (repo / "app" / "session.py").write_text("SESSIONS = 'postgres'\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e"]
    later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 120))  # after the memory's own commit
    subprocess.run(git + ["commit", "-qam", "move sessions to Postgres"], check=True,
                   env=dict(os.environ, GIT_AUTHOR_DATE=later, GIT_COMMITTER_DATE=later))
    assert json.loads(run_cli("review", "--json", cwd=repo).stdout)["count"] == 1  # computes the marks
    text = post(repo, file_path=str(repo / "app" / "session.py"))
    line = next(line for line in text.splitlines() if "redis-sessions.json" in line)
    assert line.endswith(" (app/session.py changed since; 1 commit)")


def test_without_a_state_folder_nothing_is_shown_and_nothing_breaks(repo, tmp_path):
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("")
    payload = {"hook_event_name": "PostToolUse", "tool_name": "Read", "session_id": "s1", "cwd": str(repo),
               "tool_input": {"file_path": str(repo / "app" / "session.py")}}
    proc = run_hook(POST, payload, cwd=repo, env={"TEAM_MEMORY_STATE_DIR": str(blocked / "x")})
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_a_linked_cache_folder_is_not_looked_into(repo, tmp_path):
    cache = repo / ".claude" / "memory" / ".cache"
    outside = tmp_path / "outside-cache"
    cache.rename(outside)  # the real map, now outside the store, reached only through a link
    os.symlink(outside, cache)
    assert post(repo, file_path=str(repo / "app" / "session.py")) is None
