"""Every example in README.md's Commands table runs as printed, top to bottom, from the checkout against
the demo store that the README's own ``demo --keep`` line leaves (its folder swapped for a temporary one)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
FILES = (REPO / "docs" / "related-files.md").read_text(encoding="utf-8")  # the README's page on related files
DEMO = "/tmp/tm-demo"


def setup_line() -> str:
    return next(line for line in README.splitlines() if "demo --keep" in line and line.startswith("python3 "))


def examples() -> list:
    """``(command, example)`` of each row of the Commands table, in order."""
    section = README[README.index("## Commands"):]
    section = section[:section.index("\n## ", 3)]
    rows = []
    for line in section.splitlines():
        m = re.match(r"^\| `([a-z]+)` \|.*\| `(python3 scripts/memory\.py [^`]+)` \|$", line)
        if m:
            rows.append((m.group(1), m.group(2).replace("\\|", "|")))
    return rows


def test_the_table_has_an_example_for_every_row():
    section = README[README.index("## Commands"):]
    table_rows = [l for l in section[:section.index("\n## ", 3)].splitlines() if re.match(r"^\| `[a-z]+` \|", l)]
    assert len(examples()) == len(table_rows) >= 20


@pytest.mark.slow  # every Commands example as a CLI process (~3 s): run by .ci/run and TEAM_MEMORY_SLOW=1
def test_every_readme_example_runs_as_printed(tmp_path):
    demo = str(tmp_path / "tm-demo")
    home = tmp_path / "home"
    env = dict(os.environ, HOME=str(home), XDG_STATE_HOME=str(home / ".state"), EDITOR="true", NO_COLOR="1")
    env.pop("CLAUDE_PROJECT_DIR", None)
    setup = setup_line()
    exported = re.search(r"export CLAUDE_PROJECT_DIR=(\S+)", setup).group(1)
    assert exported == DEMO
    proc = subprocess.run(["bash", "-c", setup.replace(DEMO, demo)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    env["CLAUDE_PROJECT_DIR"] = demo
    outputs = {}
    for command, example in examples():
        proc = subprocess.run(["bash", "-c", example.replace(DEMO, demo)], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, f"{example}\nexit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        assert "error" not in proc.stderr.lower(), (example, proc.stderr)
        outputs[command] = proc.stdout
    assert "Fix pydantic ImportError" in outputs["search"]
    assert "use-redis-for-sessions" in outputs["list"]
    assert json.loads(outputs["show"])["id"] == "use-pydantic-v2"
    assert json.loads(outputs["save"])["id"] == "prefer-ruff-over-flake8"
    assert outputs["update"].startswith("updated use-redis-for-sessions")
    assert "team-memory installed in" in outputs["install"] and "uninstalled from" in outputs["uninstall"]
    # the checkout itself holds no store and was not written to
    assert not (REPO / ".claude" / "memory").exists()


def test_ci_runs_the_readmes_test_command_with_everything_mandatory():
    command = next(line.split("#")[0].strip() for line in README.splitlines() if "python3 -m pytest -q" in line
                   and line.startswith("python3 -m pip"))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci  # the exact command, on a line of its own
    exported = next(line for line in ci if line.startswith("export "))
    assert "TEAM_MEMORY_SLOW=1" in exported and "TEAM_MEMORY_REQUIRE_E2E=1" in exported
    assert ci.index(exported) < ci.index(command)


def section_commands(title: str, nth: int = 0, text: str = README) -> list:
    """The command lines of the ``nth`` (first) ``bash`` block of the section ``title`` of README (or ``text``)."""
    section = text[text.index(f"# {title}\n"):]
    block = section
    for _ in range(nth + 1):
        block = block[block.index("```bash\n") + 8:]
    text = block[:block.index("```")].replace("\\\n", " ")  # a command continued over lines is one line
    return [line.split("  #")[0].rstrip() for line in text.splitlines() if line.startswith("python3 ")]


def demo_store(tmp_path):
    """``(folder, environment)``: README's demo store built by its own setup line, the CLI pointed at it."""
    demo = str(tmp_path / "tm-demo")
    home = tmp_path / "home"
    env = dict(os.environ, HOME=str(home), XDG_STATE_HOME=str(home / ".state"), NO_COLOR="1")
    proc = subprocess.run(["bash", "-c", setup_line().replace(DEMO, demo)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    env["CLAUDE_PROJECT_DIR"] = demo
    return demo, env


@pytest.mark.slow  # four CLI processes on a demo store
def test_the_related_files_examples_run_as_printed(tmp_path):
    demo, env = demo_store(tmp_path)
    commands = section_commands("Memories tied to files", 0, FILES)
    assert len(commands) == 4
    outputs = []
    for example in commands:
        proc = subprocess.run(["bash", "-c", example], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and "error" not in proc.stderr.lower(), (example, proc.stdout, proc.stderr)
        outputs.append(proc.stdout)
    constraint = json.loads(open(f"{demo}/.claude/memory/constraints/keep-the-retry-loop-in-the-billing-export.json").read())
    assert constraint["related_files"] == ["billing/export.py", "billing/**/*.sql"]
    assert "why: " in outputs[2] and "shares app/session.py" in outputs[2]
    sessions = json.loads(open(f"{demo}/.claude/memory/decisions/use-redis-for-sessions.json").read())
    assert sessions["related_files"] == []


@pytest.mark.slow  # a demo store, the CLI and the real PostToolUse hook
def test_the_recall_by_file_example_runs_as_printed(tmp_path):
    demo, env = demo_store(tmp_path)
    [add] = section_commands("Memories tied to files", 1, FILES)
    proc = subprocess.run(["bash", "-c", add], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    section = FILES[FILES.index("## Recall by file\n"):]
    shown = section[section.index("```\n<memory-context") + 4:]
    shown = shown[:shown.index("```")]
    payload = {"hook_event_name": "PostToolUse", "tool_name": "Read", "session_id": "readme", "cwd": demo,
               "tool_input": {"file_path": f"{demo}/app/session.py"}, "tool_response": {}}
    proc = subprocess.run([sys.executable, "-S", str(REPO / "hooks" / "post_tool_use.py")], input=json.dumps(payload),
                          cwd=demo, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.strip() == shown.strip()


@pytest.mark.slow  # a git repository with the demo store and two CLI processes
def test_the_review_examples_run_as_printed(tmp_path):
    demo = str(tmp_path / "tm-demo")
    home = tmp_path / "home"
    env = dict(os.environ, HOME=str(home), XDG_STATE_HOME=str(home / ".state"), NO_COLOR="1",
               GIT_AUTHOR_NAME="Dev", GIT_AUTHOR_EMAIL="dev@example.com", GIT_COMMITTER_NAME="Dev",
               GIT_COMMITTER_EMAIL="dev@example.com")
    proc = subprocess.run(["bash", "-c", setup_line().replace(DEMO, demo)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    path = f"{demo}/.claude/memory/decisions/use-redis-for-sessions.json"
    record = json.loads(open(path).read())
    record.update(related_files=["app/session.py"], updated_at="2026-01-10T00:00:00Z")
    open(path, "w").write(json.dumps(record))
    os.makedirs(f"{demo}/app")
    open(f"{demo}/app/session.py", "w").write("SESSIONS = 'redis'\n")
    for args, date in ((["add", "-A"], None), (["commit", "-qm", "demo"], "2026-01-11T00:00:00Z")):
        subprocess.run(["git", *args], cwd=demo, env=dict(env, GIT_COMMITTER_DATE=date or ""), check=True)
    open(f"{demo}/app/session.py", "w").write("SESSIONS = 'postgres'\n")
    subprocess.run(["git", "commit", "-qam", "Move sessions to Postgres"], cwd=demo, env=env, check=True)
    env["CLAUDE_PROJECT_DIR"] = demo
    review, reviewed = section_commands("Memories tied to files", 2, FILES)
    proc = subprocess.run(["bash", "-c", review], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Move sessions to Postgres" in proc.stdout, (proc.stdout, proc.stderr)
    assert "app/session.py changed since: 1 commit" in proc.stdout
    proc = subprocess.run(["bash", "-c", reviewed], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(["bash", "-c", review], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "use-redis-for-sessions" not in proc.stdout, proc.stdout


def test_the_readme_is_a_front_door_and_every_link_leads_somewhere():
    """README: at most 250 lines, the demo and the tests first, the supported scale, links that resolve;
    CLAUDE.md (loaded into every session here) at most 8 KB."""
    lines = README.splitlines()
    assert len(lines) <= 250, len(lines)
    first = README[README.index("```bash\n") + 8:]
    first = [line.split("#")[0].strip() for line in first[:first.index("```")].splitlines()]
    assert first == ["python3 scripts/memory.py demo", 'python3 -m pip install -q -e ".[dev]" && python3 -m pytest -q -n auto']
    assert "Up to 5,000 memories at full speed; 10,000 works." in README
    assert README.count("\n<memory-context") >= 1
    for page in ("README.md", "docs/install.md", "docs/guide.md", "docs/related-files.md", "docs/benchmarks.md",
                 "docs/retrieval-eval.md"):
        text = (REPO / page).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if not target.startswith(("http://", "https://")):
                assert ((REPO / page).parent / target).exists(), (page, target)
    assert len((REPO / "CLAUDE.md").read_bytes()) <= 8 * 1024
