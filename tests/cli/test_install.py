"""``install`` / ``uninstall``: the drop-in install into another repository."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import helpers
from helpers import REPO, run_cli
from team_memory.cli import install
from team_memory.cli.install import HOOK_MARKER

USER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "env": {"FOO": "1"},
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo user-hook"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
    },
}


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "app"
    (path / ".git").mkdir(parents=True)
    return path


def settings(repo) -> dict:
    return json.loads((repo / ".claude" / "settings.json").read_text())


def commands_of(config: dict):
    return [h["command"] for groups in config.get("hooks", {}).values() for g in groups for h in g["hooks"]]


def hooks_json_commands(source=REPO) -> list:
    return commands_of(json.loads((source / "hooks.json").read_text()))


def installed_commands() -> list:
    return [c.replace("${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PROJECT_DIR}/.claude/team-memory") for c in hooks_json_commands()]


def snapshot(path):
    """Every file under ``path`` with its bytes (to prove a refused or repeated run changed nothing)."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def run_installed_hook(project, command, payload, cwd=None):
    """Run a hook command from settings.json as Claude Code does: sh -c, CLAUDE_PROJECT_DIR set."""
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    env.pop("CLAUDE_PLUGIN_ROOT", None)
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                          cwd=cwd or project, env=env, timeout=30)


def test_install_into_a_fresh_repository(repo):
    proc = run_cli("install", repo)
    assert proc.returncode == 0, proc.stderr
    runtime = repo / ".claude" / "team-memory"
    for rel in ("hooks.json", "LICENSE", "scripts/memory.py", "scripts/team_memory/recall/retrieve.py",
                "templates/memory-config.default.json", "hooks/user_prompt_submit.py"):
        assert (runtime / rel).is_file(), rel
    assert not list(runtime.rglob("__pycache__")) and not list(runtime.rglob("*.pyc"))
    assert commands_of(settings(repo)) == installed_commands()
    assert "${CLAUDE_PLUGIN_ROOT}" not in (repo / ".claude" / "settings.json").read_text()
    assert not (repo / ".claude" / "settings.json.bak").exists()  # nothing to back up
    config = json.loads((repo / ".claude" / "memory" / "memory-config.json").read_text())
    assert config["retrieval"]["enabled"] is True
    ignored = (repo / ".gitignore").read_text().splitlines()
    for line in (".claude/memory/index.md", ".claude/memory/.lock", ".claude/memory/.cache/",
                 ".claude/memory/.quarantine/"):  # a quarantined file may hold a secret: never committed
        assert line in ignored
    for rel in ("commands/memory.md", "commands/memory-search.md", "commands/memory-save.md",
                "skills/team-memory/SKILL.md"):
        text = (repo / ".claude" / rel).read_text()
        assert "${CLAUDE_PLUGIN_ROOT}" not in text, rel
        assert '"${CLAUDE_PROJECT_DIR}/.claude/team-memory/scripts/memory.py"' in text, rel
    assert "installed in" in proc.stdout and "settings.json" in proc.stdout


def test_installed_hook_recalls_memories_and_survives_a_clone(repo, tmp_path):
    assert run_cli("install", repo).returncode == 0
    helpers.write(repo / ".claude" / "memory", helpers.record("decision", "use-redis", "Use Redis for sessions",
                                                             tags=["redis"]))
    (command,) = [c for c in commands_of(settings(repo)) if "user_prompt_submit" in c]
    payload = {"prompt": "how do we store redis sessions", "cwd": str(repo), "hook_event_name": "UserPromptSubmit"}
    out = run_installed_hook(repo, command, payload)
    assert out.returncode == 0 and b"[DECISION] Use Redis for sessions" in out.stdout, out

    clone = tmp_path / "clone"  # what a teammate gets: the committed files, at another path
    shutil.copytree(repo, clone, ignore=shutil.ignore_patterns("index.md", ".lock", "__pycache__"))
    shutil.rmtree(repo)
    out = run_installed_hook(clone, command, dict(payload, cwd=str(clone)))
    assert out.returncode == 0 and b"[DECISION] Use Redis for sessions" in out.stdout, out
    cli = subprocess.run(["python3", str(clone / ".claude/team-memory/scripts/memory.py"), "list"],
                         capture_output=True, text=True, cwd=clone, timeout=60)
    assert cli.returncode == 0 and "use-redis" in cli.stdout, cli.stderr


