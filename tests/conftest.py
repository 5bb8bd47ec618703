"""Every test runs against a store in ``tmp_path``; HOME and the working folder are moved there too,
so nothing a test does can touch the real home directory or the checkout.

Slow tests (marked ``slow``, and every ``e2e`` test, which runs the real Claude Code CLI) are left out
of a plain ``python3 -m pytest -q`` unless ``TEAM_MEMORY_SLOW=1`` is set or ``-m`` selects ``slow`` or
``e2e``. With ``TEAM_MEMORY_REQUIRE_E2E=1`` (``.ci/run`` sets both) a run that skipped anything fails."""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
# The hooks' ``python3`` (hooks.json) is the interpreter running the tests: the hooks are tested on the
# Python under test (the 3.9 venv of .ci/run included), and a version manager's shim in front of it (pyenv's
# costs several times a hook's own run) does not run for each of the suite's many hook calls.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
os.environ.pop("PYENV_DIR", None)  # ... and that PATH is the hooks' as it is (doctor's hook-python check: cli/doctor.hook_python)
TESTS = Path(__file__).resolve().parent
# The shared helpers here, and each layer's folder: a test file may import another's checks by module name.
sys.path[:0] = [str(TESTS)] + sorted(str(p) for p in TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py")))
# Under PYTHONDONTWRITEBYTECODE (set in many containers) every worker compiles the tests and the package anew on
# each run (~3 s a worker here): the test processes keep that compiled code in the checkout's ignored .cache/,
# never beside the sources. Only these processes: hooks and commands the tests start keep the user's setting.
if sys.dont_write_bytecode and not sys.pycache_prefix:
    sys.pycache_prefix, sys.dont_write_bytecode = str(REPO / ".cache" / "pycache"), False
if os.environ.get("TEAM_MEMORY_MASK_POSIX", "") not in ("", "0"):  # the masked platform: tests/platform_mask.py
    import platform_mask
    platform_mask.apply()


SLOW_ENV, REQUIRE_ENV = "TEAM_MEMORY_SLOW", "TEAM_MEMORY_REQUIRE_E2E"


def _env_on(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


# Property tests: under CI (CI=true) hypothesis draws its examples from a fixed seed, so CI's verdict
# depends on the commit alone; everywhere else it explores at random, as many examples as under CI,
# which is how new counter-examples are found (and each becomes a pinned case in its test file).
try:
    from hypothesis import settings as _hypothesis_settings
    _hypothesis_settings.register_profile("ci", derandomize=True, database=None)
    if _env_on("CI"):
        _hypothesis_settings.load_profile("ci")
except ImportError:  # pragma: no cover - hypothesis is a dev dependency; its tests import it themselves
    pass


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("e2e") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
    chosen = config.getoption("markexpr") or ""
    if _env_on(SLOW_ENV) or _env_on(REQUIRE_ENV) or re.search(r"(?<!not )\b(slow|e2e)\b", chosen):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config._team_memory_slow_left_out = len(slow)


def pytest_terminal_summary(terminalreporter, config):
    left_out = getattr(config, "_team_memory_slow_left_out", 0)
    if left_out:
        terminalreporter.write_line(f"{left_out} slow test(s) left out (stress, real client, long checks): "
                                    f"{SLOW_ENV}=1 python3 -m pytest -q runs them too")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist (``-n auto``): each worker collects, so the count of slow tests left out comes from them."""
    left_out = getattr(node, "workeroutput", {}).get("slow_left_out", 0)
    node.config._team_memory_slow_left_out = max(left_out, getattr(node.config, "_team_memory_slow_left_out", 0))


def pytest_sessionfinish(session, exitstatus):
    """Under TEAM_MEMORY_REQUIRE_E2E=1 a skipped test is a failure: CI never passes by skipping.

    Under pytest-xdist a worker only hands its count of slow tests left out to the controller, which
    sees every worker's results and judges the skips."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["slow_left_out"] = getattr(session.config, "_team_memory_slow_left_out", 0)
        return
    if not _env_on(REQUIRE_ENV):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and session.exitstatus == 0:
        reporter.ensure_newline()
        reporter.write_line(f"{REQUIRE_ENV}=1: {len(skipped)} test(s) skipped, which counts as a failure", red=True)
        session.exitstatus = 1


@pytest.fixture
def tmp_path(request, tmp_path_factory):
    """pytest's ``tmp_path`` (a fresh folder in the session's base folder, named after the test), cheaper: the
    built-in lists every earlier test's folder to number the next one (~2 ms a test). A passing test's folder is
    removed at once, while its files are still only in memory: left for pytest to remove three runs later, they
    are on disk by then (about 50,000 a run), and deleting them held the end of a later run 8-38 s here."""
    name = re.sub(r"\W", "_", request.node.name)[:30]
    path = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=tmp_path_factory.getbasetemp()))
    yield path
    if not getattr(request.node, "_team_memory_failed", False):  # a failed test's folder stays, to look at
        shutil.rmtree(path, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if outcome.get_result().failed:
        item._team_memory_failed = True


@pytest.fixture(scope="session")
def _user_cache(tmp_path_factory):
    """One user cache for the session (per worker), never the real one: compiled code of the hooks and the
    CLI (``bytecache``, used where Python keeps none, as under ``PYTHONDONTWRITEBYTECODE=1``) is compiled
    once, not again in every test. Tests of the cache itself point ``XDG_CACHE_HOME`` elsewhere."""
    return tmp_path_factory.mktemp("user-cache")


@pytest.fixture(autouse=True)
def _isolate(tmp_path, monkeypatch, _user_cache):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(_user_cache))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def project(tmp_path):
    """An empty project with a memory store: returns the project folder."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "memory").mkdir(parents=True)
    return root


@pytest.fixture
def memory_root(project):
    return project / ".claude" / "memory"


def _memory_temp_root(path: str = "/dev/shm", room: int = 1 << 30):
    """``path`` when it is a tmpfs the tests can use for their folders: writable, running the small scripts some
    tests write (no ``noexec``), with ``room`` bytes free (Docker's default is 64 MB); else None."""
    try:
        with open("/proc/mounts", encoding="utf-8", errors="replace") as mounts:
            options = [fields[3].split(",") for fields in map(str.split, mounts) if fields[1:3] == [path, "tmpfs"]]
        stat = os.statvfs(path)
    except (OSError, IndexError):
        return None
    if not options or "noexec" in options[-1] or not os.access(path, os.W_OK | os.X_OK):
        return None
    return path if stat.f_bavail * stat.f_frsize >= room else None


# The tests' temporary folders (tmp_path) in memory where Linux offers a tmpfs: a run makes and removes some 30,000
# folders and 50,000 files, which on a disk cost about a quarter of a 2-core run (sys time 17-28 s against 8 s
# here). Only when nobody chose where they go (TMPDIR, PYTEST_DEBUG_TEMPROOT; --basetemp wins over both).
_TEMP_ROOT = None if os.environ.get("TMPDIR") or os.environ.get("PYTEST_DEBUG_TEMPROOT") else _memory_temp_root()
if _TEMP_ROOT:
    os.environ["PYTEST_DEBUG_TEMPROOT"] = _TEMP_ROOT


@pytest.fixture(scope="session")
def _empty_git(tmp_path_factory):
    import subprocess
    path = tmp_path_factory.mktemp("git-init") / "repo"
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@pytest.fixture
def git_init(_empty_git):
    """``git_init(path)``: what ``git init -q path`` leaves, copied from one made once a session (a process start
    saved for each test that needs only an empty repository). Returns ``path``."""
    def make(path):
        shutil.copytree(_empty_git, path, symlinks=True, dirs_exist_ok=True)
        return Path(path)
    return make
