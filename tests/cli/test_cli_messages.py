"""What the CLI says in the small cases: review's commands for files that are gone, warnings about related files
that are not there, one "no store" message, bounded and decoded --input, plurals, whole kind descriptions."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from helpers import copy_of, record, run_cli, run_prompt_hook, write

ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com", "GIT_COMMITTER_NAME": "Dev",
       "GIT_COMMITTER_EMAIL": "dev@example.com"}


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=dict(os.environ, **ENV))


@pytest.fixture(scope="session")
def _repo_template(tmp_path_factory):
    root = tmp_path_factory.mktemp("messages-repo") / "repo"
    (root / "app").mkdir(parents=True)
    git(root, "init", "-q")
    (root / "app" / "session.py").write_text("x\n")
    (root / "app" / "keep.py").write_text("x\n")
    write(root / ".claude" / "memory", record("decision", "use-redis", "Use Redis for user sessions", ["redis"],
                                              days_ago=10, related_files=["app/session.py", "db/gone.sql"]))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    git(root, "rm", "-q", "app/session.py")
    git(root, "commit", "-qm", "session.py removed")
    return root


@pytest.fixture
def repo(tmp_path, _repo_template):
    """A repository whose memory names app/session.py (deleted since) and db/gone.sql (never there): a copy of one
    built once a session (per worker), every file its own."""
    return copy_of(_repo_template, tmp_path)


def test_review_of_files_that_are_gone_offers_two_different_commands(repo):
    out = run_cli("review", cwd=repo).stdout
    still = next(line for line in out.splitlines() if "still right:" in line)
    change = next(line for line in out.splitlines() if "needs changes:" in line)
    assert still.split(":", 1)[1] != change.split(":", 1)[1]
    assert still.endswith("update use-redis --reviewed --no-related-files") and change.endswith("edit use-redis")
    assert "app/session.py: no longer exists" in out and "db/gone.sql: no such file" in out
    data = json.loads(run_cli("review", "--json", cwd=repo).stdout)
    assert data["stale"][0]["commands"]["reviewed"].endswith("--reviewed --no-related-files")


def test_review_s_header_says_why_for_a_file_that_never_existed(repo):
    write(repo / ".claude" / "memory", record("decision", "use-redis", "Use Redis for user sessions", ["redis"],
                                              days_ago=0, related_files=["db/gone.sql", "app/keep.py"]))
    git(repo, "commit", "-qam", "the memory now names db/gone.sql and app/keep.py")
    out = run_cli("review", cwd=repo).stdout
    assert "changed in git" not in out.splitlines()[0] and "do not exist" in out.splitlines()[0]
    assert "still right:" in out and "update use-redis --reviewed --related-file app/keep.py" in out


def test_reviewed_says_when_the_mark_stays_and_how_to_clear_it(repo):
    proc = run_cli("update", "use-redis", "--reviewed", cwd=repo)
    assert proc.returncode == 0 and "updated use-redis" in proc.stdout
    assert "app/session.py, db/gone.sql" in proc.stderr and "to clear the mark" in proc.stderr
    fix = proc.stderr.split("drop them: ", 1)[1].strip()
    assert fix.endswith("update use-redis --reviewed --no-related-files")
    assert run_cli("update", "use-redis", "--reviewed", "--no-related-files", cwd=repo).stderr == ""
    assert "nothing to review" in run_cli("review", cwd=repo).stdout


def test_the_warning_hides_a_secret_shaped_entry(repo):
    key = "AKIA" + "QWERTYUIOPASDFGH"
    write(repo / ".claude" / "memory", record("decision", "use-redis", "Use Redis for user sessions", ["redis"],
                                              days_ago=10, related_files=[f"keys/{key}.txt", "app/keep.py"]))
    proc = run_cli("update", "use-redis", "--reviewed", cwd=repo)
    assert proc.returncode == 0 and "warning:" in proc.stderr and key not in proc.stderr + proc.stdout


def test_a_related_file_that_is_not_there_is_kept_with_a_warning(repo):
    proc = run_cli("update", "use-redis", "--related-file", "db/schema.sql", "--related-file", "app/", cwd=repo)
    assert proc.returncode == 0 and "warning:" in proc.stderr and "db/schema.sql" in proc.stderr
    assert "app/" not in proc.stderr.split("work tree:")[1].split("(")[0]  # a folder that exists: no word
    stored = json.loads((repo / ".claude/memory/decisions/use-redis.json").read_text())
    assert stored["related_files"] == ["db/schema.sql", "app/"]
    assert run_cli("update", "use-redis", "--related-file", "app/keep.py", cwd=repo).stderr == ""


@pytest.mark.parametrize("entry", ["/etc/x", "../x", ".git/config"])
def test_similar_refuses_a_related_file_update_refuses(repo, entry):
    update = run_cli("update", "use-redis", "--related-file", entry, cwd=repo)
    similar = run_cli("similar", "--category", "decision", "--title", "Redis sessions", "--related-file", entry, cwd=repo)
    assert update.returncode == 1 and similar.returncode == 1 and similar.stdout == ""
    assert similar.stderr.split(": ", 2)[-1].split(" (")[0].strip() in update.stderr


def test_save_input_that_is_not_utf8_or_far_too_big(project, tmp_path):
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"title": "caf\u00e9"}'.encode("latin-1"))
    proc = run_cli("save", "--input", latin, cwd=project)
    assert proc.returncode == 1 and "is not valid UTF-8 (byte 0xe9 at offset 14)" in proc.stderr and "iconv" in proc.stderr
    assert "codec" not in proc.stderr
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(300 * 1024 * 1024)  # sparse: 300 MB that costs no disk
    proc = run_cli("save", "--input", big, cwd=project)
    assert proc.returncode == 1 and "larger than 4 MB" in proc.stderr


def test_a_big_input_is_refused_before_it_is_read_whole(project, tmp_path):
    """300 MB on stdin: refused at 4 MB, with the memory of a small run (not 600 MB)."""
    import sys
    from helpers import REPO
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(300 * 1024 * 1024)
    code = ("import runpy, sys; sys.argv = [sys.argv[1], 'save', '--input', sys.argv[2]]\n"
            "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
            "except SystemExit as e:\n"  # VmHWM: this process's peak (ru_maxrss keeps the forking parent's)
            "    print(e.code, [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")
    for source in (str(big), "-"):
        with open(big, "rb") as stdin:
            proc = subprocess.run([sys.executable, "-c", code, str(REPO / "scripts" / "memory.py"), source],
                                  stdin=stdin, capture_output=True, text=True, cwd=project, timeout=120)
        status, peak_kb = proc.stdout.split()
        assert status == "1" and "larger than 4 MB" in proc.stderr and int(peak_kb) < 100 * 1024, (source, proc.stderr)


def test_one_no_store_message_right_for_plugin_and_drop_in(tmp_path):
    (tmp_path / "empty").mkdir()
    here = run_cli("list", cwd=tmp_path / "empty").stderr
    rooted = run_cli("list", "--root", tmp_path / "empty", cwd=tmp_path).stderr
    for message in (here, rooted):
        assert "no memory store (.claude/memory)" in message and "install" not in message
        assert "the first save in a repository creates it" in message


def test_one_memory_is_one_memory(project, memory_root):
    write(memory_root, record("decision", "use-redis", "Use Redis for sessions", ["redis"]))
    assert "1 active memory\n" in run_cli("rebuild", cwd=project).stdout
    from helpers import run_hook
    out = run_hook("session_start.py", {"cwd": str(project), "source": "startup", "session_id": "s"}, cwd=project)
    assert b"team-memory: 1 active memory (" in out.stdout


def test_the_kinds_line_holds_whole_descriptions(project, memory_root):
    write(memory_root, record("runbook", "fix-pydantic", "Fix pydantic ImportError", ["pydantic", "importerror"]))
    write(memory_root, record("decision", "pin-pydantic", "Pin pydantic below 3", ["pydantic"]))
    out = run_prompt_hook(project, "how do I fix the pydantic ImportError?").stdout.decode()
    kinds = next(line for line in out.splitlines() if line.startswith("Kinds: "))
    assert "\u2026" not in kinds and not kinds.rstrip().endswith(("and", "with", ","))
    assert "RUNBOOK = steps that fix a known error or issue" in kinds


@pytest.mark.parametrize("command", ["list", "stats", "doctor", "view", "review"])
def test_with_no_store_a_showing_command_has_nothing_to_show_and_succeeds(tmp_path, command):
    (tmp_path / "empty").mkdir()
    result = run_cli(command, cwd=tmp_path / "empty")
    assert result.returncode == 0, result.stderr
    assert "nothing to show: no memory store (.claude/memory)" in result.stderr and "error" not in result.stderr


def test_with_no_store_a_changing_command_still_fails(tmp_path):
    (tmp_path / "empty").mkdir()
    result = run_cli("retire", "x", "--reason", "gone", cwd=tmp_path / "empty")
    assert result.returncode == 1 and "error: no memory store" in result.stderr


def test_a_save_outside_git_says_what_to_do_not_that_a_save_would_fix_it(tmp_path):
    (tmp_path / "loose").mkdir()
    result = run_cli("save", "--record", json.dumps(record("preference", "p", "Prefer ruff", ["lint"])),
                     cwd=tmp_path / "loose")
    assert result.returncode == 1 and "nothing was saved" in result.stderr and "git init" in result.stderr
    assert "first save" not in result.stderr and not (tmp_path / "loose" / ".claude").exists()
