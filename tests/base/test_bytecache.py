"""Compiled code in the user's cache when Python keeps none (``PYTHONDONTWRITEBYTECODE``, read-only plugin)."""
from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys

import pytest

from helpers import REPO, record, write
from team_memory.base import bytecache


WRITTEN = "scripts/team_memory/records/hookio.py"  # the one source a test changes in place: copied, never linked


@pytest.fixture(scope="module")
def _runtime(tmp_path_factory):
    """A copy of the runtime (no compiled code in it), made once for the module; never run, changed or written in."""
    root = tmp_path_factory.mktemp("runtime")
    for item in ("hooks", "scripts", "templates", "hooks.json"):
        src = REPO / item
        if src.is_dir():
            shutil.copytree(src, root / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, root / item)
    return root


@pytest.fixture
def plugin(tmp_path, _runtime):
    """A copy of the runtime, as a plugin folder (no compiled code in it): folders of its own, its files hard links
    to the module's copy (no test writes one in place, but ``WRITTEN``, which is copied)."""
    root = tmp_path / "plugin"
    shutil.copytree(_runtime, root, copy_function=os.link)
    os.unlink(root / WRITTEN)
    shutil.copy2(_runtime / WRITTEN, root / WRITTEN)
    return root


def run(plugin, project, cache, prompt="why did we choose redis for sessions?", **env):
    full = dict(os.environ, XDG_CACHE_HOME=str(cache), **env)
    payload = json.dumps({"prompt": prompt, "cwd": str(project), "session_id": os.urandom(6).hex()}).encode()  # no dedupe
    return subprocess.run([sys.executable, "-S", str(plugin / "hooks" / "user_prompt_submit.py")], input=payload,
                          capture_output=True, env=full, cwd=project, timeout=60)


def cached_files(cache):
    return sorted(p.name for p in cache.rglob("*.bin"))


def pycache_dirs(root):
    return [d for d, _, _ in os.walk(root) if os.path.basename(d) == "__pycache__"]


@pytest.fixture
def store(project, memory_root):
    write(memory_root, record("decision", "redis-sessions", "Use Redis for web session storage", tags=["redis", "sessions"]))
    return project


def test_without_bytecode_writing_the_code_is_kept_in_the_user_cache(plugin, store, tmp_path):
    cache = tmp_path / "cache"
    first = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    assert first.returncode == 0 and b"Use Redis" in first.stdout, first.stderr
    names = cached_files(cache)
    assert "team_memory.recall.retrieve.bin" in names and "team_memory.records.hookio.bin" in names
    assert pycache_dirs(plugin) == []  # nothing written inside the plugin folder
    stamps = {p: p.stat().st_mtime_ns for p in cache.rglob("*.bin")}
    second = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    assert second.stdout == first.stdout
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.bin")} == stamps  # read, not written again


def test_the_cached_code_is_what_runs_and_a_changed_source_replaces_it(plugin, store, tmp_path):
    cache = tmp_path / "cache"
    run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    (cached,) = [p for p in cache.rglob("team_memory.records.hookio.bin")]
    source = plugin / "scripts" / "team_memory" / "records" / "hookio.py"
    lines = 3 + sys.version.count("\n")  # the header: the interpreter's version (3.9's has a line break), path, stamp
    header = cached.read_bytes().split(b"\n", lines)
    altered = source.read_text().replace('def emit(result) -> None:\n', 'def emit(result) -> None:\n    result = "FROM-CACHE"\n')
    code = compile(altered, str(source), "exec")
    cached.write_bytes(b"\n".join(header[:lines]) + b"\n" + marshal.dumps(code))
    assert run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1").stdout == b"FROM-CACHE"
    source.write_text(source.read_text() + "\n")  # the source changed: its cached code no longer counts
    out = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1").stdout
    assert b"Use Redis" in out and b"FROM-CACHE" not in out