def test_install_keeps_existing_settings_and_backs_them_up(repo):
    (repo / ".claude").mkdir()
    original = json.dumps(USER_SETTINGS, indent=4)
    (repo / ".claude" / "settings.json").write_text(original)
    (repo / ".gitignore").write_text("node_modules/")  # no trailing newline
    assert run_cli("install", repo).returncode == 0
    merged = settings(repo)
    assert merged["permissions"] == USER_SETTINGS["permissions"] and merged["env"] == USER_SETTINGS["env"]
    assert merged["hooks"]["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]
    assert merged["hooks"]["UserPromptSubmit"][0] == USER_SETTINGS["hooks"]["UserPromptSubmit"][0]
    assert sorted(commands_of(merged)) == sorted(commands_of(USER_SETTINGS) + installed_commands())
    assert (repo / ".claude" / "settings.json.bak").read_text() == original
    assert (repo / ".gitignore").read_text().startswith("node_modules/\n\n# team-memory")


def test_install_is_idempotent(repo):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    assert run_cli("install", repo).returncode == 0
    first = snapshot(repo)
    again = run_cli("install", repo, "--json")
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["settings"]["changed"] is False and report["gitignore_added"] == []
    assert report["markdown_written"] == [] and report["config_created"] is False
    assert snapshot(repo) == first
    assert sorted(commands_of(settings(repo))) == sorted(commands_of(USER_SETTINGS) + installed_commands())


def test_reinstall_upgrades_in_place(repo):
    assert run_cli("install", repo).returncode == 0
    runtime = repo / ".claude" / "team-memory"
    (runtime / "scripts" / "team_memory" / "obsolete.py").write_text("# from an older version\n")
    (runtime / "hooks" / "user_prompt_submit.py").write_text("# old launcher\n")
    data = settings(repo)
    # an older version had another hook; a teammate added their own hook to our group
    data["hooks"]["SessionEnd"] = [{"hooks": [{"type": "command",
                                               "command": 'python3 "$CLAUDE_PROJECT_DIR/.claude/team-memory/hooks/old.py"'}]}]
    data["hooks"]["UserPromptSubmit"][0]["hooks"].append({"type": "command", "command": "echo mine"})
    (repo / ".claude" / "settings.json").write_text(json.dumps(data))
    memory = helpers.write(repo / ".claude" / "memory", helpers.record("runbook", "fix-it", "Fix the build"))
    (repo / ".claude" / "memory" / "memory-config.json").write_text('{"retrieval": {"max_inject": 3}}')

    assert run_cli("install", repo).returncode == 0
    assert not (runtime / "scripts" / "team_memory" / "obsolete.py").exists()
    assert (runtime / "hooks" / "user_prompt_submit.py").read_bytes() == (REPO / "hooks" / "user_prompt_submit.py").read_bytes()
    commands = commands_of(settings(repo))
    assert "SessionEnd" not in settings(repo)["hooks"]
    assert "echo mine" in commands
    assert [c for c in commands if HOOK_MARKER in c] == installed_commands()
    assert memory.exists() and json.loads((repo / ".claude/memory/memory-config.json").read_text()) == \
        {"retrieval": {"max_inject": 3}}
    assert not [p for p in (repo / ".claude").iterdir() if p.name.startswith(".team-memory.")]  # no staging left


def test_every_hooks_json_entry_is_installed(repo, tmp_path):
    """Hooks added to hooks.json later (guards, capture) are installed with no change to the installer."""
    source = tmp_path / "source"
    for item in ("hooks", "scripts", "templates", ".claude"):
        shutil.copytree(REPO / item, source / item, ignore=shutil.ignore_patterns("memory"))
    (source / "scripts" / "team_memory" / "__pycache__").mkdir(exist_ok=True)
    (source / "scripts" / "team_memory" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    config = json.loads((REPO / "hooks.json").read_text())
    config["hooks"]["PreToolUse"] = [{"matcher": "Write|Edit|MultiEdit|Bash", "hooks": [
        {"type": "command", "command": 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/pre_tool_use.py"', "timeout": 5}]}]
    config["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/stop.py"'}]}]
    (source / "hooks.json").write_text(json.dumps(config))
    report = install.install_project(str(repo), str(source))
    assert report["hook_events"] == sorted(config["hooks"])
    installed = settings(repo)["hooks"]
    assert installed["PreToolUse"][0]["matcher"] == "Write|Edit|MultiEdit|Bash"
    assert installed["PreToolUse"][0]["hooks"][0] == {
        "type": "command", "command": 'python3 "${CLAUDE_PROJECT_DIR}/.claude/team-memory/hooks/pre_tool_use.py"', "timeout": 5}
    assert commands_of({"hooks": installed}) == [c.replace("${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PROJECT_DIR}/.claude/team-memory")
                                      for c in commands_of(config)]
    assert not list((repo / ".claude" / "team-memory").rglob("*.pyc"))


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'])
def test_install_refuses_unusable_settings_and_changes_nothing(repo, content):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(content)
    before = snapshot(repo)
    proc = run_cli("install", repo)
    assert proc.returncode == 1
    assert "settings.json" in proc.stderr and "Nothing was changed" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(repo) == before


def test_install_refuses_the_checkout_and_missing_folders(tmp_path):
    proc = run_cli("install", REPO)
    assert proc.returncode == 1 and "checkout itself" in proc.stderr
    proc = run_cli("install", tmp_path / "nowhere")
    assert proc.returncode == 1 and "is not a folder" in proc.stderr
    assert run_cli("install").returncode == 2  # PATH is required


def test_install_keeps_a_users_own_command_of_the_same_name(repo):
    (repo / ".claude" / "commands").mkdir(parents=True)
    mine = repo / ".claude" / "commands" / "memory.md"
    mine.write_text("---\ndescription: my own memory command\n---\nmine\n")
    proc = run_cli("install", repo, "--json")
    report = json.loads(proc.stdout)
    assert report["markdown_kept"] == [".claude/commands/memory.md"]
    assert mine.read_text().endswith("mine\n")
    assert run_cli("uninstall", repo).returncode == 0
    assert mine.exists()  # not ours: never removed


def test_uninstall_reverses_install_and_keeps_the_rest(repo):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    assert run_cli("install", repo).returncode == 0
    memory = helpers.write(repo / ".claude" / "memory", helpers.record("decision", "keep-me", "Keep this memory"))
    gitignore = (repo / ".gitignore").read_text()
    proc = run_cli("uninstall", repo, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["runtime_removed"] and len(report["markdown_removed"]) == 4
    assert settings(repo) == USER_SETTINGS
    assert not (repo / ".claude" / "team-memory").exists()
    assert not (repo / ".claude" / "commands").exists() and not (repo / ".claude" / "skills").exists()
    assert memory.exists() and (repo / ".claude" / "memory" / "memory-config.json").exists()
    assert (repo / ".gitignore").read_text() == gitignore
    again = run_cli("uninstall", repo)  # nothing left to remove: still fine
    assert again.returncode == 0 and settings(repo) == USER_SETTINGS


def test_uninstall_of_a_fresh_install_leaves_no_settings_file(repo):
    assert run_cli("install", repo).returncode == 0
    assert run_cli("uninstall", repo).returncode == 0
    assert not (repo / ".claude" / "settings.json").exists()
    assert (repo / ".claude" / "memory" / "memory-config.json").exists()


def test_uninstall_refuses_a_folder_that_is_not_ours(repo):
    (repo / ".claude" / "team-memory").mkdir(parents=True)
    (repo / ".claude" / "team-memory" / "notes.txt").write_text("someone else's")
    proc = run_cli("uninstall", repo)
    assert proc.returncode == 1 and "not a team-memory runtime" in proc.stderr
    assert (repo / ".claude" / "team-memory" / "notes.txt").exists()


def test_install_help_has_examples():
    proc = run_cli("install", "--help")
    assert proc.returncode == 0 and "examples:" in proc.stdout and "install ~/src/app" in proc.stdout
    proc = run_cli("uninstall", "--help")
    assert proc.returncode == 0 and "examples:" in proc.stdout


def test_readme_documents_both_installs():
    readme = (REPO / "README.md").read_text()
    assert "## Install as a plugin" in readme and "## Drop-in install" in readme
    for command in ("install", "uninstall"):
        assert f"| `{command}` |" in readme


def test_drop_in_commands_allow_both_cli_forms_and_say_where_claude_must_start(tmp_path):
    (tmp_path / ".git").mkdir()
    assert run_cli("install", str(tmp_path)).returncode == 0
    text = (tmp_path / ".claude" / "commands" / "memory-save.md").read_text()
    assert ('allowed-tools: Bash(python3 "${CLAUDE_PROJECT_DIR}/.claude/team-memory/scripts/memory.py":*), '
            'Bash(python "${CLAUDE_PROJECT_DIR}/.claude/team-memory/scripts/memory.py":*), '
            'Bash(py -3 "${CLAUDE_PROJECT_DIR}/.claude/team-memory/scripts/memory.py":*), '
            "Bash(python3 .claude/team-memory/scripts/memory.py:*), Bash(python .claude/team-memory/scripts/memory.py:*), "
            "Bash(py -3 .claude/team-memory/scripts/memory.py:*)\n") in text
    assert "starts at the repository root" in text and "CLAUDE_PLUGIN_ROOT" not in text


# Tracked but not part of an install: developer tools (the `eval` command says so in a drop-in install).
DEV_ONLY = ("scripts/bench_guards.py", "scripts/make_cli_docs.py", "scripts/make_ordinary.py", "scripts/make_schemas.py",
            "scripts/triage_eval.py")


def test_install_copies_exactly_the_runtime_list(repo, tmp_path):
    """Only RUNTIME_FILES lands in the install: no egg-info (after pip install -e), no developer scripts,
    no caches; and every tracked file under hooks/, scripts/, templates/ is either runtime or DEV_ONLY."""
    tracked = subprocess.run(["git", "ls-files", "hooks", "scripts", "templates", "hooks.json", "LICENSE"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.split()
    listed = install.runtime_files(str(REPO))
    assert sorted(set(tracked) - set(DEV_ONLY)) == listed
    assert set(DEV_ONLY) <= set(tracked)  # the list names real files
    source = tmp_path / "checkout"
    skip = shutil.ignore_patterns(".git", ".cache", "tests", "benchmarks", "docs")

    def ignore(folder, names):  # ... and a virtual environment made in the checkout (thousands of files to copy)
        return set(skip(folder, names)) | {n for n in names if os.path.isfile(os.path.join(folder, n, "pyvenv.cfg"))}
    shutil.copytree(REPO, source, ignore=ignore)
    (source / "scripts" / "team_memory.egg-info").mkdir(exist_ok=True)
    (source / "scripts" / "team_memory.egg-info" / "PKG-INFO").write_text("x")
    (source / "scripts" / "team_memory" / "__pycache__").mkdir(exist_ok=True)
    (source / "scripts" / "team_memory" / "__pycache__" / "cli.cpython-311.pyc").write_text("x")
    install.install_project(str(repo), str(source))
    runtime = repo / ".claude" / "team-memory"
    copied = sorted(str(p.relative_to(runtime)) for p in runtime.rglob("*") if p.is_file())
    assert copied == listed
    assert not any("egg-info" in c or "bench_guards" in c or "make_schemas" in c or "triage_eval" in c for c in copied)


def test_eval_in_a_drop_in_install_says_why_it_is_not_there(repo):
    assert run_cli("install", repo).returncode == 0
    proc = subprocess.run([sys.executable, str(repo / ".claude" / "team-memory" / "scripts" / "memory.py"), "eval"],
                          capture_output=True, text=True, cwd=repo, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "not part of the drop-in install" in proc.stderr and "Traceback" not in proc.stderr


def test_install_outside_a_git_repository_refuses_unless_asked(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = run_cli("install", plain)
    assert proc.returncode == 1 and "not in a git repository" in proc.stderr and "--no-git" in proc.stderr
    assert not (plain / ".claude").exists()  # nothing written
    assert run_cli("install", plain, "--no-git").returncode == 0
    assert (plain / ".claude" / "team-memory" / "hooks.json").is_file()


def test_reinstall_backs_up_a_customised_command(repo):
    assert run_cli("install", repo).returncode == 0
    command = repo / ".claude" / "commands" / "memory.md"
    customised = command.read_text() + "\nAlso list retired memories.\n"
    command.write_text(customised)
    proc = run_cli("install", repo)
    assert proc.returncode == 0 and "memory.md.bak" in proc.stdout, proc.stdout
    assert (repo / ".claude" / "commands" / "memory.md.bak").read_text() == customised
    assert "Also list retired" not in command.read_text()


def test_uninstall_twice_says_nothing_was_installed(repo):
    assert run_cli("install", repo).returncode == 0
    assert "uninstalled from" in run_cli("uninstall", repo).stdout
    again = run_cli("uninstall", repo)
    assert again.returncode == 0 and "not installed" in again.stdout and "uninstalled" not in again.stdout


def test_a_user_scope_plugin_beside_the_drop_in_is_named_by_install_and_doctor(tmp_path, monkeypatch):
    """Both load every hook: two orientation blocks, two Stop reminders. The files are the ones Claude Code
    2.1.330 writes for ``claude plugin install team-memory@team-memory`` (tests/e2e/test_e2e_install.py)."""
    home = tmp_path / "home"
    (home / ".claude" / "plugins").mkdir(parents=True)
    (home / ".claude" / "plugins" / "installed_plugins.json").write_text(json.dumps(
        {"version": 2, "plugins": {"team-memory@team-memory": [{"scope": "user", "version": "0.3.0"}]}}))
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    installed = run_cli("install", project)
    assert installed.returncode == 0, installed.stderr
    assert "every hook runs twice" in installed.stdout and "claude plugin uninstall team-memory@team-memory" in installed.stdout
    doctor = run_cli("doctor", "--json", cwd=project)
    (finding,) = [f for f in json.loads(doctor.stdout)["findings"] if f["kind"] == "double-hooks"]
    assert finding["warning"] and "installed_plugins.json" in finding["message"] and "uninstall" in finding["fix"]
    (home / ".claude" / "plugins" / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {}}))
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"team-memory@team-memory": True}}))
    assert "settings.json" in run_cli("doctor", cwd=project).stdout
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {}}))
    assert "double-hooks" not in run_cli("doctor", cwd=project).stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_the_double_hooks_check_never_blocks_nor_follows_the_project_s_links(tmp_path):
    """The user's own settings may be a dotfiles link (followed, as Claude Code does); a FIFO there is never
    opened (it would block); the project's drop-in folder counts only when it is a real folder."""
    from team_memory.cli.doctor import user_plugin_too
    home, project, elsewhere = tmp_path / "home", tmp_path / "app", tmp_path / "elsewhere"
    (home / ".claude" / "plugins").mkdir(parents=True)
    (project / ".claude" / "team-memory").mkdir(parents=True)
    dotfiles = tmp_path / "dotfiles.json"
    dotfiles.write_text(json.dumps({"enabledPlugins": {"team-memory@team-memory": True}}))
    (home / ".claude" / "settings.json").symlink_to(dotfiles)
    os.mkfifo(home / ".claude" / "plugins" / "installed_plugins.json")
    (finding,) = user_plugin_too(str(project), str(home))  # returns at once: the FIFO is not opened
    assert "~/.claude/settings.json" in finding.message and "installed_plugins" not in finding.message
    (project / ".claude" / "team-memory").rmdir()
    elsewhere.mkdir()
    (project / ".claude" / "team-memory").symlink_to(elsewhere, target_is_directory=True)
    assert user_plugin_too(str(project), str(home)) == []


def test_doctor_without_a_store_checks_the_drop_in_of_the_repository_it_runs_in(tmp_path, monkeypatch):
    """No store yet (the drop-in's files are there, the memory folder is not): the double-hooks check still reads
    the project of the current folder, found by its ``.git``, from any folder inside it."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"team-memory@team-memory": True}}))
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "team-memory").mkdir(parents=True)
    (project / "src" / "deep").mkdir(parents=True)
    for cwd in (project, project / "src" / "deep"):
        doctor = run_cli("doctor", "--json", cwd=cwd)
        kinds = [f["kind"] for f in json.loads(doctor.stdout)["findings"]]
        assert "double-hooks" in kinds, (cwd, doctor.stdout, doctor.stderr)
