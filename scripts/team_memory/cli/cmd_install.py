"""``install`` and ``uninstall``: the drop-in install into another repository (see ``install.py``)."""
from __future__ import annotations

import argparse
import os

from .main import CliError, add_command
from .install import InstallError, install_project, uninstall_project


INSTALL_DESCRIPTION = """\
install team-memory into a repository, so every teammate who clones it gets memory
with nothing to install. Into PATH it:
  - copies the runtime (hooks, the CLI, templates; no developer tools) to .claude/team-memory/
  - merges every hook of hooks.json into .claude/settings.json, keeping your settings
    and hooks (the old file is saved as .claude/settings.json.bak)
  - creates .claude/memory/ with memory-config.json
  - adds the derived and local files (index.md, .lock, .cache/, .quarantine/) to .gitignore
  - adds the slash commands (/memory, /memory-search, /memory-save) and the skill
Run it again to upgrade in place; `uninstall PATH` reverses it.

"""


def register(subparsers, common) -> None:
    bare = argparse.ArgumentParser(add_help=False)  # --root means a store; these take a project PATH
    p = add_command(subparsers, bare, "install", cmd_install,
                    "install team-memory into a repository (drop-in: teammates get it with git clone)",
                    "  python3 scripts/memory.py install ~/src/app\n"
                    "  python3 scripts/memory.py install . --json      # from inside the target repository\n"
                    "  cd ~/src/app && git add .claude .gitignore && git commit -m 'Add team-memory'")
    p.description = INSTALL_DESCRIPTION + p.description.split("\n\n", 1)[1]
    p.add_argument("path", metavar="PATH", help="the repository (project folder) to install into")
    p.add_argument("--no-git", action="store_true", help="install even though PATH is not in a git repository")
    p.add_argument("--json", action="store_true", help="print what was done as JSON")

    p = add_command(subparsers, bare, "uninstall", cmd_uninstall,
                    "remove the drop-in install (keeps the memories and your settings)",
                    "  python3 scripts/memory.py uninstall ~/src/app\n"
                    "  python3 scripts/memory.py uninstall . --json")
    p.add_argument("path", metavar="PATH", help="the repository (project folder) to uninstall from")
    p.add_argument("--json", action="store_true", help="print what was done as JSON")


def _rel(project: str, path: str) -> str:
    return os.path.relpath(path, project)


def _report(ctx, action, *args, **kwargs):
    """``action``'s report, or None once printed as JSON (``--json``); an ``InstallError`` is the CLI's error."""
    try:
        report = action(*args, **kwargs)
    except InstallError as exc:
        raise CliError(str(exc)) from None
    if ctx.args.json:
        ctx.print_json(report)
        return None
    return report


def cmd_install(ctx) -> int:
    report = _report(ctx, install_project, ctx.args.path, allow_no_git=ctx.args.no_git)
    if report is None:
        return 0
    project = report["project"]
    settings = report["settings"]
    print(f"team-memory installed in {project}")
    print(f"  runtime   {_rel(project, report['runtime'])}/" + ("" if report["runtime_copied"] else " (already in place)"))
    how = "unchanged" if not settings["changed"] else (
        f"hooks merged ({', '.join(report['hook_events'])})"
        + (f"; backup {_rel(project, settings['backup'])}" if settings["backup"] else ""))
    print(f"  settings  {_rel(project, settings['path'])}: {how}")
    print(f"  memories  {_rel(project, report['memory_root'])}/" + (" (created with memory-config.json)" if report["config_created"] else ""))
    if report["gitignore_added"]:
        print(f"  .gitignore  added {', '.join(report['gitignore_added'])}")
    for rel in report["markdown_written"]:
        print(f"  wrote     {rel}")
    for rel in report["markdown_kept"]:
        if rel.endswith(".bak"):
            print(f"  backup    {rel} (the previous text, in case you had changed it)")
        else:
            print(f"  kept      {rel} (yours, not ours: not overwritten)")
    print("next: commit .claude/ and .gitignore; teammates get memory with git clone. "
          "Try: python3 .claude/team-memory/scripts/memory.py demo")
    return 0


def cmd_uninstall(ctx) -> int:
    report = _report(ctx, uninstall_project, ctx.args.path)
    if report is None:
        return 0
    project = report["project"]
    settings = report["settings"]
    if not (settings["changed"] or report["runtime_removed"] or report["markdown_removed"]):
        print(f"team-memory is not installed in {project}: nothing to remove "
              f"(memories in {_rel(project, report['memory_root'])}/ are never removed)")
        return 0
    print(f"team-memory uninstalled from {project}")
    if settings["changed"]:
        what = "removed (nothing else was in it)" if settings["removed"] else "team-memory hooks removed"
        backup = f"; backup {_rel(project, settings['backup'])}" if settings["backup"] else ""
        print(f"  settings  {_rel(project, settings['path'])}: {what}{backup}")
    if report["runtime_removed"]:
        print("  removed   .claude/team-memory/")
    for rel in report["markdown_removed"]:
        print(f"  removed   {rel}")
    print(f"  kept      {_rel(project, report['memory_root'])}/ (your memories) and .gitignore")
    return 0
