"""``install`` and ``uninstall``: the drop-in install into another repository (see ``install.py``)."""
from __future__ import annotations

import argparse
import os

from .install import AGENTS, install_agents, uninstall_agents
from .main import CliError, add_command, flag, opt
from .install import DEFAULT_SOURCE, InstallError, install_plugin, install_project, uninstall_plugin, uninstall_project

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

With --plugin it installs nothing: it writes two entries into PATH's .claude/settings.json
(extraKnownMarketplaces: where the team-memory marketplace is; enabledPlugins:
team-memory@team-memory): each teammate who trusts the repository gets the marketplace
and installs the plugin with /plugin install team-memory@team-memory. Your other settings are kept (the old file is saved as .claude/settings.json.bak);
running it again changes nothing; `uninstall --plugin PATH` takes the two entries out.

"""
AGENT_OPT = opt("--agent", f"the agent to install for, repeatable: {', '.join(AGENTS)} (default: claude); "
                "see docs/agents.md", action="append", choices=AGENTS, metavar="NAME")
DONE_JSON = flag("--json", "print what was done as JSON")


def register(subparsers, common) -> None:
    bare = argparse.ArgumentParser(add_help=False)  # --root means a store; these take a project PATH
    p = add_command(subparsers, bare, "install", cmd_install,
                    "install team-memory into a repository (drop-in: teammates get it with git clone)",
                    "  python3 scripts/memory.py install ~/src/app\n"
                    "  python3 scripts/memory.py install . --json      # from inside the target repository\n"
                    "  cd ~/src/app && git add .claude .gitignore && git commit -m 'Add team-memory'\n"
                    "  python3 scripts/memory.py install --plugin ~/src/app   # the plugin for the team, nothing copied\n"
                    "  python3 scripts/memory.py install --plugin . --source https://git.example.com/tools/team-memory.git\n"
                    "  python3 scripts/memory.py install ~/src/app --agent claude --agent codex   # see docs/agents.md",
                    opt("path", "the repository (project folder) to install into", metavar="PATH"),
                    flag("--plugin", "write the project setting that enables the team-memory plugin instead of copying "
                         "a runtime"),
                    opt("--source", "with --plugin: where teammates' Claude Code gets the marketplace: owner/repo "
                        "(GitHub), a git URL (https://, git@host:path, file:///) or a folder (default: "
                        f"{DEFAULT_SOURCE})", default=DEFAULT_SOURCE, metavar="SOURCE"),
                    flag("--no-git", "install even though PATH is not in a git repository"), AGENT_OPT, DONE_JSON)
    p.description = INSTALL_DESCRIPTION + p.description.split("\n\n", 1)[1]
    add_command(subparsers, bare, "uninstall", cmd_uninstall,
                "remove the drop-in install (keeps the memories and your settings)",
                "  python3 scripts/memory.py uninstall ~/src/app\n"
                "  python3 scripts/memory.py uninstall . --json\n"
                "  python3 scripts/memory.py uninstall --plugin ~/src/app   # undo install --plugin\n"
                "  python3 scripts/memory.py uninstall ~/src/app --agent codex   "
                "# take out .codex/hooks.json's entries",
                opt("path", "the repository (project folder) to uninstall from", metavar="PATH"),
                flag("--plugin", "take out the plugin setting install --plugin wrote (the memories and other "
                     "settings stay)"), AGENT_OPT, DONE_JSON)

    add_command(subparsers, common, "mcp", cmd_mcp,
                "serve the memory to an agent over MCP (stdio; started by the agent, ends with it)",
                "  python3 .claude/team-memory/scripts/memory.py mcp     # what .cursor/mcp.json and .vscode/mcp.json run\n"
                "  python3 scripts/memory.py mcp --root ~/src/app\n"
                "tools: search, show, file_memories, save (see docs/agents.md)")


def cmd_mcp(ctx) -> int:
    from .mcp import serve
    return serve(ctx.memory_root)


def _run(ctx, show, action, *args, **kwargs) -> int:
    """``action``'s report, printed by ``show`` or as JSON (``--json``); an ``InstallError`` is the CLI's error."""
    try:
        report = action(*args, **kwargs)
    except InstallError as exc:
        raise CliError(str(exc)) from None
    if ctx.args.json:
        return ctx.print_json(report)
    show(report)
    return 0


def _line(label: str, text: str) -> None:
    print(f"  {label:<9} {text}")


def _file_line(label: str, project: str, result: dict, how: str) -> None:
    """A settings file's line: what happened to it (or that it went: only an uninstall removes one), its backup."""
    how = "removed (nothing else was in it)" if result["removed"] else how
    backup = f"; backup {os.path.relpath(result['backup'], project)}" if result["backup"] else ""
    _line(label, f"{os.path.relpath(result['path'], project)}: {how}{backup}")


def cmd_install(ctx) -> int:
    args = ctx.args
    if args.plugin:
        return _run(ctx, _plugin_installed, install_plugin, args.path, args.source, allow_no_git=args.no_git)
    if args.source != DEFAULT_SOURCE:
        raise CliError("--source goes with --plugin (the drop-in install copies this checkout)")
    if args.agent and args.agent != ["claude"]:
        return _run(ctx, _agents_installed, install_agents, args.path, args.agent, allow_no_git=args.no_git)
    return _run(ctx, _installed, install_project, args.path, allow_no_git=args.no_git)


