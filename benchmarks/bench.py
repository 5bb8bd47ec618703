#!/usr/bin/env python3
"""team-memory benchmark: whole processes, timed in one interleaved run (standard library only).

For each store size it generates a realistic store (``storegen.py``), then runs every
scenario once per round, in a shuffled order each round, and reports the median, the
95th percentile, the ratio of the median to ``python3 -c pass`` measured in the same
rounds, and the peak resident memory of the child (``os.wait4`` rusage).

Scenarios: ``python3 -c pass``, ``python3 -S -c pass``; the UserPromptSubmit hook exactly
as ``hooks.json`` runs it (argv taken from hooks.json, ``${CLAUDE_PLUGIN_ROOT}`` filled in,
run without the extra shell) with a matching, a non-matching and a long prompt; the hook
right after a memory file was dropped into the store behind its back (stale cache), and right
after one was rewritten in place (same size, file and folder mtimes set back: hook-after-edit);
``rebuild``; ``add`` (the CLI command when it exists, else "write one JSON file under the
lock + ``refresh.apply_changes``" through the API); ``search``.

    python3 benchmarks/bench.py                      # 100, 1,000, 10,000 and 100,000 memories
    python3 benchmarks/bench.py --quick              # under a minute: 100, 1,000, 10,000, 5 rounds
    python3 benchmarks/bench.py --sizes 10000 --rounds 30
    python3 benchmarks/bench.py --hooks --rounds 15      # every hook, with and without bytecode caching
    python3 benchmarks/bench.py --file-recall --rounds 25  # PostToolUse recall by file, 10,000 memories
    python3 benchmarks/bench.py --floor --rounds 21 --against ../main  # every hook vs its floor and another checkout

The other figures docs/benchmarks.md publishes, through this same entry point (each takes ``--help``):

    python3 benchmarks/bench.py view --rounds 3      # the HTML page at 1,000 and 10,000 memories (viewbench.py)
    python3 benchmarks/bench.py stale                # git-drift marks at 10,000 memories (stalebench.py)
    python3 benchmarks/bench.py install-size         # what each install copies (installsize.py; the real client)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import hookbench  # noqa: E402
from storegen import make_record, make_store, write_record  # noqa: E402

PY = sys.executable
CLI = os.path.join(REPO, "scripts", "memory.py")
MATCH = "how do we fix the redis cache timeout in the celery workers after the upgrade?"
NOMATCH = "please summarise yesterday's weather in lisbon for me"
LONG = ("I am looking at the deploy pipeline and the kubernetes helm chart, the postgres migration "
        "with alembic fails on the replica, and the sentry alerts show a latency spike in the "
        "fastapi endpoint that paginates invoices; the celery beat schedule retries webhooks. ") * 24
TARGETS = {  # (scenario, size) -> max median ratio to python3 -c pass (issue 7)
    ("hook-match", 100): 1.15, ("hook-nomatch", 100): 1.15, ("hook-long", 100): 1.15,
    ("hook-match", 10000): 1.3, ("hook-nomatch", 10000): 1.3, ("hook-long", 10000): 1.3,
    ("hook-match", 100000): 2.0, ("hook-nomatch", 100000): 2.0, ("hook-long", 100000): 2.0,
    ("hook-after-add", 10000): 1.5, ("rebuild", 10000): 5.0, ("add", 10000): 2.5,
}

ADD_VIA_API = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
from team_memory.base.config import load_config
from team_memory.base.fsutil import atomic_write_text, store_lock
from team_memory.derived.refresh import apply_changes
from team_memory.records.store import dump_memory, memory_path
import json
root, rec = sys.argv[2], json.loads(sys.argv[3])
config = load_config(root)
with store_lock(root):
    path = memory_path(root, config, rec["category"], rec["id"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write_text(path, dump_memory(rec))
    apply_changes(root, config)
"""


