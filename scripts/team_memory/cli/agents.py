"""``install --agent NAME``: the same memory for every agent the team uses.

Every agent gets the drop-in runtime (``install.py``: ``.claude/team-memory/``, committed with the
repository) and the store; then, per agent, the file that agent reads, merged so every other setting
is kept (a changed file is backed up to ``<file>.bak`` first; a second run changes nothing):

- ``claude``: ``.claude/settings.json`` hooks, commands and skill (``install.install_project``);
- ``codex``: ``.codex/hooks.json``, the same hook launchers (Codex reads Claude Code's hook shape;
  its payloads are translated where they differ: ``records.hookio.tool_calls`` for ``apply_patch``,
  ``capture.transcript.from_rollout`` for its transcript).

A link anywhere on the way to a file we write is refused (``base.safefs``).
"""
from __future__ import annotations

import json
import os

from ..base.safefs import UnsafePath, is_link, read_regular
from .install import (HOOK_ROOT, RUNTIME_REL, SOURCE_ROOT, _project_dir, check_source, copy_runtime, drop_in_hooks,
                      ensure_gitignore, ensure_store, in_git_repository, install_project, uninstall_project)
from .settingsjson import InstallError, merge_settings, without_our_hooks, write_settings

AGENTS = ("claude", "codex")
# Codex runs a hook's command in the session's folder and names no project variable: the launchers are found from
# the repository root (``./`` keeps settingsjson's marker, ``/.claude/team-memory/hooks/``, in every command).
CODEX_ROOT = "./.claude/team-memory"
CODEX_FILE = (".codex", "hooks.json")
# Codex's tool names in hook payloads (0.171.0): its shell is "Bash", its patch tool "apply_patch".
CODEX_MATCHER = {"PreToolUse": "Bash|apply_patch", "PostToolUse": "Bash|apply_patch"}
CODEX_ASKS = ("Codex runs a project's hooks only in a trusted project and only once you have reviewed them. "
              "On the first start in this repository (start codex at its root) it asks whether you trust the folder: "
              "answer yes. It then says the project's hooks need review: open the review and approve the five "
              "team-memory hooks (their commands run .claude/team-memory/hooks/*.py). "
              "For automation: codex exec --trust --dangerously-bypass-hook-trust.")


def codex_hooks(source: str) -> dict:
    """hooks.json's groups for Codex: launchers from the repository root, tool matchers in Codex's names."""
    out = {}
    for event, groups in drop_in_hooks(source).items():
        for group in groups:
            for hook in group.get("hooks", []):
                if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                    hook["command"] = hook["command"].replace(HOOK_ROOT, CODEX_ROOT)
            if event in CODEX_MATCHER:
                group["matcher"] = CODEX_MATCHER[event]
        out[event] = groups
    return out


def _safe_path(project: str, parts: tuple) -> str:
    """``project/parts...``, refused when any part of the way is a link (nothing is followed)."""
    path = project
    for part in parts:
        path = os.path.join(path, part)
        if is_link(path):
            raise InstallError(f"{os.path.relpath(path, project)} is a symbolic link; not followed, nothing changed")
    return path


def read_json_file(path: str) -> tuple:
    """``(object, original text or None)`` of a JSON settings file read without following a link."""
    try:
        raw, _ = read_regular(path, limit=4 * 1024 * 1024)
    except FileNotFoundError:
        return {}, None
    except (OSError, UnsafePath) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it (or move it away) and run again") from None
    hooks = data.get("hooks", {}) if isinstance(data, dict) else None
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise InstallError(f"{path}: expected a JSON object whose \"hooks\" maps events to lists; fix it and run again")
    return data, text


def _write_hooks(project: str, parts: tuple, ours: dict | None) -> dict:
    """Merge ``ours`` into (or, None, take our hooks out of) the hooks file at ``parts``."""
    path = _safe_path(project, parts)
    data, original = read_json_file(path)
    if ours is not None:
        data = merge_settings(data, ours)
    else:
        hooks = without_our_hooks(data.get("hooks", {}))
        data = dict(data, hooks=hooks) if hooks else {k: v for k, v in data.items() if k != "hooks"}
    if original is None and ours is None:
        return {"path": path, "changed": False, "backup": None, "removed": False}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return write_settings(path, data, original, delete_if_empty=ours is None)


def install_agents(project: str, agents: list, source: str = SOURCE_ROOT, *, allow_no_git: bool = False) -> dict:
    """Install for each of ``agents``; returns ``{"project", "agents": {name: report}}``."""
    unknown = [a for a in agents if a not in AGENTS]
    if unknown:
        raise InstallError(f"unknown agent {unknown[0]!r}; choose from {', '.join(AGENTS)}")
    project, source = _project_dir(project), os.path.abspath(source)
    check_source(source)
    if not allow_no_git and not in_git_repository(project):
        raise InstallError(f"{project} is not in a git repository (no .git at or above it): teammates get "
                           "team-memory through git, so run 'git init' there first, or pass --no-git to install anyway")
    reports = {}
    if "claude" in agents:
        reports["claude"] = install_project(project, source, allow_no_git=allow_no_git)
    else:
        if os.path.samefile(project, source):
            raise InstallError("that is the team-memory checkout itself; install into another repository")
        _safe_path(project, RUNTIME_REL)
        copy_runtime(source, os.path.join(project, *RUNTIME_REL))
        ensure_store(project)
        ensure_gitignore(project)
    if "codex" in agents:
        reports["codex"] = {"hooks": _write_hooks(project, CODEX_FILE, codex_hooks(source)), "asks": CODEX_ASKS}
    return {"project": project, "agents": reports}


def uninstall_agents(project: str, agents: list) -> dict:
    """Take each agent's entries out again; memories, the runtime (unless ``claude``) and other settings stay."""
    project = _project_dir(project)
    reports = {}
    if "codex" in agents:
        reports["codex"] = {"hooks": _write_hooks(project, CODEX_FILE, None)}
    if "claude" in agents:
        reports["claude"] = uninstall_project(project)
    return {"project": project, "agents": reports}
