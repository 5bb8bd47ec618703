"""The real Claude Code CLI, offline against the fake model API: recall works as a plugin and as a
drop-in install, and a Stop after a decision asks once for a save (the write guards are in
test_e2e_guards.py). Marked ``e2e`` (and so ``slow``: left out of a plain ``pytest`` run, see
conftest.py); without the CLI or the harness they skip, and ``.ci/run`` makes them mandatory."""
from __future__ import annotations

import json

import pytest

import e2e_follow as follow
import e2e_model
import e2e_support as e2e
import helpers

pytestmark = pytest.mark.e2e

MEMORY = helpers.record("decision", "use-redis-for-sessions", "Use Redis for session storage",
                        tags=["redis", "sessions"])
MATCHING = "how should the login service store redis sessions in production"
UNRELATED = "write a haiku about autumn leaves falling on a quiet pond"


@pytest.fixture(scope="session")
def claude_bin():
    return e2e.require_claude()


class _TimingReport:
    """Prints every claude run's time in pytest's terminal summary."""

    def pytest_terminal_summary(self, terminalreporter):
        if e2e.TIMINGS:
            total = sum(s for _, s in e2e.TIMINGS)
            terminalreporter.write_line(f"e2e: {len(e2e.TIMINGS)} claude runs, {total:.1f}s in total ("
                                        + ", ".join(f"{label} {s:.1f}s" for label, s in e2e.TIMINGS) + ")")


@pytest.fixture(scope="session", autouse=True)
def _report_timings(request):
    if not request.config.pluginmanager.has_plugin("team-memory-e2e-timings"):
        request.config.pluginmanager.register(_TimingReport(), "team-memory-e2e-timings")


@pytest.fixture(params=["plugin", "drop-in"])
def installed(request, tmp_path, claude_bin):
    """(project with one saved memory, plugin dir or None) for each way team-memory is installed."""
    if request.param == "plugin":
        project, plugin = e2e.plugin_project(tmp_path), e2e.REPO
    else:
        project, plugin = e2e.dropin_project(tmp_path), None
    helpers.write(e2e.memory_root(project), MEMORY)
    return request.param, project, plugin


def test_saved_memory_reaches_the_model_for_a_matching_prompt(installed):
    mode, project, plugin = installed
    result = e2e.ask(project, MATCHING, plugin, label=f"{mode} matching")
    assert result.seen("<memory-context"), result.describe()
    assert result.seen("[DECISION] Use Redis for session storage"), result.describe()
    assert result.seen(".claude/memory/decisions/use-redis-for-sessions.json"), result.describe()


def test_saved_memory_stays_out_for_an_unrelated_prompt(installed):
    mode, project, plugin = installed
    result = e2e.ask(project, UNRELATED, plugin, label=f"{mode} unrelated")
    # The SessionStart orientation may name recent decisions; the per-prompt recall must stay silent.
    assert not result.seen("[DECISION] Use Redis for session storage"), result.describe()
    assert not result.seen(".claude/memory/decisions/use-redis-for-sessions.json"), result.describe()
    assert result.seen("haiku about autumn leaves"), "the prompt itself did not reach the model"


def test_an_ordinary_coding_prompt_that_shares_a_word_stays_silent(installed):
    """Issue 32 through the real client: "write a test for the date parser" shares ``test`` with a memory's
    title and tag, and no memory answers it; the question about that memory still gets it."""
    mode, project, plugin = installed
    helpers.write(e2e.memory_root(project), helpers.record("decision", "e2e-playwright", "End-to-end tests run in Playwright",
                                                           tags=["testing", "playwright", "e2e"]))
    ordinary = e2e.ask(project, "write a test for the date parser", plugin, label=f"{mode} ordinary")
    assert ordinary.seen("date parser"), "the prompt itself did not reach the model"
    # The SessionStart orientation names recent decisions; the per-prompt recall must stay silent.
    assert not ordinary.seen("[DECISION] End-to-end tests run in Playwright"), ordinary.describe()
    assert not ordinary.seen(".claude/memory/decisions/e2e-playwright.json"), ordinary.describe()
    question = e2e.ask(project, "how do we run the playwright tests?", plugin, label=f"{mode} question")
    assert question.seen("[DECISION] End-to-end tests run in Playwright"), question.describe()


