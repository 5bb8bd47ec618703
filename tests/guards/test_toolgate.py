"""The tool hooks' fast path never lets through what the full guard would stop or check.

``toolgate.outside_store`` must imply: ``guard_tool_use`` allows the call and
``check_tool_result`` has nothing to say. Checked on a corpus (DENIED/ALLOWED of the guard's
own tests plus tricky forms) and on generated commands and paths; the real hooks are run to
show that the fast path is taken (no snapshot) and that denials still arrive.
"""
from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples, record, run_hook, write
from team_memory.guards import toolgate
from team_memory.guards.guards import guard_tool_use
from team_memory.guards.posttool import check_tool_result
from team_memory.base.state import state_dir
from test_guards import ALLOWED, DENIED

FAST = [  # everyday calls that must take the fast path
    "ls -la src", "git status", "git diff HEAD~1 -- src/app.py", "git log --oneline -5",
    "grep -rn 'def main(' src | head -20", "cat README.md && wc -l src/app.py", "cd src; ls",
    "find src -name '*.py'", "pwd", "echo done",
]
TRICKY = [
    "ls .cl'aude'/memory", "ls .CLAUDE/MEMORY", "rm -rf ..", "rm -rf *", "mv . /tmp/elsewhere", "cd ..; rm -r proj",
    "cat x > y", "ls $HOME", "ls `pwd`", "ls $(pwd)", "ls ~", "ls {a,b}", "ls \\.claude", "echo \"$X\"",
    "git checkout -- .", "git stash", "git -c core.pager=rm log", "find . -delete", "find . -exec rm {} +",
    "rg --pre ./x foo", "sort -o out in", "tee out", "FOO=.claude ls", "ls \n rm -rf .", "ls; rm -rf .",
    "python3 build.py", "make", "npm test", "sh -c 'ls'", "ls 'unterminated", "ls é", "ls\u00a0.claude",
    "git diff --output=out", "ls link-to-store", "cat link-to-store/decisions/x.json",
    "pytest link-to-store", "pytest ..", "pytest .", "make -C link-to-store", "npm run build --prefix=..",
    "python3 -m pytest -q", "python3 -m", "python3 tidy.py", "cd .. && make", "pytest -q && rm -rf .",
]
ORDINARY_LINES = [  # issue 26: tests, builds and package managers, no snapshot either
    "pytest -q tests/test_orders.py", "npm test", "make", "python3 -m pytest -q src", "cargo build --release",
    "npm ci && npm run lint", "go test ./src/...", "make -j4 all",
]


@pytest.fixture
def scene(project, memory_root, tmp_path):
    """A project with one memory, a symlink to the store, and a store reached only through a symlink."""
    write(memory_root, record("decision", "x", "Use Redis"))
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print(1)\n")
    os.symlink(memory_root, project / "link-to-store")
    elsewhere = tmp_path / "elsewhere-store"
    (elsewhere / "decisions").mkdir(parents=True)
    other = tmp_path / "other"
    (other / ".claude").mkdir(parents=True)
    os.symlink(elsewhere, other / ".claude" / "memory")  # a store whose real path names no .claude
    return project, other, elsewhere


def payload(tool, tool_input, cwd, event="PreToolUse"):
    return {"tool_name": tool, "tool_input": tool_input, "cwd": str(cwd), "session_id": "s1",
            "tool_use_id": "toolu_1", "hook_event_name": event}


def assert_agrees(p):
    """The rule under test: fast means the full guard allows and finds nothing afterwards."""
    if toolgate.outside_store(p):
        assert guard_tool_use(dict(p)) is None, p
        assert check_tool_result(dict(p, hook_event_name="PostToolUse")) is None, p
        return True
    return False


