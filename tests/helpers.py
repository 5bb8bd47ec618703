"""Small builders shared by the tests: valid records and hook runs."""
from __future__ import annotations

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


def run_hook(event_file: str, stdin, cwd=None, env=None, timeout: float = 30):
    """Run a hook exactly as hooks.json says, with CLAUDE_PLUGIN_ROOT set to the checkout."""
    data = stdin if isinstance(stdin, bytes) else (json.dumps(stdin) if not isinstance(stdin, str) else stdin).encode()
    full_env = dict(os.environ, CLAUDE_PLUGIN_ROOT=str(REPO))
    full_env.update(env or {})
    return subprocess.run(["/bin/sh", "-c", masked(hook_command(event_file))], input=data, capture_output=True,
                          cwd=cwd, env=full_env, timeout=timeout)


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


def run_cli(*args, cwd=None, input=None, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    mask = [str(MASK)] if os.environ.get("TEAM_MEMORY_MASK_POSIX", "") not in ("", "0") else []
    return subprocess.run([sys.executable, *mask, str(REPO / "scripts" / "memory.py"), *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, input=input, env=full_env, timeout=60)


def transcript_line(role: str, text: str = "", tools=(), **extra) -> str:
    """One line of a Claude Code transcript (JSONL): a user or assistant message with text and tool uses."""
    content = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": f"t{i}", "name": name, "input": {}} for i, name in enumerate(tools)]
    line = {"type": role, "message": {"role": role, "content": content}, "sessionId": "s"}
    line.update(extra)
    return json.dumps(line) + "\n"


def pin_seed_strategy(memory_root, **retrieval) -> None:
    """Write a store config that pins the seed's ``title_tags`` scoring (for tests of the seed's exact outputs)."""
    settings = {"match_strategy": "title_tags", **retrieval}
    (Path(memory_root) / "memory-config.json").write_text(json.dumps({"retrieval": settings}), encoding="utf-8")
