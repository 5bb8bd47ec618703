#!/usr/bin/env python3
"""team-memory benchmarks, one entry point (standard library only): ``bench.py <what> [options]``.

    python3 benchmarks/bench.py sizes --quick           # 100, 1,000 and 10,000 memories, 5 rounds
    python3 benchmarks/bench.py sizes --sizes 10000 --rounds 30
    python3 benchmarks/bench.py floor --rounds 21 --against ../main  # every hook vs its floor and another checkout
    python3 benchmarks/bench.py hooks --rounds 11       # every hook at 1,000 memories, with and without bytecode
    python3 benchmarks/bench.py view --rounds 3         # the HTML page at 1,000 and 10,000 memories
    python3 benchmarks/bench.py stale                   # git-drift marks at 10,000 memories
    python3 benchmarks/bench.py install-size            # what each install copies (the real client)
    python3 benchmarks/bench.py shell-guard --rounds 30 # the Bash write guard's cost
    python3 benchmarks/bench.py stress --quick          # concurrency, crashes, hostile input, privacy, git, patterns

``bench.py <what> --help`` describes each. Without ``<what>`` (options only) it runs ``sizes``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (CLI, PY, hook_argv, machine, make_record, make_store, match_prompt,  # noqa: E402
                      percentile, run_wait4, scratch, write_record)

SIZES_DOC = """Whole processes at each store size, timed in one interleaved run (``bench.py sizes``).

For each store size it generates a realistic store (``benchlib.make_store``), then runs every
scenario once per round, in a shuffled order each round, and reports the median, the
95th percentile, the ratio of the median to ``python3 -c pass`` measured in the same
rounds, and the peak resident memory of the child (``os.wait4`` rusage).

Scenarios: ``python3 -c pass``, ``python3 -S -c pass``; the UserPromptSubmit hook exactly
as ``hooks.json`` runs it (argv taken from hooks.json, ``${CLAUDE_PLUGIN_ROOT}`` filled in,
run without the extra shell) with a matching, a non-matching and a long prompt; the hook
right after a memory file was dropped into the store behind its back (stale cache), and right
after one was rewritten in place (same size, file and folder mtimes set back: hook-after-edit);
``rebuild``; ``add`` (the CLI command); ``search``.

    python3 benchmarks/bench.py sizes                   # 100, 1,000, 10,000 and 100,000 memories
    python3 benchmarks/bench.py sizes --quick           # 100, 1,000, 10,000, 5 rounds
    python3 benchmarks/bench.py sizes --sizes 10000 --rounds 30
