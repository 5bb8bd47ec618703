"""``demo``: a store from ``templates/demo/`` in a temporary folder, and what the real prompt hook injects for it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

from .main import CLI, CliError, add_command, opt
from ..base.config import TEMPLATES_DIR, load_config
from ..base.fsutil import atomic_write_text
from ..derived.refresh import rebuild_index
from ..base.model import MEMORY_REL
from ..records.store import dump_memory, iter_memory_files, load_memory

PLUGIN_ROOT = os.path.dirname(TEMPLATES_DIR)
DEMO_DIR = os.path.join(TEMPLATES_DIR, "demo")
DEMO_PROMPTS = (
    "fix pydantic import error in tests",
    "always prefer type hint convention",
    "what is the rate limit on the partner API?",
    "we should schedule the nightly cron job with celery",
    "write a haiku about autumn leaves",
)

# Why a built-in prompt gets nothing: the demo's one retired memory is about it.
RETIRED_NOTE = {DEMO_PROMPTS[3]: " -- the celery cron memory matches but is retired (superseded), "
                                 "and retired memories are never recalled"}


def register(subparsers, common) -> None:
    add_command(subparsers, common, "demo", cmd_demo,
                "build a demo store in a temporary folder and show what the hook injects for a few prompts",
                f"  {CLI} demo\n"
                f'  {CLI} demo --prompt "how do we roll back a deploy?"\n'
                f"  {CLI} demo --keep /tmp/demo-project",
                opt("--prompt", "a prompt to try (repeatable; default: a built-in set)", action="append"),
                opt("--keep", "build the demo project in DIR and keep it (DIR must not exist)", metavar="DIR"))


def build_demo_project(project: str) -> str:
    """Copy the demo memories into ``project/.claude/memory`` and index them; returns the memory root."""
    memory_root = os.path.join(project, *MEMORY_REL)
    shutil.copytree(DEMO_DIR, memory_root)
    # The pydantic runbook was "updated 4 days ago", as in the reference's worked example A.
    runbook = os.path.join(memory_root, "runbooks", "fix-pydantic-import.json")
    record = load_memory(runbook)
    record["updated_at"] = (datetime.now(timezone.utc) - timedelta(days=4)).strftime("%Y-%m-%dT%H:%M:%SZ")
    atomic_write_text(runbook, dump_memory(record))
    rebuild_index(memory_root, load_config(memory_root))
    from .install import ensure_gitignore
    ensure_gitignore(project)  # as a real project has: derived files stay out of git
    return memory_root


def cmd_demo(ctx) -> int:
    prompts = ctx.args.prompt or list(DEMO_PROMPTS)
    project = os.path.abspath(ctx.args.keep) if ctx.args.keep else None
    if project and os.path.exists(project):
        raise CliError(f"{project} already exists; name a new folder for --keep")
    cleanup = None if project else tempfile.mkdtemp(prefix="team-memory-demo-")
    project = project or os.path.join(cleanup, "project")
    try:
        memory_root = build_demo_project(project)
        count = sum(1 for _ in iter_memory_files(memory_root, load_config(memory_root)))
        print(ctx.color(f"Demo store: {count} memories in {memory_root}", "1"))
        print("Each prompt below goes through the real UserPromptSubmit hook; its output is what Claude sees.\n")
        env = dict(os.environ, CLAUDE_PLUGIN_ROOT=PLUGIN_ROOT, CLAUDE_PROJECT_DIR=project)
        for prompt in prompts:
            print(ctx.color(f"> {prompt}", "36"))
            payload = {"session_id": "demo", "transcript_path": "", "cwd": project,
                       "hook_event_name": "UserPromptSubmit", "prompt": prompt}
            out = subprocess.run([sys.executable, os.path.join(PLUGIN_ROOT, "hooks", "user_prompt_submit.py")],
                                 input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=30).stdout
            print(out.rstrip() if out.strip() else "(nothing injected)" + RETIRED_NOTE.get(prompt, ""))
            print()
        if ctx.args.keep:
            print(f"Kept the demo project in {project}; try: {CLI} search "
                  f"\"where do we keep sessions\" --explain --root {project}")
    finally:
        if cleanup:
            shutil.rmtree(cleanup, ignore_errors=True)
    return 0
