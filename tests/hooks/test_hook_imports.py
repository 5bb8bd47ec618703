"""What each hook imports on its common path, pinned (issue 26).

Every module a hook loads costs about 0.1 ms before it runs a line, against an interpreter
start (``python3 -S -c pass``) of 7-10 ms: a new import on these paths is a visible decision,
made here. Each hook runs as ``hooks.json`` says, with ``PYTHONPROFILEIMPORTTIME=1`` (what
``-X importtime`` prints), and what it loaded beyond a bare ``python3 -S -c pass`` is
compared with the list below: the package's modules exactly, the standard library's as a bound
(a Python version may load fewer of them at start-up). None may load ``json``, ``re``, ``enum`` or
``datetime``.
"""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from helpers import python_caches, record, run_cli, run_hook, transcript_line, write

NEVER = {"json", "re", "enum", "datetime", "heapq", "operator", "collections", "functools", "hashlib", "subprocess"}
PACKAGE = {"team_memory", "team_memory.base", "team_memory.base.bytecache", "team_memory.records",
           "team_memory.base.fastjson", "_json", "team_memory.records.hookio", "os", "stat", "_stat", "posixpath",
           "genericpath", "_collections_abc", "__future__", "gc", "launch", "team_memory.handlers"}  # every hook: the launcher, the payload, os
TOOL_GATE = {"team_memory.guards", "team_memory.guards.toolgate"}  # a plain line needs no shell reader
POST = {"team_memory.handlers.post_tool_use"}
FILE_MAP = {"team_memory.derived", "team_memory.derived.filemap"}
# ``re``: Stop compiles its triage cues on every new turn
RE = {"re", "re._constants", "re._parser", "re._casefix", "re._compiler", "_sre", "copyreg", "enum", "functools",
      "_functools", "operator", "_operator", "collections", "_collections", "keyword", "reprlib", "itertools", "types",
      "heapq", "_heapq", "sre_compile", "sre_parse", "sre_constants", "_locale"}  # the last six: what 3.9's re loads
PINNED = {
    "PreToolUse ordinary Bash": PACKAGE | TOOL_GATE | {"team_memory.handlers.pre_tool_use"},
    "PostToolUse ordinary Bash": PACKAGE | TOOL_GATE | POST | FILE_MAP,  # pytest names files: recall by file looks
    "PostToolUse Read": PACKAGE | POST | FILE_MAP,
    "SessionStart": PACKAGE | {"team_memory.handlers.session_start",
        "team_memory.capture", "team_memory.base.cliname", "team_memory.derived", "team_memory.derived.cache",
        "errno", "team_memory.base.safefs", "team_memory.base.model", "team_memory.derived.refresh",
        "team_memory.base.fsutil",
        "team_memory.base.sanitize", "team_memory.base.config", "team_memory.records.store",
        "team_memory.capture.orientation"},
    "Stop": PACKAGE | {"team_memory.handlers.stop",
        "team_memory.capture", "errno", "team_memory.base.safefs", "team_memory.base.model", "team_memory.base.config",
        "_sha2", "_sha256", "team_memory.base.fsutil", "team_memory.base.state",
        "team_memory.records.store", "team_memory.capture.transcript", "team_memory.base.sanitize",
        "team_memory.capture.triage", "team_memory.capture.capture"} | RE,
    "UserPromptSubmit": PACKAGE | {"team_memory.handlers.user_prompt_submit",
        "team_memory.recall", "errno", "team_memory.base.safefs", "team_memory.base.model", "team_memory.base.config",
        "_bisect", "bisect", "math", "team_memory.text", "team_memory.text.tokens",
        "team_memory.text.textnorm", "team_memory.text.features", "team_memory.text.fuzzycheck",
        "team_memory.recall.weights",
        "team_memory.recall.matching",
        "team_memory.records.store", "team_memory.recall.block",
        "team_memory.text.answershape", "team_memory.recall.retrieve",
        "team_memory.derived", "team_memory.derived.cache", "team_memory.derived.refresh",
        "team_memory.base.fsutil", "_sha2", "_sha256",
        "team_memory.base.state",
        "itertools",
        "team_memory.derived.index", "team_memory.derived.drift", "team_memory.base.sanitize",
        "team_memory.records.exposure"},
}
_SHA = {"_sha2", "_sha256"}
 # CPython's C SHA-256: _sha256 up to 3.11, _sha2 from 3.12