def hook_argv() -> list:
    with open(os.path.join(REPO, "hooks.json"), encoding="utf-8") as f:
        command = json.load(f)["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    command = command.split(" || ")[0]  # the chain's first interpreter: what runs where python3 exists
    argv = shlex.split(command.replace("${CLAUDE_PLUGIN_ROOT}", REPO))
    return [PY if a == "python3" else a for a in argv]


def has_add_command() -> bool:
    out = subprocess.run([PY, CLI, "--help"], capture_output=True, text=True).stdout
    return any(line.split()[:1] == ["add"] for line in out.splitlines())


def run(argv, stdin: bytes = b""):
    """Exit code and stdout of one child process (the sanity checks)."""
    proc = subprocess.run(argv, input=stdin, capture_output=True)
    return proc.returncode, proc.stdout


def run_wait4(argv, stdin: bytes = b"", cwd=None, env=None):
    """``(wall seconds, peak MB, exit code, CPU seconds)`` of one child, reaped with ``os.wait4``."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd,
                            env=env)
    if stdin:
        try:
            proc.stdin.write(stdin)
        except BrokenPipeError:
            pass
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss / 1024, proc.returncode, usage.ru_utime + usage.ru_stime


def percentile(values, q):
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def match_prompt(project: str, memory_root: str, rng: random.Random) -> str:
    """``MATCH`` when the configured strategy finds something for it, else a prompt naming a stored title.

    The default ``smart`` strategy weighs words by rarity and stays silent below a floor; in a
    generated store every word is common, so the fixed prompt may rightly match nothing.
    """
    code, out = run([PY, CLI, "search", MATCH, "--root", project, "--json"])
    if code == 0 and json.loads(out or b"[]"):
        return MATCH
    with open(os.path.join(memory_root, "index.md"), encoding="utf-8") as f:
        lines = [line for line in f if line.startswith("- [")]
    for line in rng.sample(lines, min(len(lines), 50)):
        title = line.split("] ", 1)[1].split(" -> ", 1)[0]
        prompt = f"how do we handle the {title.lower()} question again?"
        code, out = run([PY, CLI, "search", prompt, "--root", project, "--json"])
        if code == 0 and json.loads(out or b"[]"):
            return prompt
    raise SystemExit("no prompt found that the store answers")


def edit_in_place(path: str, rng: random.Random) -> None:
    """Rewrite a memory in place as an editor saves (truncate and write, same size), then set
    its mtime and its folder's back: only the file's ctime tells."""
    st, folder_st = os.stat(path), os.stat(os.path.dirname(path))
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        at = data.find(b'"title": "') + 10
        data[at] = ord(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        f.seek(0)
        f.truncate()
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.utime(os.path.dirname(path), ns=(folder_st.st_atime_ns, folder_st.st_mtime_ns))


def scenarios(project: str, memory_root: str, rng: random.Random, use_add: bool, match: str = MATCH):
    hook = hook_argv()
    payload = lambda prompt: json.dumps({"session_id": "bench", "hook_event_name": "UserPromptSubmit",  # noqa: E731
                                         "cwd": project, "prompt": prompt}).encode()
    counter = [0]
    now = datetime.now(timezone.utc)

    def fresh_record():
        counter[0] += 1
        rec = make_record(rng, 900000 + counter[0], now)
        rec["record_status"] = "active"
        rec["id"] = f"bench-{os.getpid()}-{counter[0]}-{rng.randrange(1 << 30)}"
        return rec

    def stale_setup():
        write_record(memory_root, fresh_record())  # behind the cache's back, as git pull or an editor would

    files = sorted(os.path.join(d, f) for d, _, names in os.walk(memory_root) if ".cache" not in d
                   for f in names if f.endswith(".json"))

    def edit_setup():
        edit_in_place(rng.choice(files), rng)

    def add_argv():
        rec = fresh_record()
        if use_add:
            return [PY, CLI, "add", "--root", project, "--category", rec["category"], "--title", rec["title"],
                    *sum((["--tag", t] for t in rec["tags"]), []), "--content-json", json.dumps(rec["content"])]
        return [PY, "-c", ADD_VIA_API, os.path.join(REPO, "scripts"), memory_root, json.dumps(rec)]

    return {
        "python3 -c pass": (lambda: [PY, "-c", "pass"], b"", None),
        "python3 -S -c pass": (lambda: [PY, "-S", "-c", "pass"], b"", None),
        "hook-match": (lambda: hook, payload(match), None),
        "hook-nomatch": (lambda: hook, payload(NOMATCH), None),
        "hook-long": (lambda: hook, payload(LONG), None),
        "hook-after-add": (lambda: hook, payload(match), stale_setup),
        "hook-after-edit": (lambda: hook, payload(match), edit_setup),
        "rebuild": (lambda: [PY, CLI, "rebuild", "--root", project], b"", None),
        "add": (add_argv, b"", None),
        "search": (lambda: [PY, CLI, "search", match, "--root", project], b"", None),
    }


def bench_size(n: int, rounds: int, workdir: str, use_add: bool, seed: int) -> dict:
    project = os.path.join(workdir, f"store-{n}")
    t0 = time.perf_counter()
    memory_root = make_store(project, n, seed)
    gen = time.perf_counter() - t0
    subprocess.run([PY, CLI, "rebuild", "--root", project], check=True, capture_output=True)
    rng = random.Random(seed)
    match = match_prompt(project, memory_root, rng)
    table = scenarios(project, memory_root, rng, use_add, match)
    # sanity: the hook answers a matching prompt and stays silent on a non-matching one
    code, out = run(table["hook-match"][0](), table["hook-match"][1])
    assert code == 0 and out.startswith(b"<memory-context"), out[:200]
    code, out = run(table["hook-nomatch"][0](), table["hook-nomatch"][1])
    assert code == 0 and out == b"", out[:200]
    times = {name: [] for name in table}
    peaks = {name: 0.0 for name in table}
    order = list(table)
    for _ in range(rounds):
        rng.shuffle(order)
        for name in order:
            make_argv, stdin, setup = table[name]
            if setup:
                setup()
            elapsed, rss, code, _ = run_wait4(make_argv(), stdin)
            if code != 0:
                raise SystemExit(f"{name} at {n} exited {code}")
            times[name].append(elapsed)
            peaks[name] = max(peaks[name], rss)
    base = percentile(times["python3 -c pass"], 0.5)
    rows = {}
    for name in table:
        med = percentile(times[name], 0.5)
        rows[name] = {"median_ms": med * 1000, "p95_ms": percentile(times[name], 0.95) * 1000,
                      "ratio": med / base, "peak_mb": peaks[name]}
    return {"n": n, "generated_s": gen, "rows": rows, "match_prompt": match}


def bench_hooks(n: int, rounds: int, workdir: str, seed: int) -> dict:
    """Every hook, each call and bytecode mode of ``hookbench``, interleaved with ``python3 -S -c pass``."""
    project = os.path.join(workdir, f"hooks-{n}")
    memory_root = make_store(project, n, seed)
    os.makedirs(os.path.join(project, "src"), exist_ok=True)
    with open(os.path.join(project, "src", "app.py"), "w", encoding="utf-8") as f:
        f.write("print('hi')\n")
    subprocess.run([PY, CLI, "rebuild", "--root", project], check=True, capture_output=True)
    rng = random.Random(seed)
    match = match_prompt(project, memory_root, rng)
    table = {"python3 -S -c pass": ([PY, "-S", "-c", "pass"], b"", None, None, None)}
    table.update(hookbench.scenarios(REPO, PY, project, workdir, match))
    for name, (argv, stdin, setup, env, _) in table.items():  # sanity, and warms the user cache
        if setup:
            setup()
        proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=project)
        if proc.returncode != 0 or proc.stderr:
            raise SystemExit(f"{name}: exit {proc.returncode}: {proc.stderr[:300]!r}")
    # Each run is paired with a run of the baseline right before or after it (the order drawn at
    # random), and the ratio is taken pair by pair: on a shared machine whose speed drifts, a
    # pair sees the same load, so the median of the ratios moves much less than a ratio of medians.
    baseline = table["python3 -S -c pass"]
    times = {name: [] for name in table}
    ratios = {name: [] for name in table}
    cpu_ratios = {name: [] for name in table}
    order = [name for name in table if name != "python3 -S -c pass"]
    for _ in range(rounds):
        rng.shuffle(order)
        for name in order:
            argv, stdin, setup, env, _ = table[name]
            if setup:
                setup()
            first_base = rng.random() < 0.5
            if first_base:
                base_s, _, _, base_cpu = run_wait4(baseline[0], cwd=project)
            elapsed, _, code, cpu = run_wait4(argv, stdin, cwd=project, env=env)
            if not first_base:
                base_s, _, _, base_cpu = run_wait4(baseline[0], cwd=project)
            if code != 0:
                raise SystemExit(f"{name} exited {code}")
            times[name].append(elapsed)
            times["python3 -S -c pass"].append(base_s)
            ratios[name].append(elapsed / base_s)
            cpu_ratios[name].append(cpu / base_cpu if base_cpu > 0 else float("nan"))
    rows = {name: {"median_ms": percentile(t, 0.5) * 1000, "p95_ms": percentile(t, 0.95) * 1000,
                   "ratio": percentile(ratios[name], 0.5) if ratios[name] else 1.0,
                   "cpu_ratio": percentile(cpu_ratios[name], 0.5) if cpu_ratios[name] else 1.0,
                   "target": hookbench.target_for(name)}
            for name, t in times.items()}
    return {"n": n, "rows": rows}


def report_hooks(res: dict, args) -> str:
    lines = [f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()} ({PY})",
             f"store: {res['n']:,} memories; rounds: {args.rounds}, scenarios in a shuffled order per round, "
             "each run paired with a run of python3 -S -c pass; the ratio is the median of the pairs' ratios", "",
             "| hook | call | bytecode | median ms | p95 ms | x `python3 -S -c pass` (paired) | x, CPU time | target |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for name, row in sorted(res["rows"].items(), key=lambda kv: (kv[0].rsplit("[", 1)[-1], kv[0])):
        if name == "python3 -S -c pass":
            hook, call, mode = name, "", ""
        else:
            head, mode = name.rsplit(" [", 1)
            hook, call = head.split(" ", 1)
            mode = mode.rstrip("]")
        target = row["target"]
        verdict = "" if target is None else f"<= {target} {'met' if row['ratio'] <= target else 'MISSED'}"
        lines.append(f"| {hook} | {call} | {mode} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | "
                     f"{row['ratio']:.2f} | {row['cpu_ratio']:.2f} | {verdict} |")
    return "\n".join(lines)


def report(results: list, args, use_add: bool) -> str:
    lines = []
    lines.append(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}"
                 f" ({PY}); PYTHONDONTWRITEBYTECODE={'set' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'unset'}")
    lines.append(f"hook argv (from hooks.json): {' '.join(shlex.quote(a) for a in hook_argv())}")
    lines.append(f"add measured with: {'the add command' if use_add else 'the API (write one JSON file + refresh.apply_changes under the lock)'}")
    lines.append(f"rounds: {args.rounds}, interleaved in a shuffled order per round")
    for res in results:
        lines.append(f"matching prompt at {res['n']:,}: {res['match_prompt'][:100]!r}")
    lines.append("")
    lines.append("| memories | scenario | median ms | p95 ms | x `python3 -c pass` | peak MB | target |")
    lines.append("| ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for res in results:
        for name, row in res["rows"].items():
            target = TARGETS.get((name, res["n"]))
            verdict = "" if target is None else (f"<= {target} {'met' if row['ratio'] <= target else 'MISSED'}")
            lines.append(f"| {res['n']:,} | {name} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | "
                         f"{row['ratio']:.2f} | {row['peak_mb']:.1f} | {verdict} |")
    return "\n".join(lines)


SUITES = {"view": "viewbench", "stale": "stalebench", "install-size": "installsize"}  # name -> its script


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in SUITES:
        return __import__(SUITES[argv[0]]).main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000,100000", help="comma-separated store sizes")
    parser.add_argument("--rounds", type=int, default=15, help="runs of every scenario per size")
    parser.add_argument("--quick", action="store_true", help="100, 1,000 and 10,000 memories, 5 rounds (under a minute)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", help="where to build the stores (default: a temporary folder, removed after)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument("--pyc", action="store_true",
                        help="let children cache bytecode even if PYTHONDONTWRITEBYTECODE is set here "
                             "(Python's default; __pycache__ is git-ignored)")
    parser.add_argument("--hooks", action="store_true",
                        help="every hook (with and without bytecode caching) against python3 -S -c pass; "
                             "--sizes gives the store size (default 1000)")
    parser.add_argument("--file-recall", action="store_true",
                        help="the PostToolUse hook on a Read of a file with and without memories; --sizes gives the "
                             "store size (default 10000), --with-files how many name files (default 2000)")
    parser.add_argument("--with-files", type=int, default=2000, help="with --file-recall: memories with related files")
    parser.add_argument("--floor", action="store_true",
                        help="every hook against python3 -S -c pass and its floor (issue 26), with and without "
                             "bytecode caching; --sizes gives the store sizes (default 100,10000)")
    parser.add_argument("--against", metavar="CHECKOUT",
                        help="with --floor: also run that checkout's hooks (say, the main branch) in the same rounds")
    args = parser.parse_args(argv)
    if args.floor:
        import floorbench
        sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes != parser.get_default("sizes")
                 else [100, 10000])
        workdir = args.workdir or tempfile.mkdtemp(prefix="team-memory-bench-")
        try:
            res = floorbench.bench_floor(sys.modules[__name__], sizes, args.rounds, workdir, args.seed, args.against)
        finally:
            if not args.workdir:
                shutil.rmtree(workdir, ignore_errors=True)
        print(floorbench.report(res, f"machine: {platform.platform()}, {os.cpu_count()} cores, "
                                     f"Python {platform.python_version()} ({PY})"))
        if args.json:
            print(json.dumps(res, indent=2))
        return 0
    if args.file_recall:
        import filebench
        n = int(args.sizes.split(",")[0]) if args.sizes != parser.get_default("sizes") else 10000
        workdir = args.workdir or tempfile.mkdtemp(prefix="team-memory-bench-")
        try:
            res = filebench.bench_file_recall(REPO, PY, CLI, n, min(args.with_files, n), args.rounds, workdir, args.seed,
                                              run_wait4, percentile)
        finally:
            if not args.workdir:
                shutil.rmtree(workdir, ignore_errors=True)
        print(filebench.report(res, args.rounds, f"machine: {platform.platform()}, {os.cpu_count()} cores, "
                                                 f"Python {platform.python_version()} ({PY})"))
        if args.json:
            print(json.dumps(res, indent=2))
        return 0
    if args.hooks:
        n = int(args.sizes.split(",")[0]) if args.sizes != parser.get_default("sizes") else 1000
        workdir = args.workdir or tempfile.mkdtemp(prefix="team-memory-bench-")
        try:
            res = bench_hooks(n, args.rounds, workdir, args.seed)
        finally:
            if not args.workdir:
                shutil.rmtree(workdir, ignore_errors=True)
        print(report_hooks(res, args))
        if args.json:
            print(json.dumps(res, indent=2))
        return 0
    if args.quick:
        args.sizes, args.rounds = "100,1000,10000", 5
    if args.pyc:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    use_add = has_add_command()
    workdir = args.workdir or tempfile.mkdtemp(prefix="team-memory-bench-")
    results = []
    try:
        for n in sizes:
            print(f"... {n:,} memories", file=sys.stderr, flush=True)
            results.append(bench_size(n, args.rounds, workdir, use_add, args.seed))
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    print(report(results, args, use_add))
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
