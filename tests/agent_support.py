"""Running the real Codex CLI offline against the fake Responses API (``agent_apis.ResponsesAPI``).

``require_codex()`` gates every test that needs it, as ``e2e_support.require_claude()`` does for Claude
Code: a missing or wrong CLI skips the test with the reason, or fails it under ``TEAM_MEMORY_REQUIRE_E2E=1``
(``.ci/run``). ``python3 tests/agent_support.py --install`` installs the pinned CLIs with npm
(``CODEX_VERSION``, ``GEMINI_VERSION``: the one place each version is named).

``run_codex(project, prompt, script)`` runs one ``codex exec`` in ``project`` with a scratch ``HOME`` and
``CODEX_HOME`` whose ``config.toml`` names the fake API (``wire_api = "responses"``) and trusts the project;
``--dangerously-bypass-hook-trust`` stands in for the hook review a person does once.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import helpers
from agent_apis import ResponsesAPI, input_text

REPO = helpers.REPO
CODEX_PACKAGE, CODEX_VERSION = "@openai/codex", "0.171.0"
GEMINI_PACKAGE, GEMINI_VERSION = "@google/gemini-cli", "0.61.0"
CODEX_PREFIX = REPO / ".cache" / "codex"
GEMINI_PREFIX = REPO / ".cache" / "gemini-cli"
CODEX_BIN = CODEX_PREFIX / "node_modules" / ".bin" / "codex"
GEMINI_BIN = GEMINI_PREFIX / "node_modules" / ".bin" / "gemini"
CODEX_MODEL = "gpt-5.5"  # a model Codex knows: it offers apply_patch with it (not with an unknown name)
REQUIRE_ENV = "TEAM_MEMORY_REQUIRE_E2E"
TIMEOUT = int(os.environ.get("E2E_TIMEOUT", "90"))


class AgentSetupError(AssertionError):
    """The client is not usable (a failure under TEAM_MEMORY_REQUIRE_E2E=1, else a skip)."""


def _version(binary: Path) -> str:
    proc = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    words = proc.stdout.split()
    return words[-1] if proc.returncode == 0 and words else ""


def _ensure(binary: Path, name: str, version: str) -> Path:
    """``binary`` at ``version``; ``AgentSetupError`` with a one-line reason if it is missing or another."""
    how = "python3 tests/agent_support.py --install (needs npm), or bash .ci/run"
    if not binary.exists():
        raise AgentSetupError(f"{name} is not installed in {binary.parents[2].relative_to(REPO)}: {how}")
    found = _version(binary)
    if found != version:
        raise AgentSetupError(f"{name} {found or '?'} is installed, the tests need {version}: {how}")
    return binary


def ensure_codex() -> Path:
    return _ensure(CODEX_BIN, "the Codex CLI", CODEX_VERSION)


def ensure_gemini() -> Path:
    return _ensure(GEMINI_BIN, "Gemini CLI", GEMINI_VERSION)


def require_codex() -> Path:
    """``ensure_codex()`` for a test: skip with the reason, or fail when TEAM_MEMORY_REQUIRE_E2E=1."""
    return _require(ensure_codex)


def require_gemini() -> Path:
    return _require(ensure_gemini)


def _require(ensure) -> Path:
    import pytest
    try:
        return ensure()
    except AgentSetupError as exc:
        if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
            pytest.fail(f"{REQUIRE_ENV}=1 and the real client is not usable: {exc}", pytrace=False)
        pytest.skip(str(exc))


def npm_install(prefix: Path, package: str, version: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise AgentSetupError(f"npm is not on PATH (npm install --prefix {prefix} {package}@{version})")
    proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), f"{package}@{version}"],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AgentSetupError(f"npm install of {package}@{version} failed: {proc.stderr[-2000:]}")


@dataclass
class AgentRun:
    returncode: int
    output: str
    requests: list = field(default_factory=list)

    def seen(self, text: str) -> bool:
        """Did the model's input, in any request, hold ``text``?"""
        return any(text in input_text(body) for body in self.requests)

    def describe(self) -> str:
        return f"exit {self.returncode}; {len(self.requests)} model requests\n{self.output[-3000:]}"


