"""What the ``view`` page costs at 1,000 and 10,000 memories: building it, its size, the browser's render, a keystroke.

For each size, a synthetic store (``storegen``) is committed to a new git repository, then:
- ``view --out`` runs as a whole process (``--rounds`` times; median), the file's size is read;
- headless Chromium (``tests/browser_support.Browser``, the DevTools protocol over a pipe) opens it from
  ``file://`` (``--rounds`` times): wall time until the script is ready, and the page's own navigation timing
  (DOMContentLoaded, load) and first contentful paint;
- a word is typed into the search box one key at a time: per key, the wall time from the key to the next
  frame laid out, and the main thread's busy time in that span (``Performance.getMetrics`` ``TaskDuration``).

    python3 benchmarks/viewbench.py                    # 1,000 and 10,000 memories
    python3 benchmarks/viewbench.py --sizes 1000 --rounds 5 --word migration
    python3 benchmarks/viewbench.py --screenshot docs/view.png   # README's picture of the demo store's page
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(REPO, "tests"), os.path.join(REPO, "scripts")]

from storegen import make_store  # noqa: E402
from browser_support import Browser, chromium  # noqa: E402

TIMING = """(() => { const n = performance.getEntriesByType('navigation')[0];
  const p = performance.getEntriesByName('first-contentful-paint')[0];
  return [n.domContentLoadedEventEnd, n.loadEventEnd, p ? p.startTime : null]; })()"""


def git(cwd: str, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Ana Lima", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="Bench",
               GIT_COMMITTER_EMAIL="b@example.com")
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def ms(values) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"


def bench(n: int, rounds: int, word: str, workdir: str) -> None:
    project = os.path.join(workdir, f"store-{n}")
    make_store(project, n)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "memories")
    out = os.path.join(workdir, f"view-{n}.html")
    cli = [sys.executable, os.path.join(REPO, "scripts", "memory.py"), "view", "--root", project, "--out", out]
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
        memory = [sys.executable, os.path.join(REPO, "scripts", "memory.py")]
        subprocess.run([*memory, "demo", "--keep", project, "--prompt", "x"], check=True, capture_output=True)
        git(project, "init", "-q", "-b", "main")
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", "team memories")
        page = os.path.join(project, "index.html")
        subprocess.run([*memory, "view", "--root", project, "--out", page], check=True, capture_output=True)
        with Browser() as browser:
            browser.open("file://" + page + "#q=pydantic")
            browser.screenshot(os.path.abspath(png))
    print(png)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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


if __name__ == "__main__":
    raise SystemExit(main())
