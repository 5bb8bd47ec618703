"""Running the real Claude Code CLI offline against the fake model API of ``tests/e2e_model.py``.

``require_claude()`` is the one gate for every test that needs the real client: it returns the CLI
in ``.cache/claude-code``, or, when the CLI is missing, skips the test with a one-line
reason. With ``TEAM_MEMORY_REQUIRE_E2E=1`` (set by ``.ci/run``) the same problem fails the test
instead, so CI never passes by skipping. ``python3 tests/e2e_support.py --install`` installs the
pinned CLI (``CLAUDE_VERSION``, the one place the version is named) with npm.
``run_claude(...)`` runs one ``claude -p`` against that fake API (127.0.0.1, a fresh config folder) and returns an ``E2EResult`` with
every model request and stream event, so a test asserts on what the model actually received.

Projects for both ways team-memory is used: ``plugin_project`` (a plain repository; run with
``plugin=REPO``) and ``dropin_project`` (made by ``memory.py install``; run with ``plugin=None``).

The scenarios at the end (``scenario_*``) are ready for the hooks of the write path and capture
issues; enabling one in ``test_e2e.py`` is a three-line test.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import helpers

REPO = helpers.REPO
CLAUDE_PREFIX = REPO / ".cache" / "claude-code"
CLAUDE_BIN = CLAUDE_PREFIX / "node_modules" / ".bin" / "claude"
CLAUDE_VERSION = "2.1.330"  # the Claude Code release the e2e tests are written against (npm's default tag is older)
CLAUDE_PACKAGE = "@anthropic-ai/claude-code"
REQUIRE_ENV = "TEAM_MEMORY_REQUIRE_E2E"
E2E_TIMEOUT = int(os.environ.get("E2E_TIMEOUT", "60"))  # seconds per claude run
DEFAULT_REPLY = "FAKE-MODEL-REPLY: ok."  # the fake model's answer when a test names none

TIMINGS: list = []  # (label, seconds) of every run, printed at the end of the session by test_e2e


class E2ESetupError(AssertionError):
    """The CLI or the e2e tool is not usable (a failure under TEAM_MEMORY_REQUIRE_E2E=1, else a skip)."""


def required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def installed_version(claude_bin: Path) -> str:
    proc = subprocess.run([str(claude_bin), "--version"], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise E2ESetupError(f"{claude_bin} --version failed: {proc.stderr.strip()[:1000]}")
    return proc.stdout.split()[0] if proc.stdout.split() else ""


def ensure_claude(harness: bool = True) -> Path:
    """The pinned Claude Code CLI in ``.cache/claude-code``; ``E2ESetupError`` with a one-line reason if unusable."""
    how = "python3 tests/e2e_support.py --install (needs npm), or bash .ci/run"
    if not CLAUDE_BIN.exists():
        raise E2ESetupError(f"the Claude Code CLI is not installed in .cache/claude-code: {how}")
    version = installed_version(CLAUDE_BIN)
    if version != CLAUDE_VERSION:
        raise E2ESetupError(f"Claude Code {version or '?'} in .cache/claude-code, the tests need {CLAUDE_VERSION}: {how}")
    return CLAUDE_BIN


def require_claude(harness: bool = True) -> Path:
    """``ensure_claude()`` for a test: skip with the reason, or fail when TEAM_MEMORY_REQUIRE_E2E=1."""
    import pytest
    try:
        return ensure_claude(harness)
    except E2ESetupError as exc:
        if required():
            pytest.fail(f"{REQUIRE_ENV}=1 and the real client is not usable: {exc}", pytrace=False)
        pytest.skip(str(exc))


def install_claude() -> Path:
    """Install ``CLAUDE_PACKAGE@CLAUDE_VERSION`` into ``.cache/claude-code`` unless it is there already."""
    if CLAUDE_BIN.exists() and installed_version(CLAUDE_BIN) == CLAUDE_VERSION:
        return CLAUDE_BIN
    npm = shutil.which("npm")
    if npm is None:
        raise E2ESetupError("npm is not on PATH: cannot install the Claude Code CLI for the e2e tests "
                            f"(npm install --prefix {CLAUDE_PREFIX} {CLAUDE_PACKAGE}@{CLAUDE_VERSION})")
    proc = subprocess.run([npm, "install", "--prefix", str(CLAUDE_PREFIX), f"{CLAUDE_PACKAGE}@{CLAUDE_VERSION}"],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not CLAUDE_BIN.exists():
        raise E2ESetupError(f"npm install of {CLAUDE_PACKAGE}@{CLAUDE_VERSION} failed (exit {proc.returncode}):\n"
                            f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return CLAUDE_BIN


# ---------------------------------------------------------------- projects

def plugin_project(base: Path) -> Path:
    """An empty repository with an empty store, for runs with ``--plugin-dir`` = the checkout."""
    project = Path(base) / "plugin-project"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "memory").mkdir(parents=True)
    return project


def dropin_project(base: Path) -> Path:
    """A repository with team-memory installed by ``memory.py install`` (hooks in its settings.json)."""
    project = Path(base) / "dropin-project"
    (project / ".git").mkdir(parents=True)
    proc = helpers.run_cli("install", project)
    assert proc.returncode == 0, proc.stderr
    return project


def memory_root(project: Path) -> Path:
    return Path(project) / ".claude" / "memory"


# ---------------------------------------------------------------- one run

@dataclass
class E2EResult:
    returncode: int
    output: str                      # a summary for failure messages: exit, stderr, model errors, hook events
    seconds: float
    requests: list = field(default_factory=list)   # bodies of POST /v1/messages
    events: list = field(default_factory=list)     # claude's stream-json events

    def texts(self, request=None):
        """Every text the model saw (message text and tool results), in one request or in all."""
        bodies = self.requests if request is None else [request]
        out = []
        for body in bodies:
            system = body.get("system")
            for block in ([{"type": "text", "text": system}] if isinstance(system, str) else system or []):
                if isinstance(block, dict) and block.get("type") == "text":
                    out.append(block.get("text", ""))
            for message in body.get("messages", []):
                content = message.get("content")
                for block in ([{"type": "text", "text": content}] if isinstance(content, str) else content or []):
                    if block.get("type") == "text":
                        out.append(block.get("text", ""))
                    elif block.get("type") == "tool_result":
                        inner = block.get("content")
                        for ib in ([{"type": "text", "text": inner}] if isinstance(inner, str) else inner or []):
                            if ib.get("type") == "text":
                                out.append(ib.get("text", ""))
        return out

    def seen(self, text: str) -> bool:
        """True when ``text`` reached the model in any request."""
        return any(text in t for t in self.texts())

    def requests_with(self, text: str) -> int:
        return sum(1 for body in self.requests if any(text in t for t in self.texts(body)))

    def hook_responses(self, event: str) -> list:
        return [e for e in self.events if e.get("type") == "system" and e.get("subtype") == "hook_response"
                and (e.get("hook_event") or e.get("hook_name")) == event]

    def tool_results(self) -> list:
        """``(is_error, text)`` of every tool result sent back to the model."""
        out = []
        for body in self.requests[-1:]:
            for message in body.get("messages", []):
                for block in message.get("content") if isinstance(message.get("content"), list) else []:
                    if block.get("type") == "tool_result":
                        inner = block.get("content")
                        text = inner if isinstance(inner, str) else " ".join(
                            ib.get("text", "") for ib in inner or [] if isinstance(ib, dict))
                        out.append((bool(block.get("is_error")), text))
        return out

    def describe(self) -> str:
        return f"exit {self.returncode} after {self.seconds:.1f}s\n{self.output}"


def _jsonl(path: Path) -> list:
    out = []
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def run_claude(project: Path, prompt: str, plugin: Path | None = None, *, label: str = "",
               tool_use: dict | None = None, reply: str | None = None, timeout: int = E2E_TIMEOUT,
               claude_args: tuple = ()) -> E2EResult:
    """One ``claude -p PROMPT`` in ``project`` (with ``plugin`` as ``--plugin-dir``, or the drop-in hooks),
    against the fake model of ``e2e_model.py``: it calls ``tool_use`` once if given, then answers ``reply``."""
    import e2e_model
    calls = [(tool_use["name"], tool_use.get("input", {}))] if tool_use else []
    model = e2e_model.Script(calls, reply or DEFAULT_REPLY)
    return e2e_model.run_scripted(project, prompt, plugin, model, label=label, timeout=timeout,
                                  claude_args=claude_args)


# ---------------------------------------------------------------- a scratch HOME: installed plugins

OFFLINE_ENV = {"NO_PROXY": "127.0.0.1,localhost", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}


def home_env(home: Path, **extra) -> dict:
    """The environment of a ``claude`` whose whole configuration is ``home/.claude`` (a scratch HOME):
    no CLAUDE_CONFIG_DIR, no proxy or cloud provider, nothing sent anywhere but 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if k not in (
        "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")}
    env.update(OFFLINE_ENV, HOME=str(home), XDG_CACHE_HOME=str(Path(home) / ".cache"),
               XDG_STATE_HOME=str(Path(home) / ".local" / "state"))
    env.update(extra)
    return env


