"""``doctor``'s hook-python check: the ``python3`` the hooks' shell finds, and what starting it costs.

A version manager's shim (a shell script) costs every hook call several times the hook (docs/benchmarks.md); the
fix is the interpreter's folder first on ``PATH``, so the command stays a plain ``python3`` (all PowerShell parses).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from .doctor import Finding

RUNS = 3
SLOWER = 2.0  # a start this many times the interpreter's own ...
EXTRA_MS = 10.0  # ... and this many milliseconds more is worth a line


def hooks_python(environ=None) -> str | None:
    """The ``python3`` the hooks' shell finds, or None; pyenv's own folders that ``pyenv exec`` put before its shims
    on this process's ``PATH`` are taken off (the hooks' shell finds the shim there)."""
    environ = os.environ if environ is None else environ
    entries = environ.get("PATH", os.defpath).split(os.pathsep)
    root = environ.get("PYENV_ROOT", "")
    if root and "PYENV_DIR" in environ:  # set by ``pyenv exec``: this process came through a pyenv shim
        shims, within = os.path.join(root, "shims"), os.path.join(root, "")
        while entries and entries[0] != shims and os.path.join(entries[0], "").startswith(within):
            entries.pop(0)
    return shutil.which("python3", path=os.pathsep.join(entries))


def is_script(path: str) -> bool:
    """True when ``path`` (links followed) starts with ``#!``: a shell script, not an interpreter."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def start_ms(program: str) -> float | None:
    """The fastest of ``RUNS`` starts of ``program -S`` in milliseconds; None when it fails or is older than 3.9."""
    times = []
    for _ in range(RUNS):
        began = time.perf_counter()
        try:
            proc = subprocess.run([program, "-S", "-c", "import sys; sys.exit(sys.version_info < (3, 9))"],
                                  capture_output=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        if proc.returncode != 0:
            return None
        times.append((time.perf_counter() - began) * 1000)
    return min(times)


def findings() -> list:
    """An advisory ``Finding`` when the hooks' ``python3`` is a slow script in front of the interpreter."""
    program = hooks_python()
    here = sys.executable if sys.executable and not is_script(sys.executable) else ""
    if program is None or not here or not is_script(program):
        return []  # an interpreter itself (or nothing better to name): nothing to gain
    slow, fast = start_ms(program), start_ms(here)
    if slow is None or fast is None or slow < fast * SLOWER or slow - fast < EXTRA_MS:
        return []
    fix = f'start Claude Code with the interpreter\'s folder first on PATH: PATH="{os.path.dirname(here)}:$PATH" claude'
    if os.environ.get("PYENV_ROOT"):
        fix += ' (with pyenv, PATH="$(pyenv prefix)/bin:$PATH" claude takes the version pyenv picks for the project)'
    return [Finding("hook-python", "python3", f"{program} is a script (a version manager's shim, it seems): every hook "
                    f"call spends about {slow - fast:.0f} ms in it before Python starts ({slow:.0f} ms against "
                    f"{fast:.0f} ms for the interpreter itself)",
                    fix + "; Claude Code's own commands then find that python3 too", warning=True)]
