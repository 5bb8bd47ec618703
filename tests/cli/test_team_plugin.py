"""``install --plugin`` / ``uninstall --plugin``: the project setting that offers the plugin to the whole team
(two entries in ``.claude/settings.json``, everything else kept, idempotent, backed up, undone exactly)."""
from __future__ import annotations

import json

import pytest

from helpers import REPO, run_cli
from team_memory.cli import install
from team_memory.cli.install import InstallError
from test_install import snapshot

SPARSE = {"sparsePaths": list(install.SPARSE_PATHS)}
THEIRS = {"permissions": {"allow": ["Bash(npm test:*)"]}, "enabledPlugins": {"linter@tools": True},
          "extraKnownMarketplaces": {"tools": {"source": {"source": "github", "repo": "acme/tools"}}},
          "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]}}


@pytest.fixture()
def repo(tmp_path):
    repo = tmp_path / "app"
    (repo / ".git").mkdir(parents=True)
    return repo


def settings(repo) -> dict:
    return json.loads((repo / ".claude" / "settings.json").read_text())


def test_names_match_the_manifests():
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    assert install.MARKETPLACE == market["name"]
    assert install.PLUGIN_ID == f"{plugin['name']}@{market['name']}"
    assert plugin["repository"].endswith("/" + install.DEFAULT_SOURCE)


def test_writes_the_two_entries_and_keeps_everything_else(repo):
    (repo / ".claude").mkdir()
    original = json.dumps(THEIRS, indent=4)
    (repo / ".claude" / "settings.json").write_text(original)
    proc = run_cli("install", "--plugin", repo)
    assert proc.returncode == 0, proc.stderr
    data = settings(repo)
    assert data["extraKnownMarketplaces"] == {**THEIRS["extraKnownMarketplaces"],
                                              "team-memory": {"source": {"source": "github", "repo": "team-memory/team-memory", **SPARSE}}}
    assert data["enabledPlugins"] == {"linter@tools": True, "team-memory@team-memory": True}
    assert {k: v for k, v in data.items() if k not in ("extraKnownMarketplaces", "enabledPlugins")} == \
        {k: v for k, v in THEIRS.items() if k not in ("extraKnownMarketplaces", "enabledPlugins")}
    assert (repo / ".claude" / "settings.json.bak").read_text() == original
    assert ".claude/memory/index.md" in (repo / ".gitignore").read_text()
    assert not (repo / ".claude" / "team-memory").exists() and not (repo / ".claude" / "memory").exists()

    before = snapshot(repo)
    proc = run_cli("install", "--plugin", repo)
    assert proc.returncode == 0 and "unchanged" in proc.stdout
    assert snapshot(repo) == before, "a second run changed a file"

    proc = run_cli("uninstall", "--plugin", repo)
    assert proc.returncode == 0, proc.stderr
    assert ".claude/memory/" not in proc.stdout  # no store was ever made: none is claimed kept
    assert settings(repo) == THEIRS
    assert run_cli("uninstall", "--plugin", repo).stdout.startswith("the team-memory plugin is not enabled")


def test_a_file_it_created_goes_again_on_undo(repo):
    assert run_cli("install", "--plugin", repo, "--source", "file:///srv/git/team-memory").returncode == 0
    assert settings(repo) == {"extraKnownMarketplaces": {"team-memory": {"source": {"source": "git", "url": "file:///srv/git/team-memory", **SPARSE}}},
                              "enabledPlugins": {"team-memory@team-memory": True}}
    assert not (repo / ".claude" / "settings.json.bak").exists()
    proc = run_cli("uninstall", "--plugin", repo, "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["settings"]["removed"] is True
    assert not (repo / ".claude" / "settings.json").exists()


def test_a_new_source_replaces_ours_only(repo):
    assert run_cli("install", "--plugin", repo).returncode == 0
    assert run_cli("install", "--plugin", repo, "--source", "git@git.example.com:tools/team-memory.git").returncode == 0
    assert settings(repo)["extraKnownMarketplaces"] == {
        "team-memory": {"source": {"source": "git", "url": "git@git.example.com:tools/team-memory.git", **SPARSE}}}


@pytest.mark.parametrize("text, expected", [
    ("acme/team-memory", {"source": "github", "repo": "acme/team-memory", **SPARSE}),
    ("https://git.example.com/tools/team-memory.git", {"source": "git", "url": "https://git.example.com/tools/team-memory.git", **SPARSE}),
    ("git@github.com:acme/team-memory.git", {"source": "git", "url": "git@github.com:acme/team-memory.git", **SPARSE}),
    ("file:///srv/git/team-memory", {"source": "git", "url": "file:///srv/git/team-memory", **SPARSE}),
    ("/opt/team-memory", {"source": "directory", "path": "/opt/team-memory"}),
])
def test_marketplace_sources(text, expected):
    assert install.marketplace_source(text) == expected


def test_the_sparse_checkout_holds_the_whole_runtime():
    """Every runtime file (the drop-in's list), the manifests and the commands and skill lie at the top or under a
    sparse folder: a plugin installed from a sparse checkout misses nothing it runs."""
    from team_memory.cli import install
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    needed = install.runtime_files(str(REPO)) + [".claude-plugin/plugin.json", ".claude-plugin/marketplace.json",
                                                 plugin["commands"][2:].rstrip("/") + "/memory.md",
                                                 plugin["skills"][2:].rstrip("/") + "/team-memory/SKILL.md"]
    outside = [rel for rel in needed if "/" in rel and rel.split("/")[0] not in install.SPARSE_PATHS]
    assert not outside, outside
    assert all((REPO / rel).is_file() for rel in needed)


@pytest.mark.parametrize("text", ["", "team-memory", "a b/c", "javascript:alert(1)"])
def test_unreadable_sources_are_refused(text):
    with pytest.raises(InstallError, match="marketplace source"):
        install.marketplace_source(text)


@pytest.mark.parametrize("content", ["{not json", '{"enabledPlugins": []}', '{"extraKnownMarketplaces": "x"}'])
def test_unusable_settings_are_refused_and_nothing_changes(repo, content):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(content)
    before = snapshot(repo)
    proc = run_cli("install", "--plugin", repo)
    assert proc.returncode == 1 and "Nothing was changed" in proc.stderr, proc.stderr
    assert snapshot(repo) == before


def test_the_drop_in_and_the_plugin_setting_refuse_each_other(repo):
    """Both at once would run every hook twice."""
    assert run_cli("install", repo).returncode == 0
    proc = run_cli("install", "--plugin", repo)
    assert proc.returncode == 1 and "uninstall PATH" in proc.stderr
    assert "enabledPlugins" not in settings(repo)
    assert run_cli("uninstall", repo).returncode == 0
    assert run_cli("install", "--plugin", repo).returncode == 0
    proc = run_cli("install", repo)
    assert proc.returncode == 1 and "uninstall --plugin PATH" in proc.stderr
    assert not (repo / ".claude" / "team-memory").exists()


def test_outside_git_it_needs_no_git(tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    proc = run_cli("install", "--plugin", folder)
    assert proc.returncode == 1 and "--no-git" in proc.stderr
    assert run_cli("install", "--plugin", folder, "--no-git").returncode == 0


def test_source_without_plugin_is_a_usage_error(repo):
    proc = run_cli("install", repo, "--source", "acme/x")
    assert proc.returncode == 1 and "--source goes with --plugin" in proc.stderr
    assert not (repo / ".claude").exists()
