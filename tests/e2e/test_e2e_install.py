"""Installing team-memory the Claude Code way, with the real client and a scratch HOME each time (offline):
README's commands (``claude plugin marketplace add <clone>``, ``claude plugin install team-memory@team-memory``),
the team setting ``install --plugin`` writes (a teammate's fresh clone gets the plugin from a ``file://`` git
URL), an update to a newer version, and hooks with only ``python`` on PATH. Marked ``e2e``: skipped without
the CLI, mandatory in CI (``.ci/run``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import e2e_support as e2e
import helpers

pytestmark = pytest.mark.e2e

MEMORY = helpers.record("decision", "use-redis-for-sessions", "Use Redis for session storage", tags=["redis", "sessions"])
PROMPT = "how should the login service store redis sessions in production"
TITLE = "[DECISION] Use Redis for session storage"
VERSION = json.loads((e2e.REPO / ".claude-plugin" / "plugin.json").read_text())["version"]


@pytest.fixture(scope="module")
def claude_bin():
    return e2e.require_claude()


def fresh_repository(folder: Path) -> Path:
    """A git repository with one saved memory, as a team has it."""
    (folder / ".claude").mkdir(parents=True)
    e2e.git("init", "-q", cwd=folder)
    helpers.write(folder / ".claude" / "memory", MEMORY)
    return folder


def team_setting_clone(tmp_path: Path) -> tuple:
    """``(source, clone)``: a team repository with ``install --plugin --source file://<source>`` committed, and a
    teammate's fresh clone of it."""
    source = e2e.checkout_repository(tmp_path / "team-memory")
    team = fresh_repository(tmp_path / "team")
    proc = helpers.run_cli("install", "--plugin", team, "--source", source.as_uri())
    assert proc.returncode == 0, proc.stderr
    e2e.git("add", "-A", cwd=team)
    e2e.git("commit", "-qm", "team-memory for everyone", cwd=team)
    clone = tmp_path / "teammate" / "app"
    e2e.git("clone", "-q", str(team), str(clone), cwd=tmp_path)
    return source, clone


def loaded(result: e2e.E2EResult) -> dict:
    """The team-memory plugin the session loaded (``{}`` when none)."""
    return next((p for p in e2e.init_plugins(result) if p.get("name") == "team-memory"), {})


def recalled(result: e2e.E2EResult) -> bool:
    hooks = result.hook_responses("UserPromptSubmit")
    return result.seen(TITLE) and any(TITLE in (h.get("stdout") or "") for h in hooks)


def test_marketplace_add_and_install_from_a_clone_then_a_prompt_recalls(claude_bin, tmp_path):
    """README's shell commands, from a clone of this repository: both exit 0, the plugin is installed at
    user scope under its version, and a prompt in another repository gets its memory."""
    clone = e2e.checkout_repository(tmp_path / "team-memory")
    home = tmp_path / "claude-home"
    home.mkdir()
    added = e2e.claude_cli(home, "plugin", "marketplace", "add", str(clone))
    assert added.returncode == 0 and "Successfully added marketplace: team-memory" in added.stdout, added
    installed = e2e.claude_cli(home, "plugin", "install", "team-memory@team-memory")
    assert installed.returncode == 0 and "Successfully installed plugin: team-memory@team-memory" in installed.stdout, installed
    record = json.loads((home / ".claude" / "plugins" / "installed_plugins.json").read_text())["plugins"]
    (entry,) = record["team-memory@team-memory"]
    assert entry["scope"] == "user" and entry["version"] == VERSION
    assert Path(entry["installPath"]) == home / ".claude" / "plugins" / "cache" / "team-memory" / "team-memory" / VERSION

    project = fresh_repository(tmp_path / "app")
    result = e2e.run_claude_home(home, project, PROMPT, label="marketplace install")
    assert result.returncode == 0, result.describe()
    assert loaded(result).get("version") == VERSION, e2e.init_plugins(result)
    assert recalled(result), result.describe()