def test_memory_command_lists_the_store(installed):
    """/memory (plugin: /team-memory:memory) runs the CLI from the plugin root or the drop-in runtime."""
    mode, project, plugin = installed
    command = "/team-memory:memory" if plugin else "/memory"
    result = e2e.run_claude(project, command, plugin, label=f"{mode} {command}")
    assert result.returncode == 0, result.describe()
    assert result.seen("use-redis-for-sessions  Use Redis for session storage"), result.describe()


def test_stop_after_a_decision_gives_the_save_instructions_once(installed):
    """A Stop after a decision-laden exchange blocks once; the model gets the save instructions."""
    mode, project, plugin = installed
    result = e2e.scenario_stop_saves_once(project, plugin)
    assert result.seen("similar"), result.describe()


# ---------------------------------------------------------------- the save loop, with the plugin's permissions only

SAVE_PROMPT = ("Should we keep Redis for the session store? We decided to switch the session store from Redis "
               "to Valkey because of the license change.")


@pytest.fixture(params=["plugin", "drop-in"])
def fresh(request, tmp_path, claude_bin):
    """(mode, project, plugin dir or None): a plugin user's repository has no .claude/memory/ yet."""
    if request.param == "plugin":
        project = tmp_path / "fresh-repo"
        (project / ".git").mkdir(parents=True)
        return request.param, project, e2e.REPO
    return request.param, e2e.dropin_project(tmp_path), None


def test_the_model_saves_by_following_the_stop_reminder(fresh):
    """The fake model runs exactly the commands the Stop reminder names; Claude Code's default permission mode,
    no --allowedTools: the plugin's own approval lets them run, and a valid memory lands."""
    mode, project, plugin = fresh
    model = follow.StopFollower(SAVE_PROMPT)
    result = e2e_model.run_scripted(project, SAVE_PROMPT, plugin, model, label=f"{mode} save loop")
    assert result.returncode == 0, result.describe()
    assert model.followed == 1 and len(model.calls) == 2, (model.calls, result.describe())
    denials = [d for e in result.events if e.get("type") == "result" for d in e.get("permission_denials") or []]
    assert denials == [], denials
    tool_errors = [(is_error, text) for is_error, text in result.tool_results() if is_error]
    assert tool_errors == [], tool_errors
    path = e2e.memory_root(project) / "decisions" / "use-valkey-instead-of-redis-for-the-session-store.json"
    assert path.is_file(), result.describe()
    saved = json.loads(path.read_text())
    assert saved["content"] == follow.RECORDS["decision"]["content"], "the JSON did not arrive verbatim"
    check = helpers.run_cli("validate", str(path), "--root", str(project))
    assert check.returncode == 0, check.stdout + check.stderr
    blocks = [h for h in result.hook_responses("Stop") if '"block"' in (h.get("stdout") or "")]
    assert len(blocks) == 1, "the reminder must come once"
    if mode == "plugin":  # the first-day line, and the store starts at the repository root
        assert result.seen("team-memory: no team memories in this repository yet"), result.describe()


def test_only_the_cli_s_own_look_up_and_save_commands_are_approved(fresh):
    """The plugin's approval is narrow: chained commands, other CLI commands and look-alike scripts still ask
    (and so are refused in -p mode)."""
    mode, project, plugin = fresh
    helpers.write(e2e.memory_root(project), MEMORY)
    cli = (f'python3 "{e2e.REPO / "scripts" / "memory.py"}"' if plugin else
           f'python3 "{project / ".claude" / "team-memory" / "scripts" / "memory.py"}"')
    fake = project / "scripts" / "memory.py"
    fake.parent.mkdir(parents=True, exist_ok=True)
    fake.write_text("print('not team-memory')\n")
    calls = [("Bash", {"command": f"{cli} list"}),
             ("Bash", {"command": f"{cli} list; touch {project / 'chained'}"}),
             ("Bash", {"command": f"{cli} retire use-redis-for-sessions --reason 'not asked for'"}),
             ("Bash", {"command": f'python3 "{fake}" list'})]
    result = e2e_model.run_scripted(project, "list the memories", plugin, e2e_model.Script(calls),
                                    label=f"{mode} narrow approval")
    assert result.returncode == 0, result.describe()
    outcomes = [is_error for is_error, _ in result.tool_results()]
    assert outcomes == [False, True, True, True], result.tool_results()
    assert not (project / "chained").exists()
    saved = json.loads((e2e.memory_root(project) / "decisions" / "use-redis-for-sessions.json").read_text())
    assert saved["record_status"] == "active", "retire ran without the user's approval"