def codex_project(base: Path, *agents: str) -> Path:
    """A git repository with ``memory.py install --agent ...`` run in it (``codex`` unless named)."""
    project = Path(base) / "codex-project"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    args = [a for name in (agents or ("codex",)) for a in ("--agent", name)]
    proc = helpers.run_cli("install", project, *args)
    assert proc.returncode == 0, proc.stderr
    return project


def codex_home(base: Path, project: Path, base_url: str) -> dict:
    """The environment of a scratch user: HOME, CODEX_HOME with the fake provider, the project trusted."""
    home = Path(base) / "home"
    codex_dir = home / ".codex"
    codex_dir.mkdir(parents=True, exist_ok=True)
    (codex_dir / "config.toml").write_text(
        f'model = "{CODEX_MODEL}"\nmodel_provider = "fake"\n\n'
        f'[model_providers.fake]\nname = "fake"\nbase_url = "{base_url}"\nwire_api = "responses"\n'
        f'env_key = "FAKE_API_KEY"\n\n[projects."{project}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")}
    return dict(keep, HOME=str(home), CODEX_HOME=str(codex_dir), FAKE_API_KEY="fake", NO_COLOR="1")


def run_codex(project: Path, prompt: str, script=(), *, args=()) -> AgentRun:
    """One ``codex exec`` in ``project`` against a fake API playing ``script`` (see ``agent_apis``)."""
    binary = require_codex()
    with tempfile.TemporaryDirectory(prefix="codex-home-", dir=os.environ.get("TMPDIR") or "/var/tmp") as base, \
            ResponsesAPI(script) as api:
        env = codex_home(Path(base), Path(project), api.base_url)
        cmd = [str(binary), "exec", "--dangerously-bypass-hook-trust", "-s", "workspace-write", *args, prompt]
        return _run(cmd, project, env, api)


def _run(cmd: list, project: Path, env: dict, api) -> AgentRun:
    """Run one client command; what it printed and every request the fake API got."""
    try:
        proc = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return AgentRun(-1, f"timed out after {TIMEOUT}s\n{exc.stdout or ''}{exc.stderr or ''}", list(api.requests))
    return AgentRun(proc.returncode, proc.stdout + proc.stderr, list(api.requests))


def run_gemini(project: Path, prompt: str, script=()) -> AgentRun:
    """One ``gemini -p`` in ``project`` (gateway mode: ``GOOGLE_GEMINI_BASE_URL``) against a fake Gemini API
    playing ``script`` (``agent_apis.GeminiAPI``); folder trust off in the scratch user's settings, as a person's
    "Trust folder" answer would leave it."""
    import json
    from agent_apis import GeminiAPI
    binary = require_gemini()
    with tempfile.TemporaryDirectory(prefix="gemini-home-", dir=os.environ.get("TMPDIR") or "/var/tmp") as base, \
            GeminiAPI(script) as api:
        home = Path(base)
        (home / ".gemini").mkdir()
        (home / ".gemini" / "settings.json").write_text(json.dumps(
            {"security": {"folderTrust": {"enabled": False}, "auth": {"selectedType": "gemini-api-key"}}}))
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
        env = dict(keep, HOME=str(home), GEMINI_API_KEY="fake", GOOGLE_GEMINI_BASE_URL=api.base_url, NO_COLOR="1")
        cmd = [str(binary), "-p", prompt, "--yolo", "-m", "gemini-2.5-flash"]
        return _run(cmd, project, env, api)


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--install"]:
        try:
            if not CODEX_BIN.exists() or _version(CODEX_BIN) != CODEX_VERSION:
                npm_install(CODEX_PREFIX, CODEX_PACKAGE, CODEX_VERSION)
            print(f"Codex {CODEX_VERSION}: {ensure_codex()}")
            if not GEMINI_BIN.exists() or _version(GEMINI_BIN) != GEMINI_VERSION:
                npm_install(GEMINI_PREFIX, GEMINI_PACKAGE, GEMINI_VERSION)
            print(f"Gemini CLI {GEMINI_VERSION}: {ensure_gemini()}")
        except AgentSetupError as exc:
            sys.exit(f"error: {exc}")