def test_install_with_marketplace_does_both_steps_at_once(claude_bin, tmp_path):
    """README's one-step form: ``claude plugin install team-memory --marketplace <clone>``."""
    clone = e2e.checkout_repository(tmp_path / "team-memory")
    home = tmp_path / "claude-home"
    home.mkdir()
    proc = e2e.claude_cli(home, "plugin", "install", "team-memory", "--marketplace", str(clone))
    assert proc.returncode == 0 and "Successfully installed plugin: team-memory@team-memory" in proc.stdout, proc
    record = json.loads((home / ".claude" / "plugins" / "installed_plugins.json").read_text())["plugins"]
    assert [e["version"] for e in record["team-memory@team-memory"]] == [VERSION]


def test_the_team_setting_brings_the_plugin_to_a_fresh_clone(claude_bin, tmp_path):
    """``install --plugin --source file://...`` committed; a teammate clones the repository: in a folder they
    trusted, ``claude -p`` installs the marketplace (a sparse checkout: the runtime only) and the plugin, and the
    first prompt recalls; in a folder they did not trust, Claude Code reads none of the repository's plugin settings."""
    source, clone = team_setting_clone(tmp_path)

    untrusted = tmp_path / "home-untrusted"
    untrusted.mkdir()
    result = e2e.run_claude_home(untrusted, clone, PROMPT, label="team setting, untrusted",
                                 env=e2e.home_env(untrusted, CLAUDE_CODE_SYNC_PLUGIN_INSTALL="1"))
    assert result.returncode == 0 and not loaded(result) and not result.seen(TITLE), result.describe()

    home = tmp_path / "claude-home"
    home.mkdir()
    e2e.trust_folder(home, clone)
    result = e2e.run_claude_home(home, clone, PROMPT, label="team setting, trusted",
                                 env=e2e.home_env(home, CLAUDE_CODE_SYNC_PLUGIN_INSTALL="1"))
    assert result.returncode == 0, result.describe()
    copy = Path(loaded(result).get("path", ""))
    assert copy == home / ".claude" / "plugins" / "cache" / "team-memory" / "team-memory" / VERSION
    assert recalled(result), result.describe()
    # the setting checks the marketplace out sparsely: the installed copy is the runtime, without tests/ or docs/
    assert (copy / "hooks.json").is_file() and (copy / "scripts" / "team_memory").is_dir()
    assert not [name for name in ("tests", "docs", "benchmarks") if (copy / name).exists()]


def test_a_print_mode_teammate_installs_with_the_two_commands_docs_give(claude_bin, tmp_path):
    """A teammate who only runs ``claude -p``, in a trusted clone, without ``CLAUDE_CODE_SYNC_PLUGIN_INSTALL``:
    no run loads the plugin, and ``claude plugin install team-memory@team-memory`` alone fails (the marketplace
    the setting names is not added yet); ``claude plugin marketplace add <source>`` first, then the same install,
    and every later ``claude -p`` recalls (docs/install.md gives exactly these commands)."""
    source, clone = team_setting_clone(tmp_path)
    home = tmp_path / "claude-home"
    home.mkdir()
    e2e.trust_folder(home, clone)
    result = e2e.run_claude_home(home, clone, PROMPT, label="team setting, print mode, no sync")
    assert result.returncode == 0 and not loaded(result), result.describe()

    def cli(*args):
        return subprocess.run([str(claude_bin), *args], capture_output=True, text=True, timeout=120,
                              env=e2e.home_env(home), cwd=str(clone))

    alone = cli("plugin", "install", "team-memory@team-memory")
    assert alone.returncode != 0 and "not found in marketplace" in alone.stdout + alone.stderr, alone
    added = cli("plugin", "marketplace", "add", str(source))
    assert added.returncode == 0 and "Successfully added marketplace: team-memory" in added.stdout, added
    installed = cli("plugin", "install", "team-memory@team-memory")
    assert installed.returncode == 0 and "Successfully installed plugin" in installed.stdout, installed
    result = e2e.run_claude_home(home, clone, PROMPT, label="team setting, print mode, installed")
    assert loaded(result).get("version") == VERSION and recalled(result), result.describe()


