"""The real Claude Code CLI, offline against the fake model API: recall works as a plugin and as a
drop-in install, and a Stop after a decision asks once for a save (the write guards are in
test_e2e_guards.py). Marked ``e2e`` (and so ``slow``: left out of a plain ``pytest`` run, see
conftest.py); without the CLI or the harness they skip, and ``.ci/run`` makes them mandatory."""
from __future__ import annotations

import pytest

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