def test_a_damaged_cache_file_is_compiled_again(plugin, store, tmp_path):
    cache = tmp_path / "cache"
    run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    (hookio,) = cache.rglob("team_memory.records.hookio.bin")
    (retrieve,) = cache.rglob("team_memory.recall.retrieve.bin")
    sizes = hookio.stat().st_size, retrieve.stat().st_size
    hookio.write_bytes(hookio.read_bytes()[:sizes[0] // 2])  # the header intact, the code cut short
    retrieve.write_bytes(b"garbage")
    proc = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    assert proc.returncode == 0 and proc.stderr == b"" and b"Use Redis" in proc.stdout
    assert (hookio.stat().st_size, retrieve.stat().st_size) == sizes


def test_python_keeps_its_own_cache_when_it_can(plugin, store, tmp_path):
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cache = tmp_path / "cache"
    proc = subprocess.run([sys.executable, "-S", str(plugin / "hooks" / "user_prompt_submit.py")],
                          input=json.dumps({"prompt": "redis sessions", "cwd": str(store)}).encode(),
                          capture_output=True, env=dict(env, XDG_CACHE_HOME=str(cache)), cwd=store, timeout=60)
    assert proc.returncode == 0
    assert pycache_dirs(plugin / "scripts") and cached_files(cache) == []


def test_a_read_only_package_folder_counts_as_not_cached(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert bytecache.python_caches_here(str(tmp_path))
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert not bytecache.python_caches_here(str(tmp_path))


def test_a_cache_folder_inside_the_plugin_is_not_used(plugin, store):
    cache = plugin / "cache"
    proc = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    assert proc.returncode == 0 and b"Use Redis" in proc.stdout
    assert not cache.exists()


def test_a_cache_folder_inside_the_project_repository_is_not_used(plugin, store):
    cache = store / "build-cache"  # XDG_CACHE_HOME pointed into the repository Claude Code works in
    proc = run(plugin, store / ".claude", cache, PYTHONDONTWRITEBYTECODE="1")  # run from a subfolder
    assert proc.returncode == 0 and proc.stderr == b""
    assert not cache.exists()


def _plant(cache, plugin):
    """A ``.bin`` for hookio whose code prints FROM-CACHE, with the header the loader expects (public data)."""
    (cached,) = cache.rglob("team_memory.records.hookio.bin")
    source = plugin / "scripts" / "team_memory" / "records" / "hookio.py"
    lines = 3 + sys.version.count("\n")
    header = cached.read_bytes().split(b"\n", lines)
    altered = source.read_text().replace('def emit(result) -> None:\n', 'def emit(result) -> None:\n    result = "FROM-CACHE"\n')
    cached.write_bytes(b"\n".join(header[:lines]) + b"\n" + marshal.dumps(compile(altered, str(source), "exec")))
    return cached


OTHER_UID = 54321  # another local user, simulated with chown when the tests run as root


@pytest.mark.parametrize("how", ["folder-0777", "folder-other-owner", "file-group-writable", "file-other-owner",
                                 "linked-folder"])
def test_a_cache_another_user_could_write_is_never_run(plugin, store, tmp_path, how):
    """A shared cache home where another user made the folder, or planted a .bin: compiled again, never run."""
    if "other-owner" in how and os.geteuid() != 0:
        pytest.skip("simulating another user's file needs chown (root); the mode cases run everywhere")
    cache = tmp_path / "cache"
    run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    planted = _plant(cache, plugin)
    folder = cache / "team-memory"
    if how == "folder-0777":  # made by us but opened up to everyone: tightened, and the file in it is not ours
        os.chmod(folder, 0o777)
        os.chmod(planted, 0o666)
    elif how == "folder-other-owner":
        os.chown(folder, OTHER_UID, OTHER_UID)
        os.chmod(folder, 0o777)
    elif how == "file-group-writable":
        os.chmod(planted, 0o664)
    elif how == "file-other-owner":
        os.chown(planted, OTHER_UID, OTHER_UID)
    else:  # the team-memory folder is a link to one another user fills
        folder.rename(tmp_path / "elsewhere")
        folder.symlink_to(tmp_path / "elsewhere")
    proc = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    assert proc.returncode == 0 and b"Use Redis" in proc.stdout and b"FROM-CACHE" not in proc.stdout
    assert len(proc.stderr.splitlines()) <= 1
    if how in ("folder-other-owner", "linked-folder"):  # the folder refused: said once, nothing written there
        assert b"compiled code not cached" in proc.stderr and b"FROM-CACHE" in planted.read_bytes()
    else:  # the folder ours: the planted file replaced by our own compiled code
        assert proc.stderr == b"" and b"FROM-CACHE" not in planted.read_bytes()
        assert (folder.stat().st_mode & 0o022) == 0 and (planted.stat().st_mode & 0o077) == 0


def test_an_open_cache_home_without_the_sticky_bit_is_not_used(plugin, store, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chmod(cache, 0o777)  # anyone could swap our folders in it for theirs
    proc = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    assert proc.returncode == 0 and b"Use Redis" in proc.stdout and cached_files(cache) == []
    assert proc.stderr.count(b"\n") == 1 and b"compiled code not cached" in proc.stderr
    os.chmod(cache, 0o1777)  # sticky, as /tmp: nobody removes or renames what they do not own
    proc = run(plugin, store, cache, PYTHONDONTWRITEBYTECODE="1")
    assert proc.stderr == b"" and "team_memory.records.hookio.bin" in cached_files(cache)