"""
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


def scenarios(project: str, memory_root: str, rng: random.Random, match: str) -> dict:
    """``name -> (argv maker, stdin, setup)``."""
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

    files = sorted(os.path.join(d, f) for d, _, names in os.walk(memory_root) if ".cache" not in d
                   for f in names if f.endswith(".json"))

    def add_argv():
        rec = fresh_record()
        return [PY, CLI, "add", "--root", project, "--category", rec["category"], "--title", rec["title"],
                *sum((["--tag", t] for t in rec["tags"]), []), "--content-json", json.dumps(rec["content"])]

    return {
        "python3 -c pass": (lambda: [PY, "-c", "pass"], b"", None),
        "python3 -S -c pass": (lambda: [PY, "-S", "-c", "pass"], b"", None),
        "hook-match": (lambda: hook, payload(match), None),
        "hook-nomatch": (lambda: hook, payload(NOMATCH), None),
        "hook-long": (lambda: hook, payload(LONG), None),
        # a file dropped in behind the cache's back, as git pull or an editor would
        "hook-after-add": (lambda: hook, payload(match), lambda: write_record(memory_root, fresh_record())),
        "hook-after-edit": (lambda: hook, payload(match), lambda: edit_in_place(rng.choice(files), rng)),
        "rebuild": (lambda: [PY, CLI, "rebuild", "--root", project], b"", None),
        "add": (add_argv, b"", None),
        "search": (lambda: [PY, CLI, "search", match, "--root", project], b"", None),
    }


def bench_size(n: int, rounds: int, workdir: str, seed: int) -> dict:
    project = os.path.join(workdir, f"store-{n}")
    memory_root = make_store(project, n, seed)
    subprocess.run([PY, CLI, "rebuild", "--root", project], check=True, capture_output=True)
    rng = random.Random(seed)
    match = match_prompt(project, memory_root, rng)
    table = scenarios(project, memory_root, rng, match)
    # sanity: the hook answers a matching prompt and stays silent on a non-matching one
    for name, shown in (("hook-match", True), ("hook-nomatch", False)):
        proc = subprocess.run(table[name][0](), input=table[name][1], capture_output=True)
        assert proc.returncode == 0 and proc.stdout.startswith(b"<memory-context") == shown, proc.stdout[:200]
        assert shown or proc.stdout == b"", proc.stdout[:200]
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
    rows = {name: {"median_ms": percentile(t, 0.5) * 1000, "p95_ms": percentile(t, 0.95) * 1000,
                   "ratio": percentile(t, 0.5) / base, "peak_mb": peaks[name]} for name, t in times.items()}
    return {"n": n, "rows": rows, "match_prompt": match}


def report(results: list, rounds: int) -> str:
    lines = [f"{machine()}; PYTHONDONTWRITEBYTECODE={'set' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'unset'}",
             f"hook argv (from hooks.json): {' '.join(hook_argv())}",
             f"rounds: {rounds}, interleaved in a shuffled order per round"]
    lines += [f"matching prompt at {res['n']:,}: {res['match_prompt'][:100]!r}" for res in results]
    lines += ["", "| memories | scenario | median ms | p95 ms | x `python3 -c pass` | peak MB | target |",
              "| ---: | --- | ---: | ---: | ---: | ---: | --- |"]
    for res in results:
        for name, row in res["rows"].items():
            target = TARGETS.get((name, res["n"]))
            verdict = "" if target is None else f"<= {target} {'met' if row['ratio'] <= target else 'MISSED'}"
            lines.append(f"| {res['n']:,} | {name} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | "
                         f"{row['ratio']:.2f} | {row['peak_mb']:.1f} | {verdict} |")
    return "\n".join(lines)


def sizes_main(argv) -> int:
    parser = argparse.ArgumentParser(prog="bench.py sizes", description=SIZES_DOC,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000,100000", help="comma-separated store sizes")
    parser.add_argument("--rounds", type=int, default=15, help="runs of every scenario per size")
    parser.add_argument("--quick", action="store_true", help="100, 1,000 and 10,000 memories, 5 rounds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", help="where to build the stores (default: a temporary folder, removed after)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument("--pyc", action="store_true",
                        help="let children cache bytecode even if PYTHONDONTWRITEBYTECODE is set here "
                             "(Python's default; __pycache__ is git-ignored)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.rounds = "100,1000,10000", 5
    if args.pyc:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    results = []
    with scratch(args.workdir) as workdir:
        for n in (int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()):
            print(f"... {n:,} memories", file=sys.stderr, flush=True)
            results.append(bench_size(n, args.rounds, workdir, args.seed))
    print(report(results, args.rounds))
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


def module_main(name: str, **kw):
    return lambda argv: __import__(name).main(argv, **kw)


COMMANDS = {"sizes": sizes_main, "floor": module_main("floorbench", kind="floor"),
            "hooks": module_main("floorbench", kind="hooks"), "view": module_main("viewbench"),
            "stale": module_main("stalebench"), "install-size": module_main("installsize"),
            "shell-guard": module_main("shellguard"), "stress": module_main("stress_lab")}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        return COMMANDS[argv[0]](argv[1:])
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        print(f"\n<what>: {', '.join(COMMANDS)}")
        return 0
    if argv and not argv[0].startswith("-"):
        print(f"bench.py: unknown benchmark {argv[0]!r}; one of: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    return sizes_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