def imported(proc) -> set:
    names = set()
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


@pytest.fixture(scope="module")
def bare() -> set:
    """What ``python3 -S -c pass`` itself imports (the interpreter's own start), with the
    interpreter the hooks run (``python3`` as ``hooks.json`` names it)."""
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    return imported(subprocess.run(["/bin/sh", "-c", "python3 -S -c pass"], capture_output=True, env=env))


@pytest.fixture
def scene(project, memory_root, tmp_path):
    for i, (title, tags) in enumerate((("Redis cache timeout for the celery workers", ["redis", "celery"]),
                                       ("Use pgbouncer in transaction mode", ["postgres"]),
                                       ("Deploy on Fridays only with a rollback plan", ["deploy"]))):
        write(memory_root, record("decision", f"d{i}", title, tags))
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print(1)\n")
    time.sleep(0.05)  # past the file clock's racy window (refresh.RACY_FINE_NS): the cache rebuilt now is current
    assert run_cli("rebuild", "--root", project).returncode == 0
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(transcript_line("user", "can you run the export test?") +
                          transcript_line("assistant", "It passes now; we decided to keep three retries because the "
                                                       "partner API rate-limits us."))
    base = {"cwd": str(project), "session_id": "s1", "transcript_path": str(transcript)}
    bash = {"tool_name": "Bash", "tool_input": {"command": "pytest -q tests/test_orders.py"}, "tool_use_id": "toolu_1"}
    return project, {
        "PreToolUse ordinary Bash": ("pre_tool_use.py", dict(base, hook_event_name="PreToolUse", **bash)),
        "PostToolUse ordinary Bash": ("post_tool_use.py", dict(base, hook_event_name="PostToolUse",
                                                               tool_response={"stdout": "ok"}, **bash)),
        "PostToolUse Read": ("post_tool_use.py", dict(base, hook_event_name="PostToolUse", tool_name="Read",
                                                      tool_input={"file_path": "src/other.py"}, tool_response={})),
        "SessionStart": ("session_start.py", dict(base, hook_event_name="SessionStart", source="startup")),
        "Stop": ("stop.py", dict(base, hook_event_name="Stop", stop_hook_active=False)),
        "UserPromptSubmit": ("user_prompt_submit.py", dict(base, hook_event_name="UserPromptSubmit",
                                                           prompt="how do we handle the redis cache timeout for celery?")),
    }


@pytest.mark.parametrize("name", sorted(PINNED))
def test_each_hook_imports_only_its_pinned_modules(scene, bare, name):
    project, calls = scene
    launcher, payload = calls[name]
    env = {"PYTHONPROFILEIMPORTTIME": "1"}
    first = run_hook(launcher, payload, cwd=project, process=True)  # the first call writes what later calls reuse
    assert first.returncode == 0, first.stderr
    proc = run_hook(launcher, dict(payload, session_id="s2"), cwd=project, env=env, process=True)
    assert proc.returncode == 0
    if name == "UserPromptSubmit":
        assert proc.stdout.startswith(b"<memory-context"), proc.stdout  # the common path: a block shown
    loaded = imported(proc) - bare
    assert not loaded & NEVER - (RE if name == "Stop" else set()), sorted(loaded & NEVER)
    pinned = PINNED[name]
    ours = {m for m in loaded if m.split(".")[0] == "team_memory"}
    mine = {m for m in pinned if m.split(".")[0] == "team_memory"}
    if python_caches():  # our compiled-code loader only where Python keeps none
        mine.discard("team_memory.base.bytecache")
    assert ours == mine, f"new: {sorted(ours - mine)}; gone: {sorted(mine - ours)}"
    # the standard library's: nothing beyond the list (a version may load fewer, frozen or built in)
    assert loaded - ours <= pinned - mine | _SHA, f"new: {sorted(loaded - ours - pinned - _SHA)}"