def claude_cli(home: Path, *args: str, env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    """``claude ARGS`` (``plugin marketplace add ...``, ``plugin install ...``) with ``home`` as HOME."""
    return subprocess.run([str(require_claude()), *args], capture_output=True, text=True, timeout=timeout,
                          env=env or home_env(home), cwd=str(home))


def trust_folder(home: Path, folder: Path) -> None:
    """Record ``folder`` as trusted in ``home/.claude.json``, as accepting Claude Code's trust dialog there does
    (the repository's own settings, marketplaces and plugins included, are read only in a trusted folder)."""
    path = Path(home) / ".claude.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("projects", {}).setdefault(str(folder), {})["hasTrustDialogAccepted"] = True
    path.write_text(json.dumps(data, indent=2))


def run_claude_home(home: Path, project: Path, prompt: str, *, env: dict | None = None, label: str = "",
                    timeout: int = E2E_TIMEOUT, claude_args: tuple = ()) -> E2EResult:
    """One ``claude -p PROMPT`` in ``project`` with ``home`` as HOME (its installed plugins and settings),
    against the fake model API of ``e2e_model.py`` (no fresh configuration folder: ``home/.claude`` is it)."""
    import e2e_model
    return e2e_model.run_scripted(project, prompt, None, e2e_model.Script((), DEFAULT_REPLY), label=label,
                                  timeout=timeout, claude_args=claude_args, base_env=env or home_env(home))


GIT_ID = ("-c", "user.name=team-memory tests", "-c", "user.email=tests@example.invalid")


def git(*args, cwd) -> str:
    proc = subprocess.run(["git", *GIT_ID, *args], cwd=str(cwd), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def checkout_repository(dest: Path, version: str | None = None) -> Path:
    """A git repository holding this checkout's files as they are now (tracked and new, not ignored, no links),
    committed: what a user clones. ``version`` rewrites the manifests' version (a newer release)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    git("init", "-q", cwd=dest)
    if version:
        set_version(dest, version)
    git("add", "-A", cwd=dest)
    git("commit", "-qm", "team-memory", cwd=dest)
    return dest


def set_version(root: Path, version: str) -> None:
    """plugin.json's and both of marketplace.json's versions set to ``version``."""
    for name in ("plugin.json", "marketplace.json"):
        path = Path(root) / ".claude-plugin" / name
        data = json.loads(path.read_text())
        if name == "plugin.json":
            data["version"] = version
        else:
            data["metadata"]["version"] = version
            for entry in data["plugins"]:
                entry["version"] = version
        path.write_text(json.dumps(data, indent=2) + "\n")


def init_plugins(result: E2EResult) -> list:
    """The plugins the session loaded (its ``init`` event): ``[{"name", "path", "source", "version"}, ...]``."""
    for event in result.events:
        if event.get("type") == "system" and event.get("subtype") == "init":
            return event.get("plugins") or []
    return []


def ask(project: Path, prompt: str, plugin: Path | None = None, label: str = "") -> E2EResult:
    """A run that must succeed and reach the model, with the UserPromptSubmit hook having run cleanly."""
    result = run_claude(project, prompt, plugin, label=label)
    assert result.returncode == 0, result.describe()
    assert result.requests, "no model request was made\n" + result.describe()
    hooks = result.hook_responses("UserPromptSubmit")
    assert hooks and all(h.get("exit_code") == 0 for h in hooks), "UserPromptSubmit did not run cleanly\n" + result.describe()
    return result


# ---------------------------------------------------------------- scenarios for the write path and capture hooks

def scenario_direct_write_denied(project: Path, plugin: Path | None = None) -> E2EResult:
    """The model tries to Write a memory file directly: the PreToolUse guard denies it, nothing lands."""
    target = memory_root(project) / "decisions" / "written-directly.json"
    record = helpers.record("decision", "written-directly", "Written directly by the model")
    # acceptEdits: no permission prompt stands in the way. (Claude Code 2.1 also refuses edits under .claude/
    # on its own in -p mode, "a sensitive file"; the assertions below require our guard's denial and reason.)
    result = run_claude(project, "remember that we use redis for sessions", plugin, label="direct write",
                        claude_args=("--permission-mode", "acceptEdits"), tool_use={"name": "Write", "input": {"file_path": str(target),
                                                            "content": json.dumps(record, indent=2)}})
    assert result.returncode == 0, result.describe()
    assert not target.exists(), "a direct Write into .claude/memory/ was not denied\n" + result.describe()
    denials = [h for h in result.hook_responses("PreToolUse") if "deny" in (h.get("stdout") or "")]
    assert denials, "no PreToolUse hook denied the Write\n" + result.describe()
    results = result.tool_results()
    assert results and results[-1][0], f"the model was not told the Write failed: {results}"
    assert "memory.py" in results[-1][1], f"the denial does not name the CLI to use: {results[-1][1]}"
    return result


DECISION_PROMPT = ("Should we keep sessions in Postgres or move them to Redis? "
                   "We decided: use Redis for session storage, because it expires keys natively.")
DECISION_REPLY = ("Agreed. Decision: we will use Redis for session storage instead of Postgres, because Redis "
                  "expires keys natively and keeps login latency low. We rejected Postgres because it needs "
                  "a cleanup job. Going forward, new session code must use the Redis client.")


def scenario_stop_saves_once(project: Path, plugin: Path | None = None, instruction: str = "similar") -> E2EResult:
    """A decision-laden exchange: the Stop hook blocks exactly once and the model gets save instructions."""
    result = run_claude(project, DECISION_PROMPT, plugin, label="stop triage", reply=DECISION_REPLY)
    assert result.returncode == 0, result.describe()
    stops = result.hook_responses("Stop")
    blocks = [h for h in stops if '"block"' in (h.get("stdout") or "")]
    assert len(blocks) == 1, f"expected exactly one blocking Stop, got {len(blocks)} of {len(stops)}\n" + result.describe()
    assert len(stops) >= 2, "the Stop after the save turn did not run\n" + result.describe()
    reason = json.loads(blocks[0]["stdout"]).get("reason", "")
    assert instruction in reason, f"the block reason gives no save instructions: {reason!r}"
    assert result.seen(reason.strip()[:200]), "the save instructions did not reach the model\n" + result.describe()
    return result


def run_module_scenarios_directly() -> None:  # pragma: no cover - a manual check: python3 tests/e2e_support.py
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn in (("direct write", scenario_direct_write_denied), ("stop", scenario_stop_saves_once)):
            for mode, make, plugin in (("plugin", plugin_project, REPO), ("drop-in", dropin_project, None)):
                project = make(Path(tmp) / f"{name}-{mode}".replace(" ", "-"))
                try:
                    fn(project, plugin)
                    print(f"PASS {name} ({mode})")
                except AssertionError as exc:
                    print(f"FAIL {name} ({mode}): {str(exc).splitlines()[0]}")


if __name__ == "__main__":  # pragma: no cover
    import sys
    if sys.argv[1:] == ["--install"]:
        try:
            print(f"Claude Code {CLAUDE_VERSION}: {install_claude()}")
        except E2ESetupError as exc:
            sys.exit(f"error: {exc}")
    else:
        run_module_scenarios_directly()
