"""Every git run of the package (``run_git``): nothing but git's own reading happens.

Each run: ``SAFE_CONFIG``, no external diff, textconv, mailmap or notes, no optional locks, no prompt, other ``GIT_*``
variables dropped, output parsed from ``-z``, at most ``limit`` bytes and ``timeout`` seconds, then the process group
killed. No fetch, ever: a partial clone fetches a missing object, and a committed config can name what that runs
(``core.sshCommand``, ``ext::``); ``GIT_NO_LAZY_FETCH=1`` (git 2.44+) and ``GIT_ALLOW_PROTOCOL`` stop it.
"""
from __future__ import annotations

import os
from collections import namedtuple
from contextlib import suppress

SAFE_CONFIG = ("-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false",
               "-c", "color.ui=never", "-c", "protocol.allow=never")
LOG_OPTIONS = ("--no-renames", "--no-ext-diff", "--no-textconv", "--no-color", "--no-mailmap", "--no-notes",
               "--relative", "--raw", "-z")
HEADER = "\x1e"
MAX_LOG_BYTES = 64 * 1024 * 1024
MAX_LIST_BYTES = 64 * 1024 * 1024
TIMEOUT_S = 20.0
# One commit of the log: full hash, parents, committer time (POSIX seconds), subject, paths touched.
Commit = namedtuple("Commit", "hash parents time subject paths")


def run_git(cwd: str, args, stdin: bytes = b"", limit: int = MAX_LOG_BYTES, timeout: float = TIMEOUT_S):
    """``(stdout bytes, complete)`` of ``git <args>`` in ``cwd`` (False: stopped early); None when git fails."""
    import shutil
    import subprocess
    git = shutil.which("git")
    if git is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat",
               GIT_NO_LAZY_FETCH="1", GIT_ALLOW_PROTOCOL="none")  # no transport at all: the module's docstring
    try:
        proc = subprocess.Popen([git, "--no-pager", *SAFE_CONFIG, *args], cwd=cwd, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                close_fds=True, start_new_session=hasattr(os, "killpg"))
    except (OSError, ValueError):
        return None
    import time
    complete, deadline = False, time.monotonic() + timeout
    try:
        data, complete = _read_bounded(proc, stdin, limit, deadline)
        if complete:  # all read: git is leaving; its exit status says whether the output counts
            proc.wait(max(0.05, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        complete = False
    finally:
        stop(proc)  # the whole group, also after a clean exit: nothing git started outlives the run
        proc.stdout.close()
        code = proc.wait()
    return None if complete and code != 0 else (data[:limit], complete)


def stop(proc) -> None:
    """Kill ``proc`` and every process it started (its process group; on Windows ``proc`` alone)."""
    killpg = getattr(os, "killpg", None)
    if killpg is not None:
        import signal
        with suppress(OSError):  # (gone already, group and all)
            killpg(proc.pid, signal.SIGKILL)  # its own group (``start_new_session``): children too
            return
    with suppress(OSError):
        proc.kill()


def _read_bounded(proc, stdin: bytes, limit: int, deadline: float):
    """``(output, complete)``: read as it comes, stopping at ``limit`` bytes or the ``deadline`` (monotonic)."""
    import selectors
    import time
    with suppress(OSError):
        proc.stdin.write(stdin)
        proc.stdin.close()
    try:
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
    except (OSError, ValueError):  # pipes cannot be selected on (Windows): a timer stops git instead
        import threading
        stopped = []
        timer = threading.Timer(deadline - time.monotonic(), lambda: stopped.append(stop(proc)))
        timer.start()
        try:
            data = proc.stdout.read(limit + 1)
        finally:
            timer.cancel()
        return data, len(data) <= limit and not stopped
    data = bytearray()
    with sel:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or len(data) > limit:
                return bytes(data), False
            if not sel.select(left):
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return bytes(data), True
            data += chunk


def log_commits(cwd: str, since: int, paths, max_commits: int):
    """``(commits newest first, complete)`` of HEAD's history since ``since`` touching ``paths``; None on failure."""
    spec = b"".join(b"\n" + (":(literal)" + p).encode("utf-8", "surrogateescape") for p in paths)
    args = ["log", f"--format={HEADER}%H %P%x1f%ct%x1f%s", f"--max-count={max_commits}",
            f"--since=@{max(1, int(since))}", "--topo-order", *LOG_OPTIONS, "--stdin", "HEAD"]
    got = run_git(cwd, args, b"--" + spec + b"\n")
    return None if got is None else (parse_log(*got), got[1])


def parse_log(data: bytes, complete: bool = True) -> list:
    """Commits from ``git log --raw -z`` (a path token follows each status token); cut short: the last dropped."""
    commits, expect_path = [], False
    for token in data.split(b"\x00"):
        if expect_path:
            if commits:
                commits[-1].paths.append(token.decode("utf-8", "surrogateescape"))
            expect_path = False
            continue
        token = token.lstrip(b"\n")
        if token.startswith(b":"):
            expect_path = True
        elif token.startswith(HEADER.encode()):
            parts = token[1:].decode("utf-8", "replace").split("\x1f", 2)
            ids = parts[0].split()
            with suppress(ValueError):  # a time that is no number: no commit
                if len(parts) == 3 and ids:
                    commits.append(Commit(ids[0], tuple(ids[1:]), int(parts[1]), parts[2], []))
    if not complete and commits:
        commits.pop()
    return commits


def tracked_files(cwd: str):
    """The files git tracks under ``cwd`` (paths relative to it), or None when that cannot be told."""
    got = run_git(cwd, ["ls-files", "-z", "--cached"], limit=MAX_LIST_BYTES)
    return [p.decode("utf-8", "surrogateescape") for p in got[0].split(b"\x00") if p] if got and got[1] else None
