"""What an install copies onto a user's machine, measured with the real Claude Code CLI and a scratch HOME.

    python3 benchmarks/bench.py install-size

Needs the pinned CLI in ``.cache/claude-code`` and the offline harness beside the checkout (see
``tests/e2e_support.py``). From a git repository holding this checkout's files (what a user clones):

- ``claude plugin marketplace add <clone>`` + ``claude plugin install team-memory@team-memory`` (a local path:
  Claude Code still copies the folder into its plugin cache, though it then reads the plugin in place);
- the project setting ``install --plugin --source file://<clone>`` writes, with its sparse checkout
  (``sparsePaths``), and the same source without it (a plain git marketplace), each through one ``claude -p``;
- the drop-in install (``memory.py install``: the runtime list, ``.claude/team-memory/``).

Prints the bytes and files of each installed copy (and of the marketplace's own clone, where there is one).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from benchlib import REPO

sys.path[:0] = [os.path.join(REPO, "tests"), os.path.join(REPO, "scripts")]  # helpers.run_cli runs the CLI in process

import e2e_support as e2e  # noqa: E402 (after the path)
import helpers  # noqa: E402

CACHE = Path(".claude") / "plugins" / "cache" / "team-memory" / "team-memory"


def measure(folder: Path) -> tuple[int, int]:
    """(bytes, files) under ``folder``, links not followed."""
    total = files = 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                total += os.lstat(path).st_size
                files += 1
    return total, files


def row(label: str, folder: Path) -> str:
    size, files = measure(folder)
    tops = sorted({p.name for p in folder.iterdir()}) if folder.is_dir() else []
    return f"| {label} | {size / 1e6:.2f} MB | {files} | {', '.join(tops)} |"


def via_setting(tmp: Path, clone: Path, name: str, sparse: bool) -> Path:
    home, team = tmp / f"home-{name}", tmp / f"team-{name}"
    home.mkdir()
    (team / ".git").mkdir(parents=True)
    assert helpers.run_cli("install", "--plugin", team, "--source", clone.as_uri()).returncode == 0
    if not sparse:
        path = team / ".claude" / "settings.json"
        data = json.loads(path.read_text())
        data["extraKnownMarketplaces"]["team-memory"]["source"].pop("sparsePaths")
        path.write_text(json.dumps(data))
    e2e.trust_folder(home, team)
    result = e2e.run_claude_home(home, team, "hello", env=e2e.home_env(home, CLAUDE_CODE_SYNC_PLUGIN_INSTALL="1"))
    assert result.returncode == 0, result.describe()
    return home


def main(argv=None) -> int:
    argparse.ArgumentParser(prog="bench.py install-size", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    e2e.ensure_claude()
    version = json.loads((Path(REPO) / ".claude-plugin" / "plugin.json").read_text())["version"]
    with tempfile.TemporaryDirectory(prefix="tm-size-") as tmp_name:
        tmp = Path(tmp_name)
        clone = e2e.checkout_repository(tmp / "team-memory")
        rows = [row("the clone a user makes (with its .git), for reference", clone)]
        home = tmp / "home-local"
        home.mkdir()
        for args in (("plugin", "marketplace", "add", str(clone)), ("plugin", "install", "team-memory@team-memory")):
            proc = e2e.claude_cli(home, *args)
            assert proc.returncode == 0, proc
        rows.append(row("`claude plugin marketplace add <clone>` + `plugin install`: plugin cache", home / CACHE / version))
        for name, sparse in (("git", False), ("sparse", True)):
            home = via_setting(tmp, clone, name, sparse)
            label = "setting with `sparsePaths` (install --plugin)" if sparse else "setting, plain git source"
            rows.append(row(f"{label}: plugin cache", home / CACHE / version))
            rows.append(row(f"{label}: marketplace clone", home / ".claude" / "plugins" / "marketplaces" / "team-memory"))
        app = tmp / "app"
        (app / ".git").mkdir(parents=True)
        assert helpers.run_cli("install", app).returncode == 0
        rows.append(row("drop-in `install`: .claude/team-memory/", app / ".claude" / "team-memory"))
    print("| install | size | files | top level |")
    print("| --- | --- | --- | --- |")
    print("\n".join(rows))
    return 0