def test_a_newer_version_replaces_the_old_one_cleanly(claude_bin, tmp_path):
    """0.0.1 installed and used (compiled code kept in the user's cache: PYTHONDONTWRITEBYTECODE), then the
    marketplace moves to 0.0.2: after ``claude plugin marketplace update`` the next session loads 0.0.2 from its
    own folder, recalls, and compiles its own code in a folder of its own; nothing is written into either copy."""
    source = e2e.checkout_repository(tmp_path / "team-memory", version="0.0.1")
    team = fresh_repository(tmp_path / "team")
    assert helpers.run_cli("install", "--plugin", team, "--source", source.as_uri()).returncode == 0
    home = tmp_path / "claude-home"
    home.mkdir()
    e2e.trust_folder(home, team)
    env = e2e.home_env(home, CLAUDE_CODE_SYNC_PLUGIN_INSTALL="1", PYTHONDONTWRITEBYTECODE="1")
    cache = home / ".claude" / "plugins" / "cache" / "team-memory" / "team-memory"

    first = e2e.run_claude_home(home, team, PROMPT, env=env, label="version 0.0.1")
    assert loaded(first).get("version") == "0.0.1" and recalled(first), first.describe()

    e2e.set_version(source, "0.0.2")
    e2e.git("commit", "-qam", "0.0.2", cwd=source)
    updated = e2e.claude_cli(home, "plugin", "marketplace", "update", "team-memory", env=env)
    assert updated.returncode == 0, updated
    second = e2e.run_claude_home(home, team, PROMPT, env=env, label="version 0.0.2")
    assert loaded(second).get("version") == "0.0.2", e2e.init_plugins(second)
    assert Path(loaded(second)["path"]) == cache / "0.0.2" and recalled(second), second.describe()

    pycache = home / ".cache" / "team-memory" / "pycache"
    compiled = {version: [p for p in pycache.rglob("*.bin") if f"{os.sep}{version}{os.sep}" in str(p)]
                for version in ("0.0.1", "0.0.2")}
    assert compiled["0.0.1"] and compiled["0.0.2"], sorted(str(p) for p in pycache.rglob("*"))[:20]
    assert not [p for p in cache.rglob("*") if p.name == "__pycache__" or p.suffix == ".pyc"]


def test_with_only_python_on_path_the_installed_hooks_recall(claude_bin, tmp_path):
    """A machine whose Python is called ``python`` (no ``python3``): the real client runs hooks.json's command,
    and the prompt hook recalls; the /team-memory:memory command lists the store."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(sys.executable, bin_dir / "python")
    home = tmp_path / "claude-home"
    home.mkdir()
    project = fresh_repository(tmp_path / "app")
    result = e2e.run_claude_home(home, project, PROMPT, env=e2e.home_env(home, PATH=str(bin_dir)),
                                 claude_args=("--plugin-dir", str(e2e.REPO)), label="python only")
    assert result.returncode == 0, result.describe()
    assert recalled(result), result.describe()
    assert all(h.get("exit_code") == 0 for h in result.hook_responses("UserPromptSubmit")), result.describe()
    # /team-memory:memory's listing falls back to python too (its command tries the three names)
    listing = e2e.run_claude_home(home, project, "/team-memory:memory", env=e2e.home_env(home, PATH=str(bin_dir)),
                                  claude_args=("--plugin-dir", str(e2e.REPO)), label="python only, /memory")
    assert listing.returncode == 0 and listing.seen("use-redis-for-sessions  Use Redis for session storage"), \
        listing.describe()
