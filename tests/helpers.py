"""Small builders shared by the tests: valid records and hook runs."""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = {"session_summary": "sessions", "decision": "decisions", "runbook": "runbooks",
           "constraint": "constraints", "tech_debt": "tech-debt", "preference": "preferences"}

CONTENT = {
    "decision": {"status": "accepted", "context": "c", "decision": "d", "rationale": ["r"]},
    "runbook": {"trigger": "t", "steps": ["s"], "verification": "v"},
    "constraint": {"kind": "limitation", "rule": "r", "impact": ["i"], "severity": "high", "active": True},
    "preference": {"topic": "t", "value": "v", "reason": "r", "strength": "default"},
    "tech_debt": {"status": "open", "priority": "low", "description": "d", "reason_deferred": "r"},
    "session_summary": {"goal": "g", "outcome": "success", "completed": ["c"], "next_actions": ["n"]},
}


def copy_of(template: Path, tmp_path: Path, name: str = "repo") -> Path:
    """A test's own copy of a tree built once a session (a repository, a store): every file its own."""
    import shutil
    root = tmp_path / name
    shutil.copytree(template, root, symlinks=True)
    return root


def python_caches() -> bool:
    """What ``base.bytecache.python_caches_here`` answers for the hooks the tests run."""
    from team_memory.base.bytecache import PACKAGE_DIR
    pycache = os.path.join(PACKAGE_DIR, "__pycache__")
    return not os.environ.get("PYTHONDONTWRITEBYTECODE") and os.access(
        pycache if os.path.isdir(pycache) else PACKAGE_DIR, os.W_OK)


