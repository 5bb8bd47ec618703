"""Every hook as Claude Code runs it, against ``python3 -S -c pass``, with and without bytecode caching.

Used by ``bench.py --hooks``. One generated store (1,000 memories by default) in a git
repository; each hook runs exactly as ``hooks.json`` says (argv taken from it,
``${CLAUDE_PLUGIN_ROOT}`` filled in), with the payload Claude Code sends, in three bytecode
settings interleaved in the same rounds:

- ``pyc``: Python's default, compiled code cached in ``__pycache__`` beside the sources;
- ``no-write``: ``PYTHONDONTWRITEBYTECODE=1`` (the code is kept in the user's cache folder,
  here a fresh one per benchmark run, warmed by the sanity run);
- ``compile``: ``PYTHONDONTWRITEBYTECODE=1``, no cache folder that can be written and a copy of
  the runtime without ``__pycache__``, so every run compiles the package again (what every hook
  did in a container before the user cache).

Scenarios: PreToolUse and PostToolUse on a read-only Bash line (``git status``), on a Bash
line that may write (``python3 build.py``: the full guard and the snapshot), and on a Write
of a source file; SessionStart; Stop with two new transcript lines before each run (so the
conversation is read and triaged every time); UserPromptSubmit with a matching prompt.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil

TARGETS = {"PreToolUse": 1.5, "PostToolUse": 1.5, "SessionStart": 2.0, "Stop": 2.0}
FAST_CALLS = ("bash read-only", "write src")  # calls that do not touch the store: the 1.5x target
MODES = {"pyc": {}, "no-write": {"PYTHONDONTWRITEBYTECODE": "1"},
         "compile": {"PYTHONDONTWRITEBYTECODE": "1", "XDG_CACHE_HOME": "/dev/null/none"}}


def hook_argv(repo: str, py: str, event: str) -> list:
    with open(os.path.join(repo, "hooks.json"), encoding="utf-8") as f:
        command = json.load(f)["hooks"][event][0]["hooks"][0]["command"]
    command = command.split(" || ")[0]  # the chain's first interpreter: what runs where python3 exists
    argv = shlex.split(command.replace("${CLAUDE_PLUGIN_ROOT}", repo))
    return [py if a == "python3" else a for a in argv]


def transcript_line(role: str, text: str) -> str:
    content = [{"type": "text", "text": text}]
    return json.dumps({"type": role, "message": {"role": role, "content": content}, "sessionId": "bench"}) + "\n"


def plain_copy(repo: str, dest: str) -> str:
    """The runtime copied without any ``__pycache__`` (for the ``compile`` mode: Python reads a
    ``__pycache__`` it finds even when it may not write one)."""
    for item in ("hooks", "scripts", "templates", "hooks.json"):
        src = os.path.join(repo, item)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, item), ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, os.path.join(dest, item))
    return dest


def scenarios(repo: str, py: str, project: str, workdir: str, match: str) -> dict:
    """``name -> (argv, stdin, setup, env, event)`` for every hook, call and bytecode mode."""
    runtimes = {"pyc": repo, "no-write": repo, "compile": plain_copy(repo, os.path.join(workdir, "runtime-copy"))}
    transcript = os.path.join(workdir, "transcript.jsonl")
    with open(transcript, "w", encoding="utf-8") as f:
        for i in range(20):
            f.write(transcript_line("user", f"can you look at the failing export test number {i}?"))
            f.write(transcript_line("assistant", f"The export test {i} failed on a timeout; I raised it and it passes."))
    counter = [0]

    def grow_transcript():
        counter[0] += 1
        with open(transcript, "a", encoding="utf-8") as f:
            f.write(transcript_line("user", f"and the retry step {counter[0]}, does it still time out?"))
            f.write(transcript_line("assistant", "It passes now. We decided to keep the retries at three because "
                                                 "the partner API rate-limits us."))

    base = {"session_id": "bench", "transcript_path": transcript, "cwd": project, "permission_mode": "default"}
    src = os.path.join(project, "src", "app.py")
    calls = {
        "PreToolUse": {
            "bash read-only": {"tool_name": "Bash", "tool_input": {"command": "git status"}},
            "bash may write": {"tool_name": "Bash", "tool_input": {"command": "python3 build.py"}},
            "write src": {"tool_name": "Write", "tool_input": {"file_path": src, "content": "print('hi')\n" * 40}},
        },
        "SessionStart": {"startup": {"source": "startup"}},
        "Stop": {"new turn": {"stop_hook_active": False}},
        "UserPromptSubmit": {"matching prompt": {"prompt": match}},
    }
    calls["PostToolUse"] = {name: dict(p, tool_response={"stdout": "ok", "stderr": ""})
                            for name, p in calls["PreToolUse"].items()}
    table = {}
    for mode, extra in MODES.items():
        env = dict(os.environ, **extra)
        if mode == "pyc":
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        if mode == "no-write":
            env["XDG_CACHE_HOME"] = os.path.join(workdir, "user-cache")
        for event, named in calls.items():
            for call, fields in named.items():
                payload = dict(base, hook_event_name=event, tool_use_id=f"toolu_{event}_{call}", **fields)
                setup = grow_transcript if event == "Stop" else None
                table[f"{event} {call} [{mode}]"] = (hook_argv(runtimes[mode], py, event), json.dumps(payload).encode(),
                                                      setup, env, event)
    return table


def target_for(name: str):
    """The issue's bound for a scenario (None for the ``compile`` mode, shown only as the before)."""
    event = name.split(" ", 1)[0]
    if name.endswith("[compile]"):
        return None
    call = name.split(" ", 1)[1].rsplit(" [", 1)[0] if " " in name else ""
    if event in ("PreToolUse", "PostToolUse") and call not in FAST_CALLS:
        return None
    return TARGETS.get(event)