def _installed(report: dict) -> None:
    project, settings = report["project"], report["settings"]
    print(f"team-memory installed in {project}")
    _line("runtime", f"{os.path.relpath(report['runtime'], project)}/"
          + ("" if report["runtime_copied"] else " (already in place)"))
    _file_line("settings", project, settings,
               f"hooks merged ({', '.join(report['hook_events'])})" if settings["changed"] else "unchanged")
    _line("memories", f"{os.path.relpath(report['memory_root'], project)}/"
          + (" (created with memory-config.json)" if report["config_created"] else ""))
    _gitignore_line(report)
    for rel in report["markdown_written"]:
        _line("wrote", rel)
    for rel in report["markdown_kept"]:
        _line(*(("backup", f"{rel} (the previous text, in case you had changed it)") if rel.endswith(".bak")
                else ("kept", f"{rel} (yours, not ours: not overwritten)")))
    _python_advice()
    from .doctor import user_plugin_too
    for finding in user_plugin_too(project):
        print(f"warning: {finding.message}; {finding.fix}")
    print("next: commit .claude/ and .gitignore; teammates get memory with git clone. "
          "Try: python3 .claude/team-memory/scripts/memory.py demo")


def _plugin_installed(report: dict) -> None:
    project, settings, source = report["project"], report["settings"], report["source"]
    print(f"team-memory plugin enabled for {project}")
    _file_line("settings", project, settings,
               "marketplace and plugin entries written" if settings["changed"] else "unchanged (already there)")
    print(f"  marketplace  {report['marketplace']} from "
          f"{source.get('repo') or source.get('url') or source.get('path') or str(source)}")
    _line("plugin", report["plugin"])
    _gitignore_line(report)
    _python_advice()
    print("next: commit .claude/settings.json and .gitignore; a teammate who trusts the repository gets the "
          "marketplace and installs the plugin with /plugin install team-memory@team-memory. "
          "Undo: uninstall --plugin PATH")


def _gitignore_line(report: dict) -> None:
    if report["gitignore_added"]:
        print(f"  .gitignore  added {', '.join(report['gitignore_added'])}")


def _python_advice() -> None:
    """What ``doctor`` says of the Python the hooks start on this machine (a version manager's shim), said here too."""
    from ..records.exposure import shown_message
    from .doctor import hook_python
    for finding in hook_python():
        _line("python", shown_message(finding.message))
        _line("", f"fix: {shown_message(finding.fix)}")


def _agents_installed(report: dict) -> None:
    project = report["project"]
    print(f"team-memory installed in {project} (runtime .claude/team-memory/, memories .claude/memory/)")
    for name, part in report["agents"].items():
        if name == "claude":
            _line("claude", ".claude/settings.json hooks, commands and skill")
            continue
        how = "hooks merged" if name in ("codex", "gemini") else "MCP server added"
        _file_line(name, project, part["hooks"], how if part["hooks"]["changed"] else "unchanged")
        _line("", part["asks"])
    _line("AGENTS.md", f"{'block written' if report['agents_md']['changed'] else 'block unchanged'} (search and save "
          "commands, critical and high constraints; your own text is kept)")
    print("next: commit .claude/, AGENTS.md, .gitignore and each agent's file; teammates get memory with git clone.")


def cmd_uninstall(ctx) -> int:
    if ctx.args.plugin:
        return _run(ctx, _plugin_uninstalled, uninstall_plugin, ctx.args.path)
    if ctx.args.agent and ctx.args.agent != ["claude"]:
        return _run(ctx, _agents_uninstalled, uninstall_agents, ctx.args.path, ctx.args.agent)
    return _run(ctx, _uninstalled, uninstall_project, ctx.args.path)


def _uninstalled(report: dict) -> None:
    project, settings = report["project"], report["settings"]
    memories = os.path.relpath(report["memory_root"], project)
    if not (settings["changed"] or report["runtime_removed"] or report["markdown_removed"]):
        print(f"team-memory is not installed in {project}: nothing to remove "
              f"(memories in {memories}/ are never removed)")
        return
    print(f"team-memory uninstalled from {project}")
    if settings["changed"]:
        _file_line("settings", project, settings, "team-memory hooks removed")
    for rel in ([".claude/team-memory/"] if report["runtime_removed"] else []) + report["markdown_removed"]:
        _line("removed", rel)
    _line("kept", f"{memories}/ (your memories) and .gitignore")


def _agents_uninstalled(report: dict) -> None:
    project = report["project"]
    print(f"team-memory uninstalled from {project} for {', '.join(report['agents'])}")
    for name, part in report["agents"].items():
        hooks = part.get("hooks") or part.get("settings")
        _file_line(name, project, hooks, "team-memory hooks removed" if hooks["changed"] else "nothing of ours there")
    if report["agents_md"]["changed"]:
        _line("AGENTS.md", "our block removed (your own text kept)")
    _line("kept", ".claude/memory/ (your memories); uninstall without --agent removes the runtime")


def _plugin_uninstalled(report: dict) -> None:
    project, settings = report["project"], report["settings"]
    if not settings["changed"]:
        print(f"the team-memory plugin is not enabled in {project}'s settings: nothing to remove")
        return
    print(f"team-memory plugin setting removed from {project}")
    _file_line("settings", project, settings, "team-memory marketplace and plugin entries removed")
    memories = f"{os.path.relpath(report['memory_root'], project)}/ (your memories) and " \
        if os.path.isdir(report["memory_root"]) else ""
    _line("kept", f"{memories}.gitignore; a teammate who "
          "installed the plugin keeps it until they run: claude plugin uninstall team-memory@team-memory")