def iso(days_ago: float = 100) -> str:
    return (datetime.now(timezone.utc) - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def record(category: str, memory_id: str, title: str, tags=(), days_ago: float = 100, **extra) -> dict:
    rec = {"schema_version": "1.0", "category": category, "id": memory_id, "title": title,
           "created_at": iso(days_ago + 1), "updated_at": iso(days_ago), "tags": list(tags),
           "record_status": "active", "content": dict(CONTENT[category])}
    rec.update(extra)
    return rec


def write(memory_root, rec: dict, raw: str | None = None) -> Path:
    folder = Path(memory_root) / FOLDERS[rec["category"]]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{rec['id']}.json"
    path.write_text(raw if raw is not None else json.dumps(rec, indent=2) + "\n", encoding="utf-8")
    return path


PYTHONS = ("python3", "python", "py -3")  # every hook command tries these in turn (hooks.json)


def python_chain(script: str) -> str:
    """The command hooks.json gives a launcher: the first of ``PYTHONS`` that runs it under ``-S``; a fallback
    passes its own name, which the hook's hints then use (``cliname.python_name``)."""
    return " || ".join([f'{python} -S "{script}"' + ("" if python == "python3" else
                                                      f" {python}" if " " not in python else f' "{python}"')
                        for python in PYTHONS] + ["exit 1"])


def hook_command(event_file: str) -> str:
    """The command hooks.json gives for the hook whose launcher is ``event_file``."""
    config = json.loads((REPO / "hooks.json").read_text())
    for groups in config["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                if event_file in hook["command"]:
                    return hook["command"]
    raise KeyError(event_file)


def run_hook(event_file: str, stdin, cwd=None, env=None, timeout: float = 30, process: bool = False):
    """A hook on ``stdin`` with CLAUDE_PLUGIN_ROOT set to the checkout: its handler through the fail-open boundary in
    this process (as ``hooks/launch.py`` runs it), or with ``process=True`` (and on the masked platform) exactly
    as hooks.json says, through ``/bin/sh``. Either way a ``CompletedProcess`` with bytes output."""
    data = stdin if isinstance(stdin, bytes) else (json.dumps(stdin) if not isinstance(stdin, str) else stdin).encode()
    full_env = dict(os.environ, CLAUDE_PLUGIN_ROOT=str(REPO))
    full_env.update(env or {})
    if process or MASKED:
        return subprocess.run(["/bin/sh", "-c", masked(hook_command(event_file))], input=data, capture_output=True,
                              cwd=cwd, env=full_env, timeout=timeout)
    import importlib

    from team_memory.records.hookio import run_hook as boundary
    name = event_file[:-len(".py")]
    handler = importlib.import_module(f"team_memory.handlers.{name}").handle
    launcher = str(REPO / "hooks" / event_file)
    with in_process(cwd, full_env, data, [launcher]) as (out, err):
        code = _exit_code(boundary, EVENTS[name], handler)
    return subprocess.CompletedProcess([launcher], code, out.data(), err.data())


EVENTS = {"user_prompt_submit": "UserPromptSubmit", "session_start": "SessionStart", "stop": "Stop",
          "pre_tool_use": "PreToolUse", "post_tool_use": "PostToolUse"}


MASK = REPO / "tests" / "platform_mask.py"


def masked(command: str) -> str:
    """Under ``TEAM_MEMORY_MASK_POSIX=1``, the hook command with its launcher run through ``platform_mask``."""
    if os.environ.get("TEAM_MEMORY_MASK_POSIX", "") in ("", "0"):
        return command
    launcher = '"${CLAUDE_PLUGIN_ROOT}/hooks/'
    assert launcher in command, command
    return command.replace(launcher, f'"{MASK}" {launcher}', 1)


def run_prompt_hook(project, prompt: str, session: str = "s"):
    """The real UserPromptSubmit hook for ``prompt`` in ``project``, as Claude Code sends it."""
    return run_hook("user_prompt_submit.py", {"prompt": prompt, "cwd": str(project),
                                              "hook_event_name": "UserPromptSubmit", "session_id": session})


def run_cli(*args, cwd=None, input=None, env=None, process: bool = False):
    """The CLI on ``args``: ``main(argv)`` in this process, with its own working folder, environment, stdin and
    captured stdout/stderr (``process=True``, or the masked platform: ``python3 scripts/memory.py`` started as a
    process). Either way a ``CompletedProcess`` with text output."""
    argv = [str(arg) for arg in args]
    if process or MASKED:
        full_env = dict(os.environ)
        full_env.update(env or {})
        mask = [str(MASK)] if MASKED else []
        return subprocess.run([sys.executable, *mask, str(REPO / "scripts" / "memory.py"), *argv],
                              capture_output=True, text=True, cwd=cwd, input=input, env=full_env, timeout=60)
    from team_memory.cli.main import main
    with in_process(cwd, env, input, ["memory.py", *argv]) as (out, err):
        code = _exit_code(main, argv)
    return subprocess.CompletedProcess(argv, code, out.text(), err.text())


MASKED = os.environ.get("TEAM_MEMORY_MASK_POSIX", "") not in ("", "0")


class _Captured(io.TextIOWrapper):
    """A stdout/stderr that is not a terminal, has a ``buffer`` (UTF-8) and keeps what was written."""

    def __init__(self):
        super().__init__(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="\n",
                         write_through=True)

    def data(self) -> bytes:
        self.flush()
        return self.buffer.getvalue()

    def text(self) -> str:
        return self.data().decode("utf-8", errors="replace")


@contextlib.contextmanager
def in_process(cwd, env, stdin, argv):
    """Run code here as if it were a new process: working folder, environment, argv and standard streams set
    for the block and put back after it (each test stays apart from the next one in its worker)."""
    saved = os.getcwd(), dict(os.environ), sys.argv, sys.stdin, sys.stdout, sys.stderr
    data = stdin if isinstance(stdin, bytes) else (stdin or "").encode("utf-8", errors="surrogateescape")
    out, err = _Captured(), _Captured()
    try:
        if cwd is not None:
            os.chdir(cwd)
        os.environ.update({key: str(value) for key, value in (env or {}).items()})
        sys.argv = argv
        sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
        sys.stdout, sys.stderr = out, err
        yield out, err
    finally:
        os.chdir(saved[0])
        os.environ.clear()
        os.environ.update(saved[1])
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved[2:]


def _exit_code(function, *args) -> int:
    """``function(*args)`` as a process's exit code: its return value, or what ``SystemExit`` says."""
    try:
        return int(function(*args) or 0)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1


def transcript_line(role: str, text: str = "", tools=(), **extra) -> str:
    """One line of a Claude Code transcript (JSONL): a user or assistant message with text and tool uses."""
    content = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": f"t{i}", "name": name, "input": {}} for i, name in enumerate(tools)]
    line = {"type": role, "message": {"role": role, "content": content}, "sessionId": "s"}
    line.update(extra)
    return json.dumps(line) + "\n"


def read_index(memory_root: str) -> list | None:
    """The parsed entries of ``index.md``; None if it cannot be read (never through a link)."""
    from team_memory.base.safefs import read_regular
    from team_memory.derived.index import index_path, parse_index_line
    try:
        text = read_regular(index_path(memory_root), 256 * 1024 * 1024)[0].decode("utf-8", "replace")
    except OSError:
        return None
    return [e for e in map(parse_index_line, text.splitlines()) if e is not None]


def examples(count: int) -> int:
    """A property test's number of examples: ``count`` in the full run (TEAM_MEMORY_SLOW=1, and .ci/run), a quarter
    of it (at least 50) in the fast suite, which a developer runs many times a day, each time at random."""
    full = any(os.environ.get(name, "") not in ("", "0") for name in ("TEAM_MEMORY_SLOW", "TEAM_MEMORY_REQUIRE_E2E"))
    return count if full else max(50, count // 4)
