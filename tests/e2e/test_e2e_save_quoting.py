"""Saving through the real Claude Code CLI with awkward titles: the fake model runs the save command
exactly as the skill and ``/memory-save`` tell it to quote it, and the memory is saved with the exact
title, auto-approved (no ``--allowedTools``). Marked ``e2e``."""
from __future__ import annotations

import json
import re

import pytest

import e2e_support as e2e

pytestmark = pytest.mark.e2e

TITLES = ["Don't use flake8, use ruff", 'Say "ruff" and $HOME, `ls`\nnot bash']
GUIDES = [".claude/skills/team-memory/SKILL.md", ".claude/commands/memory-save.md"]


def advised_apostrophe(guide: str) -> str:
    """The form the guide tells Claude to write an apostrophe in, inside the single-quoted record."""
    text = (e2e.REPO / guide).read_text(encoding="utf-8")
    found = re.search(r"apostrophe (?:inside it )?(?:as|written)\s+`([^`]+)`", text)
    assert found, guide
    return found.group(1)


@pytest.mark.parametrize("guide", GUIDES)
@pytest.mark.parametrize("title", TITLES)
def test_a_save_as_the_guide_quotes_it_keeps_the_exact_title(tmp_path, guide, title):
    e2e.require_claude()
    project = e2e.plugin_project(tmp_path)
    record = {"category": "preference", "title": title, "tags": ["lint"],
              "content": {"topic": "linter", "value": "ruff, it's the team's only linter",
                          "reason": "One linter, one config file.", "strength": "default"}}
    inside = json.dumps(record).replace("'", advised_apostrophe(guide))
    # Claude Code puts the plugin's path for ${CLAUDE_PLUGIN_ROOT} into the text the model reads
    command = f"python3 \"{e2e.REPO}/scripts/memory.py\" save --record '{inside}'"
    result = e2e.run_claude(project, "save that", e2e.REPO, label="save quoting",
                            tool_use={"name": "Bash", "input": {"command": command}})
    assert result.returncode == 0, result.describe()
    saved = [json.loads(p.read_text()) for p in (project / ".claude" / "memory").rglob("*.json")]
    assert [m["title"] for m in saved] == [" ".join(title.split())], result.describe()  # a title is one line