def test_everyday_calls_take_the_fast_path(scene):
    project, _, _ = scene
    for command in FAST + ORDINARY_LINES:
        assert toolgate.outside_store(payload("Bash", {"command": command}, project)), command
    assert toolgate.outside_store(payload("Write", {"file_path": str(project / "src" / "app.py"), "content": "x"}, project))
    assert toolgate.outside_store(payload("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}, project))


def test_lines_that_can_touch_a_store_are_not_ordinary(scene):
    project, _, _ = scene
    for command in ("pytest link-to-store", "pytest ..", "pytest .", "make -C link-to-store", "npm run x --prefix=..",
                    "python3 tidy.py", "cd .. && make", "pytest -q && rm -rf .", "black .", "sh build.sh"):
        assert not toolgate.outside_store(payload("Bash", {"command": command}, project)), command


def test_the_full_guard_knows_no_ordinary_program():
    """An ordinary program is one the full guard judges on its arguments only (an unknown program)."""
    from team_memory.guards import shelljudge
    known = (set(shelljudge.HANDLERS) | set(shelljudge.OUTPUTS) | shelljudge.SHELLS | shelljudge.INTERPRETERS
             | shelljudge.READERS | shelljudge.WRITERS | shelljudge.COPIERS | set(toolgate.READ_ONLY))
    assert not toolgate.ORDINARY & known
    assert not {name.rstrip("0123456789.") for name in toolgate.ORDINARY} & known


@pytest.mark.parametrize("command", DENIED + ALLOWED + FAST + TRICKY + ORDINARY_LINES)
def test_bash_corpus_agrees_with_the_full_guard(scene, command):
    project, other, _ = scene
    for cwd in (project, project / "src", other, project / ".claude" / "memory" / "decisions", project / "link-to-store"):
        assert_agrees(payload("Bash", {"command": command}, cwd))
    # every line the full guard denies goes to it
    if command in DENIED:
        assert not toolgate.outside_store(payload("Bash", {"command": command}, project))


def test_write_corpus_agrees_with_the_full_guard(scene, tmp_path):
    project, other, elsewhere = scene
    paths = [".claude/memory/decisions/y.json", ".CLAUDE/Memory/decisions/y.json", "link-to-store/decisions/y.json",
             str(elsewhere / "decisions" / "y.json"), "src/../.claude/memory/x.json", "~/../project/.claude/memory/a.json",
             "src/*.json", ".claude/memory/memory-config.json", "src/app.py", "notes.md", str(tmp_path / "outside.txt")]
    seen_fast = 0
    for cwd in (project, other, project / "link-to-store"):
        for path in paths:
            for tool, key in (("Write", "file_path"), ("Edit", "file_path"), ("MultiEdit", "file_path"),
                              ("NotebookEdit", "notebook_path")):
                seen_fast += assert_agrees(payload(tool, {key: path, "content": "{}"}, cwd))
    assert seen_fast  # the rule is not simply "never"
    # a path through a symlink, or to a store whose real path names no .claude, is never fast
    assert not toolgate.outside_store(payload("Write", {"file_path": "link-to-store/decisions/y.json"}, project))
    assert not toolgate.outside_store(payload("Write", {"file_path": str(elsewhere / "decisions" / "y.json")}, other))


def test_nothing_is_fast_from_inside_a_store(scene):
    project, _, _ = scene
    for cwd in (project / ".claude" / "memory" / "decisions", project / "link-to-store", project / ".claude"):
        assert not toolgate.outside_store(payload("Bash", {"command": "ls"}, cwd))
        assert not toolgate.outside_store(payload("Write", {"file_path": "/tmp/x.txt"}, cwd))


def test_json_escapes_are_decoded_before_the_rule(scene):
    """``\\u002eclaude`` in the raw payload is ``.claude`` once parsed: the real hook must deny it."""
    project, _, _ = scene
    raw = ('{"tool_name": "Write", "tool_input": {"file_path": "\\u002eclaude/memory/decisions/y.json", "content": "{}"}, '
           f'"cwd": {json.dumps(str(project))}, "hook_event_name": "PreToolUse"}}').encode()
    proc = run_hook("pre_tool_use.py", raw, cwd=project)
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    raw_bash = raw.replace(b'"Write"', b'"Bash"').replace(b'"file_path": "\\u002eclaude', b'"command": "rm \\u002eclaude')
    proc = run_hook("pre_tool_use.py", raw_bash, cwd=project)
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


WORDS = ["ls", "cat", "rm", "mv", "cp", "git", "status", "checkout", "diff", "find", "-delete", "-exec", "grep", "-rf",
         "-la", "cd", "..", ".", "src", "x.json", ".claude", "memory", ".claude/memory", ".cl'aude'", "'.claude/memory'",
         "link-to-store", "link-to-store/decisions/x.json", "*", "$HOME", "~", ">", ">>", "2>&1", "|", "&&", ";", "\n",
         "sh", "-c", "python3", "tee", "$(pwd)", "`pwd`", "{a,b}", "\\", '"', "'", "echo", "decisions", "/",
         "elsewhere-store", "../elsewhere-store/decisions/x.json", "xargs", "sed", "-i", "touch", "-o", "out"]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), glue=st.sampled_from([" ", "", "  "]))
