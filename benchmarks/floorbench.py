"""Every hook against the interpreter's floor, and today's hooks against another checkout's (``bench.py --floor``).

Issue 26's table: each hook as ``hooks.json`` runs it, paired run by run with ``python3 -S -c
pass`` (the ratio is the median of the pairs' ratios, wall clock and CPU time), on generated
stores of 100 and 10,000 memories (``storegen``), in two bytecode settings:

- ``pyc``: Python's default, compiled code in ``__pycache__`` beside the sources;
- ``no-write``: ``PYTHONDONTWRITEBYTECODE=1`` and no ``__pycache__`` anywhere (a container, a
  read-only plugin folder): the package's code comes from the user's cache folder (``bytecache``).

Each checkout runs from a copy of its runtime (``hooks``, ``scripts``, ``templates``, ``hooks.json``)
made for each setting, so the repository is never written and ``no-write`` never meets a
``__pycache__``; the first run of every scenario (not counted) fills the caches.

Calls: UserPromptSubmit with a prompt the store answers, in a new session each run (the block
is shown); PreToolUse and PostToolUse on an ordinary Bash call (``pytest -q tests/test_orders.py``);
SessionStart (``startup``); Stop with two new transcript lines before each run. The **floor** of
a row is the interpreter's start plus what the hook cannot skip: for the prompt hook and
SessionStart, one ``lstat`` per memory file (a ``python3 -S`` process doing only that, through
the built-in ``posix`` module, paired the same way); for the others, the interpreter alone (1.00).

Two more columns split what a hook costs above that floor, each paired the same way: **import
os** (``python3 -S -c "import os"``: every hook needs ``os``, which ``-S`` leaves unloaded) and
**code loaded** (a ``python3 -S`` process that starts as the hook's launcher does, then imports
exactly the modules the hook imported in that call, in the same order, and exits: what loading
the hook's code costs, with no work done). The hook's ratio less the "code loaded" one is its work.

``--against PATH`` runs another checkout's hooks (say, the main branch) in the same rounds, on
its own copy of each store, and adds its ratio and the median of the pairs "this checkout /
that one" (below 1: this one is faster).
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess

# The speed budgets (medians against ``python3 -S -c pass``, docs/benchmarks.md): the prompt hook at 100 and
# 10,000 memories; the tool hooks on an ordinary line without bytecode caching, and about 1.4x with it.
GOALS = {("UserPromptSubmit", 100, None): 3.0, ("UserPromptSubmit", 10000, None): 6.0,
         ("PreToolUse", None, "no-write"): 2.0, ("PostToolUse", None, "no-write"): 2.0,
         ("PreToolUse", None, "pyc"): 1.4, ("PostToolUse", None, "pyc"): 1.4}
MODES = ("pyc", "no-write")
ORDINARY = "pytest -q tests/test_orders.py"
FLOOR_CODE = ("import posix\n"
              "for block in open(__import__('sys').argv[1]).read().split('\\0'):\n"
              "    folder, *names = block.split('\\n')\n"
              "    fd = posix.open(folder, posix.O_RDONLY)\n"
              "    for name in names:\n"
              "        posix.stat(name, dir_fd=fd, follow_symlinks=False)\n"
              "    posix.close(fd)\n")


LOAD_CODE = ("import gc, os, sys\n"
             "gc.disable()\n"
             "sys.path.insert(0, sys.argv[1])\n"
             "from team_memory.base import bytecache\n"
             "bytecache.install()\n"
             "for name in sys.argv[2:]:\n"
             "    __import__(name)\n")


def imported_modules(argv, stdin: bytes, env: dict, cwd: str) -> list:
    """The modules one run of a hook imports, in the order their imports ended (``-X importtime``)."""
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=dict(env, PYTHONPROFILEIMPORTTIME="1"), cwd=cwd)
    names = []
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            names.append(line.rsplit("|", 1)[1].strip())
    return names


def goal(event: str, n: int, mode: str):
    for key in ((event, n, None), (event, None, mode)):
        if key in GOALS:
            return GOALS[key]
    return None


def runtime_copy(checkout: str, dest: str) -> str:
    for item in ("hooks", "scripts", "templates", "hooks.json"):
        src = os.path.join(checkout, item)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, item), ignore=shutil.ignore_patterns("__pycache__"))
        elif os.path.exists(src):
            shutil.copy(src, os.path.join(dest, item))
    return dest


def floor_names(memory_root: str, path: str) -> str:
    """Every memory file's folder and name, as the floor process reads them."""
    blocks = []
    for entry in sorted(os.scandir(memory_root), key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
            names = sorted(n for n in os.listdir(entry.path) if n.endswith(".json"))
            if names:
                blocks.append("\n".join([entry.path] + names))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\0".join(blocks))
    return path


def prepare_project(project: str) -> None:
    subprocess.run(["git", "init", "-q", project], check=True)
    os.makedirs(os.path.join(project, "tests"), exist_ok=True)
    with open(os.path.join(project, "tests", "test_orders.py"), "w", encoding="utf-8") as f:
        f.write("def test_orders():\n    assert True\n")


def calls(hook_argv, project: str, transcript: str, match: str, grow) -> list:
    """``(event, call, argv, stdin maker, setup)`` for one checkout's runtime and one store."""
    base = {"transcript_path": transcript, "cwd": project, "permission_mode": "default"}
    bash = {"tool_name": "Bash", "tool_input": {"command": ORDINARY}, "tool_use_id": "toolu_bench"}
    counter = [0]

    def fresh(fields: dict, new_session: bool = False):
        def make():
            counter[0] += 1
            session = f"bench-{counter[0]}" if new_session else "bench"
            return json.dumps(dict(base, session_id=session, **fields)).encode()
        return make

    return [
        ("UserPromptSubmit", "matching prompt, new session", hook_argv("UserPromptSubmit"),
         fresh({"hook_event_name": "UserPromptSubmit", "prompt": match}, True), None),
        ("PreToolUse", "ordinary Bash", hook_argv("PreToolUse"), fresh(dict(bash, hook_event_name="PreToolUse")), None),
        ("PostToolUse", "ordinary Bash", hook_argv("PostToolUse"),
         fresh(dict(bash, hook_event_name="PostToolUse", tool_response={"stdout": "1 passed"})), None),
        ("SessionStart", "startup", hook_argv("SessionStart"),
         fresh({"hook_event_name": "SessionStart", "source": "startup"}), None),
        ("Stop", "new turn", hook_argv("Stop"), fresh({"hook_event_name": "Stop", "stop_hook_active": False}), grow),
    ]


def bench_floor(ctx, sizes: list, rounds: int, workdir: str, seed: int, against=None) -> dict:
    """``ctx``: bench.py's helpers (``PY``, ``REPO``, ``CLI``, ``run_wait4``, ``percentile``,
    ``make_store``, ``match_prompt``, ``hookbench``)."""
    py, rng = ctx.PY, random.Random(seed)
    checkouts = {"this": ctx.REPO}
    if against:
        checkouts["today"] = os.path.abspath(against)
    runtimes = {(name, mode): runtime_copy(path, os.path.join(workdir, f"runtime-{name}-{mode}"))
                for name, path in checkouts.items() for mode in MODES}
    envs = {}
    for name in checkouts:
        envs[(name, "pyc")] = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        envs[(name, "no-write")] = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                                        XDG_CACHE_HOME=os.path.join(workdir, f"user-cache-{name}"))
    table = []  # (event, call, n, mode, {checkout: (argv, stdin maker, setup, env, cwd)}, floor argv or None)
    for n in sizes:
        project = os.path.join(workdir, f"store-{n}-this")
        memory_root = ctx.make_store(project, n, seed)
        prepare_project(project)
        subprocess.run([py, ctx.CLI, "rebuild", "--root", project], check=True, capture_output=True)
        match = ctx.match_prompt(project, memory_root, random.Random(seed))
        floor = [py, "-S", "-c", FLOOR_CODE, floor_names(memory_root, os.path.join(workdir, f"names-{n}.txt"))]
        projects = {"this": project}
        for name in checkouts:
            if name != "this":
                projects[name] = os.path.join(workdir, f"store-{n}-{name}")
                shutil.copytree(project, projects[name], symlinks=True)
                cli = os.path.join(checkouts[name], "scripts", "memory.py")  # its own cache (a copy's inodes differ)
                subprocess.run([py, cli, "rebuild", "--root", projects[name]], check=True, capture_output=True)
        for mode in MODES:
            per_checkout = {}
            for name in checkouts:
                proj = projects[name]
                transcript = os.path.join(workdir, f"transcript-{n}-{name}-{mode}.jsonl")
                with open(transcript, "w", encoding="utf-8") as f:
                    for i in range(20):
                        f.write(ctx.hookbench.transcript_line("user", f"can you look at the failing export test {i}?"))
                        f.write(ctx.hookbench.transcript_line("assistant", f"The export test {i} failed on a timeout."))

                def grow(path=transcript):
                    with open(path, "a", encoding="utf-8") as f:
                        f.write(ctx.hookbench.transcript_line("user", "and the retry step, does it still time out?"))
                        f.write(ctx.hookbench.transcript_line("assistant", "It passes now. We decided to keep the "
                                                              "retries at three because the partner API rate-limits us."))
                argv_of = lambda event, r=runtimes[(name, mode)]: ctx.hookbench.hook_argv(r, py, event)  # noqa: E731
                made = calls(argv_of, proj, transcript, match, grow)
                pre = next(c for c in made if c[0] == "PreToolUse")
                for event, call, argv, stdin, setup in made:
                    if event == "PostToolUse":  # its PreToolUse first, untimed: what it took before the call
                        setup = (lambda p=pre, e=envs[(name, mode)], d=proj: subprocess.run(
                            p[2], input=p[3](), capture_output=True, env=e, cwd=d))
                    per_checkout.setdefault((event, call), {})[name] = (argv, stdin, setup, envs[(name, mode)], proj)
            for (event, call), runs in per_checkout.items():
                if event not in ("UserPromptSubmit", "SessionStart") and n != sizes[0]:
                    continue  # the store's size changes nothing there: the smallest store only
                per_file = event in ("UserPromptSubmit", "SessionStart")
                table.append((event, call, n, mode, runs, floor if per_file else None))
    for event, call, n, mode, runs, _ in table:  # sanity, and the first run fills every cache
        for name, (argv, stdin, setup, env, cwd) in runs.items():
            for _ in range(2):
                if setup:
                    setup()
                proc = subprocess.run(argv, input=stdin(), capture_output=True, env=env, cwd=cwd)
                if proc.returncode != 0 or proc.stderr:
                    raise SystemExit(f"{name} {event} {call} at {n} [{mode}]: {proc.returncode} {proc.stderr[:300]!r}")
            if event == "UserPromptSubmit" and not proc.stdout.startswith(b"<memory-context"):
                raise SystemExit(f"{name}: the prompt hook showed nothing at {n} [{mode}]")
    bare = [py, "-S", "-c", "pass"]
    with_os = [py, "-S", "-c", "import os"]
    rows = []
    for event, call, n, mode, runs, floor in table:
        argv, stdin, setup, env, cwd = runs["this"]
        if setup:
            setup()
        scripts = os.path.join(os.path.dirname(os.path.dirname(argv[-1])), "scripts")
        loaded = [py, "-S", "-c", LOAD_CODE, scripts] + [m for m in imported_modules(argv, stdin(), env, cwd)
                                                          if m not in ("team_memory", "team_memory.base",
                                                                       "team_memory.base.bytecache")]
        extra = {"floor": floor, "os": with_os, "loaded": (loaded, env, cwd)}
        ratios = {name: [] for name in runs}
        cpu = {name: [] for name in runs}
        times = {name: [] for name in runs}
        ab, extra_ratios = [], {name: [] for name in extra}
        for _ in range(rounds):
            order = list(runs) + [name for name, value in extra.items() if value]
            rng.shuffle(order)
            measured = {}
            for name in order:
                first = rng.random() < 0.5
                if first:
                    base = ctx.run_wait4(bare)
                if name == "loaded":
                    got = ctx.run_wait4(loaded, cwd=cwd, env=env)
                elif name in extra:
                    got = ctx.run_wait4(extra[name])
                else:
                    argv, stdin, setup, env, cwd = runs[name]
                    if setup:
                        setup()
                    got = ctx.run_wait4(argv, stdin(), cwd=cwd, env=env)
                if not first:
                    base = ctx.run_wait4(bare)
                if name in extra:
                    extra_ratios[name].append(got[0] / base[0])
                    continue
                measured[name] = got
                times[name].append(got[0])
                ratios[name].append(got[0] / base[0])
                cpu[name].append(got[3] / base[3] if base[3] > 0 else float("nan"))
            if "today" in measured:
                ab.append(measured["this"][0] / measured["today"][0])
        med = lambda values: ctx.percentile(values, 0.5) if values else None  # noqa: E731
        rows.append({"event": event, "call": call, "n": n, "mode": mode, "median_ms": med(times["this"]) * 1000,
                     "ratio": med(ratios["this"]), "cpu_ratio": med(cpu["this"]),
                     "floor": med(extra_ratios["floor"]) if floor else 1.0, "os": med(extra_ratios["os"]),
                     "loaded": med(extra_ratios["loaded"]), "today": med(ratios.get("today", [])),
                     "vs_today": med(ab), "goal": goal(event, n, mode)})
    return {"sizes": sizes, "rounds": rounds, "against": against, "rows": rows}


def report(res: dict, machine: str) -> str:
    lines = [machine, f"rounds: {res['rounds']}; each run paired with a run of python3 -S -c pass (random order); "
                      "ratios are medians of the pairs' ratios"]
    if res["against"]:
        lines.append("today: the hooks of the checkout given with --against, on their own copy of each store")
    lines += ["", "| hook | call | memories | bytecode | median ms | x `python3 -S -c pass` | x, CPU time | floor | "
                  "import os | code loaded | today's hooks | this / today | goal |",
              "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    for r in sorted(res["rows"], key=lambda r: (r["mode"] != "pyc", r["event"], r["n"])):
        verdict = "" if r["goal"] is None else f"<= {r['goal']} {'met' if r['ratio'] <= r['goal'] else 'MISSED'}"
        lines.append(f"| {r['event']} | {r['call']} | {r['n']:,} | {r['mode']} | {r['median_ms']:.1f} | "
                     f"{r['ratio']:.2f} | {r['cpu_ratio']:.2f} | {r['floor']:.2f} | {fmt(r['os'])} | "
                     f"{fmt(r['loaded'])} | {fmt(r['today'])} | "
                     f"{fmt(r['vs_today'])} | {verdict} |")
    return "\n".join(lines)
