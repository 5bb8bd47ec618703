"""Which Python the hooks start first, and what starting it costs (``doctor``'s hook-python check).

Every hook command starts ``"${TEAM_MEMORY_PYTHON:-python3}" -S <launcher>`` (then ``python``, then
``py -3``): the interpreter named by ``TEAM_MEMORY_PYTHON`` when it is set, else ``python3`` as the
shell finds it on ``PATH``. Where that ``python3`` is a version manager's shim (pyenv's and asdf's are
shell scripts that work out which version to run, then start it), every hook call pays for the shim
before Python even starts: several times what the hook itself costs (docs/benchmarks.md). ``doctor``
reports it, with the fix: ``TEAM_MEMORY_PYTHON`` set to the interpreter's own path, in the ``env`` of
Claude Code's user settings, so the hooks start it directly.

Nothing here runs in a hook. The check runs what the hooks would run (``-S -c pass``, a few times)
only when that program is a script, to say how much it costs.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from .doctor import Finding

VARIABLE = "TEAM_MEMORY_PYTHON"
RUNS = 3
SLOWER = 2.0  # a start this many times the interpreter's own ...
EXTRA_MS = 10.0  # ... and this many milliseconds more is worth a line


def hooks_path(environ) -> str:
    """``PATH`` as the shell that runs the hooks has it. Run through pyenv's shim, this process has
    folders of pyenv's own first (the version's ``bin`` and pyenv's tools, before the shims): they are
    taken off, or the interpreter itself would be found where the hooks find the shim."""
    entries = environ.get("PATH", os.defpath).split(os.pathsep)
    root = environ.get("PYENV_ROOT", "")
    if root and "PYENV_DIR" in environ:  # set by ``pyenv exec``: this process came through a pyenv shim
        shims = os.path.join(root, "shims")
        within = os.path.join(root, "")
        while entries and entries[0] != shims and os.path.join(entries[0], "").startswith(within):
            entries.pop(0)
    return os.pathsep.join(entries)


def first_python(environ=None) -> tuple:
    """``(how the hooks name it, the program the shell runs or None)``: ``$TEAM_MEMORY_PYTHON`` when set
    (a full path, or a name found on ``PATH``), else ``python3`` found on ``PATH`` (``hooks_path``)."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(VARIABLE, "")
    name = chosen or "python3"
    if os.sep in name or (os.altsep and os.altsep in name):
        found = name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    else:
        found = shutil.which(name, path=hooks_path(environ))
    return (f"{VARIABLE}={chosen}" if chosen else "python3"), found


def is_script(path: str) -> bool:
    """True when ``path`` (links followed) starts with ``#!``: a shell script, not an interpreter."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def start_ms(program: str, environ=None, runs: int = RUNS) -> float | None:
    """The fastest of ``runs`` starts of ``program -S`` (a Python 3.9+ check), in milliseconds; None when
    it fails or is older."""
    best = None
    for _ in range(runs):
        began = time.perf_counter()
        try:
            proc = subprocess.run([program, "-S", "-c", "import sys; sys.exit(sys.version_info < (3, 9))"],
                                  capture_output=True, timeout=10, env=environ)
        except (OSError, subprocess.SubprocessError):
            return None
        if proc.returncode != 0:
            return None
        took = (time.perf_counter() - began) * 1000
        best = took if best is None else min(best, took)
    return best


def _runs(program: str, environ) -> bool:
    """True when ``program`` starts a Python 3.9 or newer (this interpreter itself is not run again)."""
    try:
        if sys.executable and os.path.samefile(program, sys.executable):
            return True
    except OSError:
        return False
    return start_ms(program, environ, runs=1) is not None


def _settings_fix(interpreter: str) -> str:
    from ..base.fastjson import dumps
    return (f'add {dumps({"env": {VARIABLE: interpreter}})} to ~/.claude/settings.json (or to this '
            f"project's .claude/settings.local.json): the hooks then start that interpreter directly")


def findings(environ=None) -> list:
    """Advisory ``Finding``s about the interpreter the hooks start first (none when all is well)."""
    environ = dict(os.environ) if environ is None else environ
    how, program = first_python(environ)
    here = sys.executable if sys.executable and not is_script(sys.executable) else ""
    if environ.get(VARIABLE) and (program is None or not _runs(program, environ)):
        return [Finding("hook-python", VARIABLE, f"{how} does not start Python 3.9 or newer: every hook tries it, "
                        "then falls back to python and py -3",
                        f"set it to an interpreter's full path{f' (this one: {here})' if here else ''}, or remove it",
                        warning=True)]
    if program is None or not is_script(program) or not here:
        return []  # an interpreter itself (or nothing better to name): nothing to gain
    slow, fast = start_ms(program, environ), start_ms(here, environ)
    if slow is None or fast is None or slow < fast * SLOWER or slow - fast < EXTRA_MS:
        return []
    return [Finding("hook-python", how, f"{program} is a script (a version manager's shim, it seems): every hook call "
                    f"spends about {slow - fast:.0f} ms in it before Python starts ({slow:.0f} ms against "
                    f"{fast:.0f} ms for the interpreter itself)", _settings_fix(here), warning=True)]
