"""Every hook against the interpreter's floor, and against another checkout's hooks (``bench.py floor`` / ``hooks``).

Each hook runs as ``hooks.json`` says, paired run by run with ``python3 -S -c pass`` (the ratio is the
median of the pairs' ratios, wall clock and CPU time), on generated stores (``benchlib.make_store``),
in two bytecode settings:

- ``pyc``: Python's default, compiled code in ``__pycache__`` beside the sources;
- ``no-write``: ``PYTHONDONTWRITEBYTECODE=1`` and no ``__pycache__`` anywhere (a container, a
  read-only plugin folder): the package's code comes from the user's cache folder (``bytecache``).

Each checkout runs from a copy of its runtime (``hooks``, ``scripts``, ``templates``, ``hooks.json``)
made for each setting, so the repository is never written and ``no-write`` never meets a
``__pycache__``; the first run of every scenario (not counted) fills the caches.

Calls (``floor``, 100 and 10,000 memories): UserPromptSubmit with a prompt the store answers, in a new
session each run (the block is shown); PreToolUse and PostToolUse on an ordinary Bash call (``pytest -q
tests/test_orders.py``); SessionStart (``startup``); Stop with two new transcript lines before each run.
``hooks`` (1,000 memories) makes the same calls but for the tool hooks on a read-only Bash line (``git
status``) and a Write of a source file, and the prompt in one session. The **floor** of a row is the
interpreter's start plus what the hook cannot skip: for the prompt hook and SessionStart, one ``lstat`` per
memory file (a ``python3 -S`` process doing only that, through the built-in ``posix`` module, paired the
same way); for the others, the interpreter alone (1.00).

Two more columns split what a hook costs above that floor, each paired the same way: **import
os** (``python3 -S -c "import os"``: every hook needs ``os``, which ``-S`` leaves unloaded) and
**code loaded** (a ``python3 -S`` process that starts as the hook's launcher does, then imports
exactly the modules the hook imported in that call, in the same order, and exits: what loading
the hook's code costs, with no work done). The hook's ratio less the "code loaded" one is its work.

``--against PATH`` runs another checkout's hooks (say, the main branch) in the same rounds, on
its own copy of each store, and adds its ratio and the median of the pairs "this checkout /
that one" (below 1: this one is faster).

    python3 benchmarks/bench.py floor --rounds 21 --against ../main   # 100 and 10,000 memories
    python3 benchmarks/bench.py hooks --rounds 11                     # every hook at 1,000 memories
    python3 benchmarks/bench.py floor --sizes 100 --rounds 1          # a smoke run
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess

from benchlib import (CLI, PY, REPO, hook_argv, machine, make_store, match_prompt, percentile, run_wait4,
                      runtime_copy, scratch, transcript)

# The speed budgets (medians against ``python3 -S -c pass``, docs/benchmarks.md): the prompt hook at 100 and
# 10,000 memories; the tool hooks on an ordinary line without bytecode caching, and about 1.4x with it.
GOALS = {("UserPromptSubmit", 100, None): 3.0, ("UserPromptSubmit", 10000, None): 6.0,
         ("PreToolUse", None, "no-write"): 2.0, ("PostToolUse", None, "no-write"): 2.0,
         ("PreToolUse", None, "pyc"): 1.4, ("PostToolUse", None, "pyc"): 1.4}
MODES = ("pyc", "no-write")
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
    for rel, text in (("tests/test_orders.py", "def test_orders():\n    assert True\n"),
                      ("src/app.py", "print('hi')\n")):
        os.makedirs(os.path.dirname(os.path.join(project, rel)), exist_ok=True)
        with open(os.path.join(project, rel), "w", encoding="utf-8") as f:
            f.write(text)


def calls(kind: str, project: str, match: str) -> list:
    """``(event, call, payload fields, a new session each run)`` of ``floor`` or ``hooks``."""
    if kind == "floor":
        tools = {"ordinary Bash": {"tool_name": "Bash", "tool_input": {"command": "pytest -q tests/test_orders.py"}}}
        prompt = ("matching prompt, new session", True)
    else:
        src = os.path.join(project, "src", "app.py")
        tools = {"bash read-only": {"tool_name": "Bash", "tool_input": {"command": "git status"}},
                 "write src": {"tool_name": "Write", "tool_input": {"file_path": src, "content": "print('hi')\n" * 40}}}
        prompt = ("matching prompt", False)
    made = [("UserPromptSubmit", prompt[0], {"prompt": match}, prompt[1]),
            ("SessionStart", "startup", {"source": "startup"}, False),
            ("Stop", "new turn", {"stop_hook_active": False}, False)]
    for call, fields in tools.items():
        made.append(("PreToolUse", call, dict(fields, tool_use_id="toolu_bench"), False))
        made.append(("PostToolUse", call, dict(fields, tool_use_id="toolu_bench", tool_response={"stdout": "1 passed"}),
                     False))
    return made


def stdin_maker(project: str, transcript_path: str, event: str, fields: dict, new_session: bool):
    counter = [0]

    def make():
        counter[0] += 1
        session = f"bench-{counter[0]}" if new_session else "bench"
        return json.dumps(dict(fields, hook_event_name=event, session_id=session, transcript_path=transcript_path,
                               cwd=project, permission_mode="default")).encode()
    return make


def stores(n: int, seed: int, workdir: str, checkouts: dict) -> tuple:
    """``({checkout: project}, matching prompt, floor argv)``: one generated store, a copy per other checkout."""
    project = os.path.join(workdir, f"store-{n}-this")
    memory_root = make_store(project, n, seed)
    prepare_project(project)
    subprocess.run([PY, CLI, "rebuild", "--root", project], check=True, capture_output=True)
    match = match_prompt(project, memory_root, random.Random(seed))
    floor = [PY, "-S", "-c", FLOOR_CODE, floor_names(memory_root, os.path.join(workdir, f"names-{n}.txt"))]
    projects = {"this": project}
    for name in checkouts:
        if name != "this":
            projects[name] = os.path.join(workdir, f"store-{n}-{name}")
            shutil.copytree(project, projects[name], symlinks=True)
            cli = os.path.join(checkouts[name], "scripts", "memory.py")  # its own cache (a copy's inodes differ)
            subprocess.run([PY, cli, "rebuild", "--root", projects[name]], check=True, capture_output=True)
    return projects, match, floor


def scenario_table(kind: str, sizes: list, workdir: str, seed: int, checkouts: dict) -> list:
    """``(event, call, n, mode, {checkout: (argv, stdin maker, setup, env, cwd)}, floor argv or None)``."""
    envs = {}
    for name in checkouts:
        envs[(name, "pyc")] = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        envs[(name, "no-write")] = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                                        XDG_CACHE_HOME=os.path.join(workdir, f"user-cache-{name}"))
    runtimes = {key: runtime_copy(checkouts[key[0]], os.path.join(workdir, "runtime-{}-{}".format(*key)))
                for key in envs}
    table = []
    for n in sizes:
        projects, match, floor = stores(n, seed, workdir, checkouts)
        for mode in MODES:
            per_call = {}
            for name, proj in projects.items():
                env = envs[(name, mode)]
                path = os.path.join(workdir, f"transcript-{n}-{name}-{mode}.jsonl")
                grow = transcript(path)
                pre = {}
                for event, call, fields, new_session in calls(kind, proj, match):
                    stdin = stdin_maker(proj, path, event, fields, new_session)
                    setup = grow if event == "Stop" else None
                    run = [hook_argv(event, runtimes[(name, mode)]), stdin, setup, env, proj]
                    if event == "PreToolUse":
                        pre[call] = run
                    if event == "PostToolUse":  # its PreToolUse first, untimed: what it took before the call
                        run[2] = (lambda p=pre[call]: subprocess.run(p[0], input=p[1](), capture_output=True,
                                                                     env=p[3], cwd=p[4]))
                    per_call.setdefault((event, call), {})[name] = tuple(run)
            for (event, call), runs in per_call.items():
                per_file = event in ("UserPromptSubmit", "SessionStart")
                if per_file or n == sizes[0]:  # the store's size changes nothing for the others: the smallest only
                    table.append((event, call, n, mode, runs, floor if per_file else None))
    return table


def sanity(table: list, kind: str) -> None:
    """Every scenario runs twice, untimed: it must succeed quietly, and the runs fill every cache.
    In ``floor`` the prompt hook must show its block (``hooks`` asks again in one session, which shows it once)."""
    for event, call, n, mode, runs, _ in table:
        for name, (argv, stdin, setup, env, cwd) in runs.items():
            for _ in range(2):
                if setup:
                    setup()
                proc = subprocess.run(argv, input=stdin(), capture_output=True, env=env, cwd=cwd)
                if proc.returncode != 0 or proc.stderr:
                    raise SystemExit(f"{name} {event} {call} at {n} [{mode}]: {proc.returncode} {proc.stderr[:300]!r}")
            if kind == "floor" and event == "UserPromptSubmit" and not proc.stdout.startswith(b"<memory-context"):
                raise SystemExit(f"{name}: the prompt hook showed nothing at {n} [{mode}]")


def measure(runs: dict, extra: dict, rounds: int, rng: random.Random) -> tuple:
    """``(times, ratios, CPU ratios, extra ratios, this / today)``: each run paired with ``python3 -S -c pass``."""
    bare = [PY, "-S", "-c", "pass"]
    times, ratios, cpu = ({name: [] for name in runs} for _ in range(3))
    ab, extra_ratios = [], {name: [] for name in extra}
    for _ in range(rounds):
        order = list(runs) + [name for name, value in extra.items() if value]
        rng.shuffle(order)
        measured = {}
        for name in order:
            first = rng.random() < 0.5
            if first:
                base = run_wait4(bare)
            if name in extra:
                argv, stdin, setup, env, cwd = extra[name]
            else:
                argv, stdin, setup, env, cwd = runs[name]
            if setup:
                setup()
            got = run_wait4(argv, stdin() if stdin else b"", cwd=cwd, env=env)
            if not first:
                base = run_wait4(bare)
            if name in extra:
                extra_ratios[name].append(got[0] / base[0])
                continue
            measured[name] = got
            times[name].append(got[0])
            ratios[name].append(got[0] / base[0])
            cpu[name].append(got[3] / base[3] if base[3] > 0 else float("nan"))
        if "today" in measured:
            ab.append(measured["this"][0] / measured["today"][0])
    return times, ratios, cpu, extra_ratios, ab


def bench_floor(kind: str, sizes: list, rounds: int, workdir: str, seed: int, against=None) -> dict:
    rng = random.Random(seed)
    checkouts = {"this": REPO}
    if against:
        checkouts["today"] = os.path.abspath(against)
    table = scenario_table(kind, sizes, workdir, seed, checkouts)
    sanity(table, kind)
    rows = []
    med = lambda values: percentile(values, 0.5) if values else None  # noqa: E731
    for event, call, n, mode, runs, floor in table:
        argv, stdin, setup, env, cwd = runs["this"]
        if setup:
            setup()
        scripts = os.path.join(os.path.dirname(os.path.dirname(argv[-1])), "scripts")
        loaded = [PY, "-S", "-c", LOAD_CODE, scripts] + [m for m in imported_modules(argv, stdin(), env, cwd)
                                                          if m not in ("team_memory", "team_memory.base",
                                                                       "team_memory.base.bytecache")]
        extra = {"floor": floor and (floor, None, None, None, None), "loaded": (loaded, None, None, env, cwd),
                 "os": ([PY, "-S", "-c", "import os"], None, None, None, None)}
        times, ratios, cpu, extra_ratios, ab = measure(runs, extra, rounds, rng)
        rows.append({"event": event, "call": call, "n": n, "mode": mode, "median_ms": med(times["this"]) * 1000,
                     "ratio": med(ratios["this"]), "cpu_ratio": med(cpu["this"]),
                     "floor": med(extra_ratios["floor"]) if floor else 1.0, "os": med(extra_ratios["os"]),
                     "loaded": med(extra_ratios["loaded"]), "today": med(ratios.get("today", [])),
                     "vs_today": med(ab), "goal": goal(event, n, mode)})
    return {"sizes": sizes, "rounds": rounds, "against": against, "rows": rows}


def report(res: dict) -> str:
    lines = [machine(), f"rounds: {res['rounds']}; each run paired with a run of python3 -S -c pass (random order); "
                        "ratios are medians of the pairs' ratios"]
    if res["against"]:
        lines.append("today: the hooks of the checkout given with --against, on their own copy of each store")
    lines += ["", "| hook | call | memories | bytecode | median ms | x `python3 -S -c pass` | x, CPU time | floor | "
                  "import os | code loaded | today's hooks | this / today | goal |",
              "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    for r in sorted(res["rows"], key=lambda r: (r["mode"] != "pyc", r["event"], r["n"], r["call"])):
        verdict = "" if r["goal"] is None else f"<= {r['goal']} {'met' if r['ratio'] <= r['goal'] else 'MISSED'}"
        lines.append(f"| {r['event']} | {r['call']} | {r['n']:,} | {r['mode']} | {r['median_ms']:.1f} | "
                     f"{r['ratio']:.2f} | {r['cpu_ratio']:.2f} | {r['floor']:.2f} | {fmt(r['os'])} | "
                     f"{fmt(r['loaded'])} | {fmt(r['today'])} | {fmt(r['vs_today'])} | {verdict} |")
    return "\n".join(lines)


def main(argv=None, kind: str = "floor") -> int:
    parser = argparse.ArgumentParser(prog=f"bench.py {kind}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,10000" if kind == "floor" else "1000",
                        help="comma-separated store sizes (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=15, help="runs of every scenario (default 15)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", help="where to build the stores (default: a temporary folder, removed after)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument("--against", metavar="CHECKOUT",
                        help="also run that checkout's hooks (say, the main branch) in the same rounds")
    args = parser.parse_args(argv)
    with scratch(args.workdir) as workdir:
        res = bench_floor(kind, [int(s) for s in args.sizes.split(",")], args.rounds, workdir, args.seed, args.against)
    print(report(res))
    if args.json:
        print(json.dumps(res, indent=2))
    return 0
