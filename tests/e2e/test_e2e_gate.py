"""The gate in front of every real-client test: a one-line skip when the Claude Code CLI or the harness is
missing, a failure under TEAM_MEMORY_REQUIRE_E2E=1 (what .ci/run sets), and the pinned npm install."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import e2e_support as e2e
from helpers import REPO


@pytest.fixture
def no_cli(monkeypatch, tmp_path):
    monkeypatch.setattr(e2e, "CLAUDE_PREFIX", tmp_path / "prefix")
    monkeypatch.setattr(e2e, "CLAUDE_BIN", tmp_path / "prefix" / "node_modules" / ".bin" / "claude")
    return tmp_path


def fake_cli(tmp_path, version: str):
    path = tmp_path / "prefix" / "node_modules" / ".bin" / "claude"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    path.chmod(0o755)
    return path


def test_missing_cli_skips_with_one_line(no_cli, monkeypatch):
    monkeypatch.delenv(e2e.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception) as info:
        e2e.require_claude(harness=False)
    message = str(info.value)
    assert "not installed" in message and "\n" not in message, message


def test_the_real_client_tests_need_nothing_outside_the_repository():
    """The fake model API and runner live in tests/: no test names a folder beside the checkout."""
    beside = ("..", "/shared")  # spelled apart so this test does not find itself
    for path in sorted((REPO / "tests").rglob("*.py")) + [REPO / ".ci" / "run"]:
        text = path.read_text(encoding="utf-8")
        assert "".join(beside) not in text and "cc-" + "e2e" not in text, path


def test_required_turns_the_skip_into_a_failure(no_cli, monkeypatch):
    monkeypatch.setenv(e2e.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="TEAM_MEMORY_REQUIRE_E2E=1"):
        e2e.require_claude(harness=False)


def test_a_cli_of_another_version_is_not_used(no_cli, monkeypatch):
    monkeypatch.delenv(e2e.REQUIRE_ENV, raising=False)
    fake_cli(no_cli, "2.1.197")
    with pytest.raises(pytest.skip.Exception, match=f"2.1.197 .*need {e2e.CLAUDE_VERSION}"):
        e2e.require_claude(harness=False)
    fake_cli(no_cli, e2e.CLAUDE_VERSION)
    assert e2e.require_claude(harness=False) == e2e.CLAUDE_BIN


def test_install_pins_the_version_and_fails_loudly(no_cli, monkeypatch):
    monkeypatch.setenv("PATH", str(no_cli / "bin"))  # no npm at all
    with pytest.raises(e2e.E2ESetupError, match="npm is not on PATH"):
        e2e.install_claude()
    (no_cli / "bin").mkdir()
    npm = no_cli / "bin" / "npm"
    npm.write_text(f"#!/bin/sh\necho \"$@\" > {no_cli / 'bin' / 'args'}\necho 'E404 registry unreachable' >&2\nexit 1\n")
    npm.chmod(0o755)
    with pytest.raises(e2e.E2ESetupError, match="E404 registry unreachable"):
        e2e.install_claude()
    assert f"{e2e.CLAUDE_PACKAGE}@{e2e.CLAUDE_VERSION}" in (no_cli / "bin" / "args").read_text()


def run_pytest(tmp_path, env_value, body):
    """A tiny pytest session with this conftest's rules, with or without TEAM_MEMORY_REQUIRE_E2E."""
    (tmp_path / "conftest.py").write_text((REPO / "tests" / "conftest.py").read_text())
    (tmp_path / "test_x.py").write_text(textwrap.dedent(body))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    if env_value:
        env[e2e.REQUIRE_ENV] = env_value
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)


@pytest.mark.slow  # runs pytest itself in a subprocess (~4 s): run by .ci/run and TEAM_MEMORY_SLOW=1
def test_a_skip_fails_the_run_only_when_required(tmp_path):
    body = """
        import pytest
        def test_ok(): pass
        def test_skipped(): pytest.skip("no client")
        @pytest.mark.slow
        def test_slow(): pass
    """
    quiet = run_pytest(tmp_path, None, body)
    assert quiet.returncode == 0 and "1 passed, 1 skipped, 1 deselected" in quiet.stdout, quiet.stdout
    assert "1 slow test(s) left out" in quiet.stdout and "TEAM_MEMORY_SLOW=1" in quiet.stdout
    strict = run_pytest(tmp_path, "1", body)
    assert strict.returncode == 1, strict.stdout
    assert "2 passed, 1 skipped" in strict.stdout and "counts as a failure" in strict.stdout, strict.stdout


def test_every_real_client_test_goes_through_the_gate():
    """``ensure_claude`` raises without the client; a test calls ``require_claude()``, which skips (or fails
    when required), so a machine without the harness sees a skip, never an error."""
    import ast
    offenders = []
    for path in (REPO / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "ensure_claude":
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []
