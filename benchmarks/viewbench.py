"""What the ``view`` page costs at 1,000 and 10,000 memories: building it, its size, the browser's render, a keystroke.

For each size, a synthetic store (``benchlib.make_store``) is committed to a new git repository, then:
- ``view --out`` runs as a whole process (``--rounds`` times; median), the file's size is read;
- headless Chromium (``tests/browser_support.Browser``, the DevTools protocol over a pipe) opens it from
  ``file://`` (``--rounds`` times): wall time until the script is ready, and the page's own navigation timing
  (DOMContentLoaded, load) and first contentful paint;
- a word is typed into the search box one key at a time: per key, the wall time from the key to the next
  frame laid out, and the main thread's busy time in that span (``Performance.getMetrics`` ``TaskDuration``).

    python3 benchmarks/bench.py view                    # 1,000 and 10,000 memories
    python3 benchmarks/bench.py view --sizes 1000 --rounds 5 --word migration
    python3 benchmarks/bench.py view --screenshot docs/view.png   # README's picture of the demo store's page
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import CLI, REPO, git, make_store

sys.path[:0] = [os.path.join(REPO, "tests"), os.path.join(REPO, "scripts")]
from browser_support import Browser, chromium  # noqa: E402

TIMING = """(() => { const n = performance.getEntriesByType('navigation')[0];
  const p = performance.getEntriesByName('first-contentful-paint')[0];
  return [n.domContentLoadedEventEnd, n.loadEventEnd, p ? p.startTime : null]; })()"""


def commit_all(project: str, message: str) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", message, author="Ana Lima")


def ms(values) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"


def bench(n: int, rounds: int, word: str, workdir: str) -> None:
    project = os.path.join(workdir, f"store-{n}")
    make_store(project, n)
    commit_all(project, "memories")
    out = os.path.join(workdir, f"view-{n}.html")
    cli = [sys.executable, CLI, "view", "--root", project, "--out", out]
    builds = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(cli, check=True, capture_output=True)
        builds.append(time.perf_counter() - start)
    size = os.path.getsize(out)
    url = "file://" + out
    opens, dcl, load, fcp, keys_wall, keys_busy = [], [], [], [], [], []
    for _ in range(rounds):
        with Browser() as browser:  # a fresh browser each round: nothing cached between rounds
            opens.append(browser.open(url))
            d, l, p = browser.eval(TIMING)
            dcl.append(d / 1000)
            load.append(l / 1000)
            if p is not None:
                fcp.append(p / 1000)
            browser.eval("document.getElementById('q').focus()")
            for wall, busy in browser.type(word):
                keys_wall.append(wall)
                keys_busy.append(busy)
            shown = browser.eval("document.querySelectorAll('article[data-memory-id]:not([hidden])').length")
    print(f"\n{n:,} memories ({rounds} rounds)")
    print(f"  view --out (whole process):        {ms(builds)}")
    print(f"  page size:                         {size / 1e6:.2f} MB")
    print(f"  open until the script is ready:    {ms(opens)}")
    print(f"  DOMContentLoaded / load:           {ms(dcl)} / {ms(load)}")
    if fcp:
        print(f"  first contentful paint:            {ms(fcp)}")
    print(f"  per key of {word!r} (to next frame): {ms(keys_wall)}")
    print(f"  per key, main thread busy:         {ms(keys_busy)}  ({shown} memories shown after the word)")


def screenshot(png: str) -> int:
    """``demo --keep``'s store, committed, as its page shows a search."""
    with tempfile.TemporaryDirectory(prefix="tm-viewshot-") as workdir:
        project = os.path.join(workdir, "tm-demo")
        memory = [sys.executable, CLI]
        subprocess.run([*memory, "demo", "--keep", project, "--prompt", "x"], check=True, capture_output=True)
        commit_all(project, "team memories")
        page = os.path.join(project, "index.html")
        subprocess.run([*memory, "view", "--root", project, "--out", page], check=True, capture_output=True)
        with Browser() as browser:
            browser.open("file://" + page + "#q=pydantic")
            browser.screenshot(os.path.abspath(png))
    print(png)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="bench.py view", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000", help="store sizes, comma-separated (default: 1000,10000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--word", default="migration", help="the word typed into the search box")
    parser.add_argument("--screenshot", metavar="PNG", help="only take README's screenshot: the demo store's page, "
                        "searched for 'pydantic', 1280x900 (docs/view.png)")
    args = parser.parse_args(argv)
    if chromium() is None:
        print("headless Chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 1
    if args.screenshot:
        return screenshot(args.screenshot)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          + subprocess.run([chromium(), "--version"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory(prefix="tm-viewbench-") as workdir:
        for n in (int(s) for s in args.sizes.split(",")):
            bench(n, args.rounds, args.word, workdir)
    return 0