def test_from_a_subfolder_the_plugin_saves_at_the_repository_root(tmp_path, claude_bin):
    project = tmp_path / "fresh-repo"
    (project / ".git").mkdir(parents=True)
    (project / "services" / "api").mkdir(parents=True)
    model = follow.StopFollower(SAVE_PROMPT)
    result = e2e_model.run_scripted(project, SAVE_PROMPT, e2e.REPO, model, cwd=project / "services" / "api",
                                    label="plugin save from a subfolder")
    assert result.returncode == 0 and model.followed == 1, result.describe()
    assert (e2e.memory_root(project) / "decisions" / "use-valkey-instead-of-redis-for-the-session-store.json").is_file()
    assert not (project / "services" / "api" / ".claude").exists()


def test_from_a_subfolder_the_drop_in_hooks_do_not_run(tmp_path, claude_bin):
    """A fact of Claude Code 2.1.330 that README and the installed commands state: the project's
    .claude/settings.json is read only where claude starts. If this fails, Claude Code changed: update them."""
    project = e2e.dropin_project(tmp_path)
    helpers.write(e2e.memory_root(project), MEMORY)
    (project / "src").mkdir()
    result = e2e_model.run_scripted(project, MATCHING, None, e2e_model.Script(), cwd=project / "src",
                                    label="drop-in from a subfolder")
    assert result.returncode == 0, result.describe()
    assert [e for e in result.events if e.get("subtype") == "hook_response"] == []
    assert not result.seen("[DECISION] Use Redis for session storage")


def test_a_slash_command_recalls_by_its_arguments(tmp_path, claude_bin):
    """/team-memory:memory-search pgbouncer: the command's own words (team, memory, search) recall nothing."""
    project = e2e.plugin_project(tmp_path)
    helpers.write(e2e.memory_root(project), helpers.record("session_summary", "session-memory-work",
                                                           "Team memory search work session", tags=["memory", "team", "search"], days_ago=1))
    helpers.write(e2e.memory_root(project), helpers.record("decision", "use-pgbouncer", "Use PgBouncer in transaction mode",
                                                           tags=["pgbouncer", "postgres"], days_ago=200))
    result = e2e_model.run_scripted(project, "/team-memory:memory-search pgbouncer", e2e.REPO, e2e_model.Script(),
                                    label="plugin /team-memory:memory-search")
    assert result.returncode == 0, result.describe()
    (recall,) = [h.get("stdout") or "" for h in result.hook_responses("UserPromptSubmit")]
    assert "Use PgBouncer in transaction mode" in recall and "Team memory search work session" not in recall, recall
    assert result.seen(recall.strip()[:120]), "the recall did not reach the model"


def test_a_user_s_deny_rule_still_wins_over_the_plugin_s_approval(tmp_path, claude_bin):
    project = e2e.plugin_project(tmp_path)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(python3:*)"]}}))
    model = follow.StopFollower(SAVE_PROMPT)
    result = e2e_model.run_scripted(project, SAVE_PROMPT, e2e.REPO, model, label="plugin save under a deny rule")
    assert result.returncode == 0 and model.followed == 1, result.describe()
    results = result.tool_results()
    assert results and all(is_error and "denied" in text for is_error, text in results), results
    assert not list((e2e.memory_root(project)).rglob("*.json"))


def test_the_stop_reminder_proposes_the_files_the_model_edited(tmp_path, claude_bin):
    """The real client's transcript: the fake model writes app/session.py, then states a decision; the one
    reminder names that file and its save command fills related_files, and it reaches the model."""
    project = e2e.plugin_project(tmp_path)
    target = project / "app" / "session.py"
    target.parent.mkdir()
    result = e2e.run_claude(project, e2e.DECISION_PROMPT, e2e.REPO, label="stop names edited files",
                            reply=e2e.DECISION_REPLY, claude_args=("--permission-mode", "acceptEdits"),
                            tool_use={"name": "Write", "input": {"file_path": str(target),
                                                                  "content": "SESSION_STORE = 'redis'\n"}})
    assert result.returncode == 0 and target.is_file(), result.describe()
    blocks = [h for h in result.hook_responses("Stop") if '"block"' in (h.get("stdout") or "")]
    assert len(blocks) == 1, result.describe()
    reason = json.loads(blocks[0]["stdout"])["reason"]
    assert '"related_files": ["app/session.py"]' in reason and '--related-file "app/session.py"' in reason, reason
    assert result.seen('"related_files": ["app/session.py"]'), result.describe()