def test_generated_commands_agree_with_the_full_guard(scene, words, glue):
    project, other, _ = scene
    command = glue.join(words)
    assert_agrees(payload("Bash", {"command": command}, project))
    assert_agrees(payload("Bash", {"command": command}, other))


PARTS = ["src", "..", ".", ".claude", ".Claude", "memory", "decisions", "link-to-store", "x.json", "~", "elsewhere-store",
         "other", "project", "*", "notes.md"]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(PARTS), min_size=1, max_size=6), absolute=st.booleans(),
       tool=st.sampled_from(["Write", "Edit", "MultiEdit", "NotebookEdit"]))
@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_generated_paths_agree_with_the_full_guard(scene, tmp_path, parts, absolute, tool):
    project, other, _ = scene
    path = os.path.join(str(tmp_path) if absolute else "", *parts)
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    for cwd in (project, other):
        assert_agrees(payload(tool, {key: path, "content": "{}"}, cwd))


def test_fast_bash_call_runs_no_guard_and_leaves_no_snapshot(scene):
    """Through the real hooks: a read-only or ordinary line leaves no snapshot; a line that may write gets one."""
    project, _, _ = scene
    memory_root = project / ".claude" / "memory"
    for command, snapshots in (("git status", 0), ("pytest -q tests/test_orders.py", 0), ("python3 build.py", 1)):
        proc = run_hook("pre_tool_use.py", payload("Bash", {"command": command}, project), cwd=project)
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
        folder = state_dir(str(memory_root))
        found = [n for n in os.listdir(folder)] if os.path.isdir(folder) else []
        assert len([n for n in found if n.startswith("tool-snapshot-")]) == snapshots, (command, found)
        post = run_hook("post_tool_use.py", payload("Bash", {"command": command}, project, "PostToolUse"), cwd=project)
        assert post.returncode == 0 and post.stdout == b"" and post.stderr == b""


def test_denials_still_arrive_through_the_hook(scene):
    project, _, _ = scene
    for p in (payload("Bash", {"command": "rm -rf .claude"}, project),
              payload("Write", {"file_path": "link-to-store/decisions/y.json", "content": "{}"}, project)):
        proc = run_hook("pre_tool_use.py", p, cwd=project)
        assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny", p


def test_a_plain_line_is_read_as_the_shell_reader_reads_it(monkeypatch):
    """The fast path splits a line of ``PLAIN`` characters at spaces without the shell reader; the reader gives the
    same words (or refuses the line, which only sends it to the full guard)."""
    import random
    rng = random.Random(7)
    alphabet = sorted(toolgate.PLAIN) + [" "] * 12
    lines = ["pytest -q tests/test_orders.py", "make -j4 all", "npm run build --if-present", "  go test ./...  ",
             "a=b c", "x,y z", "%d @a +b"]
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    lines = [line for line in lines if line.strip()]
    fast = [toolgate.simple_commands(line) for line in lines]
    monkeypatch.setattr(toolgate, "PLAIN", frozenset())
    for line, words in zip(lines, fast):
        read = toolgate.simple_commands(line)
        assert read is None or read == words, (line, words, read)
