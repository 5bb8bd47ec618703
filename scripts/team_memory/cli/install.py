"""The drop-in install: ``install_project`` copies team-memory into a repository (runtime, hooks marked by
``HOOK_MARKER`` in .claude/settings.json, store, .gitignore lines, commands, skill), idempotently; ``uninstall_project``
removes what carries our marker. ``install --plugin`` writes the plugin's two settings instead (docs/install.md); each
refuses while the other is there (every hook would run twice). ``install --agent NAME`` (``install_agents``) merges
each agent's own file (``AGENT_FILES``) and writes a generated block into ``AGENTS.md`` (the commands, the critical
and high constraints; the rest of the file kept byte for byte). Settings files are written back with a backup."""
from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import shutil
import tempfile

from ..base.cliname import PYTHONS
from ..base import safefs
from ..base.fsutil import atomic_write_bytes, atomic_write_text
from ..base.model import CONFIG_NAME, MEMORY_REL

HOOK_MARKER = "/.claude/team-memory/hooks/"  # every hook command we install contains it


class InstallError(Exception):
    """The install cannot proceed safely; the message says why and what to do."""


def read_settings(path: str, hooks: bool = True) -> tuple[dict, str | None]:
    """The settings object and the file's text (None: no file); ``hooks``: its "hooks" must map events to lists."""
    try:
        text = safefs.read_text(path)  # never through a link, bounded
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    if text is None:
        return {}, None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it (or move it away) and run again. "
                           "Nothing was changed.") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} is not a JSON object; fix it and run again. Nothing was changed.")
    found = data.get("hooks", {})
    if hooks and (not isinstance(found, dict) or any(not isinstance(v, list) for v in found.values())):
        raise InstallError(f"{path}: \"hooks\" must be an object of event -> list of groups; fix it and run again. "
                           "Nothing was changed.")
    return data, text


def with_key(data: dict, key: str, value) -> dict:
    """``data`` with ``key`` set to ``value`` (in its place), or taken out when ``value`` is empty."""
    return dict(data, **{key: value}) if value else {k: v for k, v in data.items() if k != key}


def is_our_hook(hook) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and HOOK_MARKER in hook["command"]


def without_our_hooks(hooks: dict) -> dict:
    """``hooks`` with every team-memory hook removed; groups left empty by that are dropped."""
    out = {}
    for event, groups in hooks.items():
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            rest = [h for h in inner if not is_our_hook(h)] if isinstance(inner, list) else None
            if rest is None or len(rest) == len(inner):
                kept.append(group)
            elif rest:
                kept.append(dict(group, hooks=rest))
        if kept:
            out[event] = kept
    return out


def write_hooks(path: str, ours: dict | None) -> dict:
    """Our hook groups in the file at ``path`` instead of earlier ones (None: out; an emptied file goes)."""
    data, original = read_settings(path)
    hooks = without_our_hooks(data.get("hooks", {}))
    for event, groups in (ours or {}).items():
        hooks[event] = hooks.get(event, []) + groups
    return write_settings(path, with_key(data, "hooks", hooks), original, delete_if_empty=ours is None)


def write_settings(path: str, data: dict, original: str | None, delete_if_empty: bool = False) -> dict:
    """Write ``data`` if it differs from the file; back the old file up first. Returns what happened."""
    result = {"path": path, "changed": False, "backup": None, "removed": False}
    if original is None and not data and delete_if_empty:  # no file: nothing written
        return result
    if original is not None:
        with contextlib.suppress(ValueError):
            if json.loads(original) == data:
                return result
        result["backup"] = path + ".bak"
        atomic_write_text(result["backup"], original)
    result["changed"] = True
    if not data and delete_if_empty:
        os.unlink(path)
        result["removed"] = True
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return result


MARKETPLACE = "team-memory"             # .claude-plugin/marketplace.json's "name" (a test keeps them equal)
PLUGIN_ID = "team-memory@team-memory"   # plugin.json's "name" @ the marketplace
DEFAULT_SOURCE = "team-memory/team-memory"  # the repository plugin.json names (GitHub owner/repo)
# What a git or GitHub marketplace source checks out (sparse, cone mode: top-level files always come): the runtime
# and manifests, not tests/ or docs/, so the plugin cache holds 1.4 MB instead of 5.2 MB (test_team_plugin.py).
SPARSE_PATHS = (".claude-plugin", ".claude", "hooks", "scripts", "templates")
MAX_SOURCE_CHARS = 2000
OWNER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")


def _scp_like(text: str) -> bool:
    """``user@host:path``, git's short ssh form (plain string work: a pattern over it was quadratic)."""
    user, at, rest = text.partition("@")
    host, colon, path = rest.partition(":")
    names = all(part and all(c.isalnum() or c in "_.-" for c in part) for part in (user, host))
    return bool(at and colon and names and path) and not any(c.isspace() for c in path)


def marketplace_source(text: str) -> dict:
    """A marketplace source object from ``owner/repo`` (GitHub) or a git URL, both sparse, or a folder path."""
    text = text.strip()
    if len(text) > MAX_SOURCE_CHARS:
        raise InstallError(f"a marketplace source of {len(text)} characters is not one (at most {MAX_SOURCE_CHARS})")
    if re.fullmatch(r"(https?|ssh|git|file)://\S+", text) or _scp_like(text):
        return {"source": "git", "url": text, "sparsePaths": list(SPARSE_PATHS)}
    owner, slash, repo = text.partition("/")  # owner/repo as GitHub spells it (plain string checks: linear)
    if slash and owner and repo and owner[0] != "-" and set(owner) <= OWNER_CHARS \
            and set(repo) <= OWNER_CHARS | {".", "_"}:
        return {"source": "github", "repo": text, "sparsePaths": list(SPARSE_PATHS)}
    if text.startswith(("./", "../", "/", "~")) or os.path.isabs(text):
        return {"source": "directory", "path": os.path.abspath(os.path.expanduser(text))}
    raise InstallError(f"cannot read {text!r} as a marketplace source: give owner/repo (GitHub), a git URL "
                       "(https://..., git@host:path, file:///...) or a folder path (./team-memory)")


def plugin_settings(project: str, files) -> tuple:
    """``(path, settings, original text, markets, enabled)``: the last two copied (``{}`` if missing); links refused."""
    refuse_links(project, files)
    path = os.path.join(project, ".claude", "settings.json")
    settings, original = read_settings(path)
    out = [path, settings, original]
    for key in ("extraKnownMarketplaces", "enabledPlugins"):
        value = settings.get(key, {})
        if not isinstance(value, dict):
            raise InstallError(f'.claude/settings.json: "{key}" must be an object; fix it and run again. '
                               'Nothing was changed.')
        out.append(dict(value))
    return tuple(out)


SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

RUNTIME_REL = (".claude", "team-memory")
# The runtime: globs in the checkout (test_install.py checks every tracked file under hooks/, scripts/, templates/
# is here or a developer tool); a pattern may match nothing (LICENSE may be absent), ``*`` never matches a hidden file.
RUNTIME_FILES = ("hooks.json", "LICENSE", "hooks/*.py", "scripts/memory.py", "scripts/team_memory/*.py",
                 "scripts/team_memory/*/*.py", "scripts/team_memory/recall/ordinary.txt",
                 "scripts/team_memory/cli/view.*", "templates/memory-config.default.json",
                 "templates/schemas/*.schema.json", "templates/demo/*/*.json")

PLUGIN_ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"
# Braced: a hook's shell expands it (sh, bash, Git Bash) and Claude Code rewrites it to ${env:...} for PowerShell,
# which reads the bare $CLAUDE_PROJECT_DIR as an empty variable of its own (checked with Claude Code 2.1.330).
HOOK_ROOT = "${CLAUDE_PROJECT_DIR}/.claude/team-memory"  # (Claude Code substitutes it in commands and skills too)
MARKDOWN_MARKER = "/.claude/team-memory/scripts/memory.py"     # every command/skill file we install contains it

SKILL_NAME = "team-memory"
COMMAND_GLOB = re.compile(r"^memory(-[a-z0-9-]+)?\.md$")

GITIGNORE_HEADER = "# team-memory: derived and local files (rebuilt automatically; commit the JSON memories)"
# .quarantine/ (made by earlier versions) may hold an invalid memory with a secret in it: never committed.
GITIGNORE_LINES = (".claude/memory/index.md", ".claude/memory/.lock", ".claude/memory/.cache/",
                   ".claude/memory/.quarantine/", ".claude/settings.json.bak", ".claude/team-memory/**/__pycache__/")

MINIMAL_CONFIG = {"retrieval": {"enabled": True, "max_inject": 5}}


def drop_in_hooks(source: str, root: str = HOOK_ROOT) -> dict:
    """The hook groups of the source's hooks.json with their commands pointed at the drop-in runtime (from ``root``)."""
    path = os.path.join(source, "hooks.json")
    try:
        with open(path, encoding="utf-8") as f:
            hooks = json.load(f).get("hooks")
    except (OSError, ValueError, AttributeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    if not isinstance(hooks, dict):
        raise InstallError(f"{path} has no \"hooks\" object")
    fresh = json.loads(json.dumps(hooks).replace(PLUGIN_ROOT_VAR, root))  # a copy: each caller's groups are its own
    out = {event: [g for g in groups if isinstance(g, dict)]
           for event, groups in fresh.items() if isinstance(groups, list)}
    return {event: groups for event, groups in out.items() if groups}


def runtime_files(source: str) -> list:
    """The relative paths ``RUNTIME_FILES`` names in ``source`` (regular files only), sorted."""
    return sorted({os.path.relpath(path, source).replace(os.sep, "/") for pattern in RUNTIME_FILES
                   for path in glob.glob(os.path.join(glob.escape(source), pattern))
                   if os.path.isfile(path) and not os.path.islink(path)})


def copy_runtime(source: str, dest: str) -> bool:
    """Copy the runtime to ``dest`` through a sibling staging folder; False when source is dest."""
    if os.path.isdir(dest) and os.path.samefile(source, dest):
        return False
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(dir=parent, prefix=".team-memory.new.")
    try:
        for rel in runtime_files(source):
            target = os.path.join(staging, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.join(source, *rel.split("/")), target)
        os.chmod(staging, 0o755)
        old = None
        if os.path.lexists(dest):
            assert_our_runtime(dest)
            old = tempfile.mkdtemp(dir=parent, prefix=".team-memory.old.")
            os.rmdir(old)
            os.rename(dest, old)
        os.rename(staging, dest)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return True


def assert_our_runtime(dest: str) -> None:
    """Refuse to replace or delete a folder that is not a team-memory runtime."""
    if os.path.islink(dest) or not os.path.isdir(dest) or not (
            os.path.isfile(os.path.join(dest, "hooks.json"))
            and os.path.isdir(os.path.join(dest, "scripts", "team_memory"))):
        raise InstallError(f"{dest} exists but is not a team-memory runtime; move it away and run again")


# One rule per name the hooks' commands try for Python (cliname.PYTHONS): a hint names the one that works here.
PLUGIN_RULE = "allowed-tools: " + ", ".join(f'Bash({py} "{PLUGIN_ROOT_VAR}/scripts/memory.py":*)' for py in PYTHONS)
# The drop-in's rules: the absolute form the hooks' hints use, and the short form its --help and index.md show.
DROP_IN_RULE = ("allowed-tools: " + ", ".join(f'Bash({py} "{HOOK_ROOT}/scripts/memory.py":*)' for py in PYTHONS)
                + ", " + ", ".join(f"Bash({py} .claude/team-memory/scripts/memory.py:*)" for py in PYTHONS))
SUBFOLDER_NOTE = ("\n(Drop-in install: Claude Code reads this project's hooks only when `claude` starts at the "
                  "repository root; started in a subfolder, nothing is recalled automatically and these paths "
                  "do not resolve. Ask the user to start `claude` at the root.)\n\n")


def is_ours(path: str) -> bool:
    try:
        return MARKDOWN_MARKER in (safefs.read_text(path) or "")
    except (OSError, UnicodeDecodeError):
        return False


def markdown_sources(source: str):
    """``(relative destination, source path)`` for each command and skill file we ship."""
    commands = os.path.join(source, ".claude", "commands")
    if os.path.isdir(commands):
        for name in sorted(os.listdir(commands)):
            if COMMAND_GLOB.match(name):
                yield os.path.join(".claude", "commands", name), os.path.join(commands, name)
    skill = os.path.join(source, ".claude", "skills", SKILL_NAME)
    if os.path.isdir(skill):
        for dirpath, dirnames, filenames in os.walk(skill):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                yield os.path.join(".claude", "skills", SKILL_NAME, os.path.relpath(path, skill)), path


def install_markdown(source: str, project: str) -> tuple[list, list]:
    """Copy commands and the skill; returns (files changed, files kept: not ours, or ``.bak`` of changed ones)."""
    written, kept = [], []
    for rel, src in markdown_sources(source):
        dest = os.path.join(project, rel)
        if os.path.exists(dest) and not is_ours(dest):
            kept.append(rel)
            continue
        with open(src, encoding="utf-8") as f:  # the plugin's text, made to work from the drop-in runtime
            text = f.read().replace(PLUGIN_RULE, DROP_IN_RULE).replace(PLUGIN_ROOT_VAR, HOOK_ROOT)
        end = text.find("\n---\n", 4) if text.startswith("---\n") else -1
        text = text if end < 0 else text[:end + 5] + SUBFOLDER_NOTE + text[end + 5:]
        before = safefs.read_text(dest, errors="surrogateescape")
        if before is not None:
            if before == text:
                continue
            atomic_write_text(dest + ".bak", before)  # ours, but perhaps customised: keep the old text
            kept.append(rel + ".bak")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        atomic_write_text(dest, text)
        written.append(rel)
    return written, kept


def remove_markdown(project: str) -> list:
    removed = []
    commands = os.path.join(project, ".claude", "commands")
    if os.path.isdir(commands):
        for name in sorted(os.listdir(commands)):
            path = os.path.join(commands, name)
            if COMMAND_GLOB.match(name) and os.path.isfile(path) and is_ours(path):
                os.unlink(path)
                removed.append(os.path.join(".claude", "commands", name))
    skill = os.path.join(project, ".claude", "skills", SKILL_NAME)
    if os.path.isdir(skill) and not os.path.islink(skill) and is_ours(os.path.join(skill, "SKILL.md")):
        shutil.rmtree(skill)
        removed.append(os.path.join(".claude", "skills", SKILL_NAME))
    for folder in (commands, os.path.dirname(skill)):  # leave no empty folders behind
        with contextlib.suppress(OSError):
            os.rmdir(folder)
    return removed


def ensure_store(project: str) -> tuple[str, bool]:
    """Create ``.claude/memory/`` and its config when missing; returns (memory root, config created)."""
    root = os.path.join(project, *MEMORY_REL)
    os.makedirs(root, exist_ok=True)
    config = os.path.join(root, CONFIG_NAME)
    created = not os.path.exists(config)
    if created:
        atomic_write_text(config, json.dumps(MINIMAL_CONFIG, indent=2) + "\n")
    return root, created


def ensure_gitignore(project: str) -> list:
    """Append the lines ``.gitignore`` lacks (once, under one header); returns what was added."""
    path = os.path.join(project, ".gitignore")
    text = safefs.read_text(path, errors="surrogateescape") or ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in GITIGNORE_LINES if line not in present]
    if not missing:
        return []
    block = ([GITIGNORE_HEADER] if GITIGNORE_HEADER not in present else []) + missing
    prefix = text if not text or text.endswith("\n") else text + "\n"
    if prefix and GITIGNORE_HEADER not in present:
        prefix += "\n"
    mode = os.lstat(path).st_mode & 0o777 if text else 0o644
    atomic_write_bytes(path, (prefix + "\n".join(block) + "\n").encode("utf-8", "surrogateescape"), mode)
    return missing


def project_dir(project: str) -> str:
    project = os.path.abspath(project)
    if not os.path.isdir(project):
        raise InstallError(f"{project} is not a folder")
    problem = safefs.store_problem(os.path.join(project, *MEMORY_REL))  # never install or uninstall through a link
    if problem:
        raise InstallError(problem)
    return project


SETTINGS_FILES = (".claude/settings.json", ".claude/settings.json.bak", ".gitignore")


def touched_paths(project: str, source: str | None = None) -> tuple[list, list]:
    """``(files, folders)`` in ``project`` an install from ``source`` (None: an uninstall) may read, write or remove."""
    runtime, skill = "/".join(RUNTIME_REL), f".claude/skills/{SKILL_NAME}"
    files = list(SETTINGS_FILES) + ["/".join(MEMORY_REL + (CONFIG_NAME,)), ".claude/commands", ".claude/skills"]
    if source:
        files += [f"{runtime}/{rel}" for rel in runtime_files(source)]
        files += [rel.replace(os.sep, "/") + bak for rel, _ in markdown_sources(source) for bak in ("", ".bak")]
    commands = os.path.join(project, ".claude", "commands")
    if safefs.is_real_dir(commands):
        files += [f".claude/commands/{name}" for name in os.listdir(commands) if COMMAND_GLOB.match(name)]
    return files, [runtime, skill]


def refuse_links(project: str, files, folders=()) -> None:
    """``InstallError`` naming a link in place of (or on the way to) anything the command touches; nothing written."""
    try:
        safefs.refuse_links(project, files, folders)
    except safefs.UnsafePath as exc:
        raise InstallError(str(exc)) from None


def git_project(project: str, allow_no_git: bool, what: str = "team-memory", anyway: str = "install anyway") -> str:
    """``project_dir(project)``, refused outside a git repository unless ``allow_no_git``."""
    project = project_dir(project)
    if not allow_no_git and not safefs.repo_root_of(project):
        raise InstallError(f"{project} is not in a git repository (no .git at or above it): teammates get {what} "
                           f"through git, so run 'git init' there first, or pass --no-git to {anyway}")
    return project


def install_target(project: str, source: str, allow_no_git: bool) -> tuple:
    """``(project, source)``, absolute: a git project (unless ``allow_no_git``) other than the checkout ``source``."""
    project, source = git_project(project, allow_no_git), os.path.abspath(source)
    missing = [item for item in ("hooks", "scripts", "templates", "hooks.json")
               if not os.path.exists(os.path.join(source, item))]
    if missing:
        raise InstallError(f"{source} is not a team-memory checkout (missing {', '.join(missing)}); "
                           "run install from a checkout: python3 scripts/memory.py install PATH")
    if os.path.samefile(project, source):
        raise InstallError("that is the team-memory checkout itself; install into another repository "
                           "(it already works here as a plugin: claude --plugin-dir .)")
    return project, source


def install_project(project: str, source: str = SOURCE_ROOT, *, allow_no_git: bool = False) -> dict:
    """Install (or upgrade) team-memory into ``project``; returns a report of what changed."""
    project, source = install_target(project, source, allow_no_git)
    refuse_links(project, *touched_paths(project, source))
    settings_path = os.path.join(project, ".claude", "settings.json")
    enabled = read_settings(settings_path)[0].get("enabledPlugins")
    if isinstance(enabled, dict) and enabled.get(PLUGIN_ID) is True:  # refuse early, before anything is copied
        raise InstallError(f"{settings_path} enables the team-memory plugin (install --plugin): with the drop-in too "
                           "every hook would run twice. Run 'uninstall --plugin PATH' first, or keep the plugin.")
    ours, runtime = drop_in_hooks(source), os.path.join(project, *RUNTIME_REL)
    copied = copy_runtime(source, runtime)
    settings_result = write_hooks(settings_path, ours)
    memory_root, config_created = ensure_store(project)
    gitignore_added = ensure_gitignore(project)
    written, kept = install_markdown(source, project)
    return {"project": project, "runtime": runtime, "runtime_copied": copied, "settings": settings_result,
            "hook_events": sorted(ours), "memory_root": memory_root, "config_created": config_created,
            "gitignore_added": gitignore_added, "markdown_written": written, "markdown_kept": kept}


def install_plugin(project: str, source: str = DEFAULT_SOURCE, *, allow_no_git: bool = False) -> dict:
    """``install --plugin``: the marketplace and the enabled plugin in the project's settings."""
    project = git_project(project, allow_no_git, "the setting", "write it anyway")
    path, settings, original, markets, enabled = plugin_settings(project, SETTINGS_FILES)
    if without_our_hooks(settings.get("hooks", {})) != settings.get("hooks", {}):
        raise InstallError(f"{path} holds the drop-in install's hooks: with the plugin too every hook would run twice. "
                           "Run 'uninstall PATH' first (it keeps the memories), then 'install --plugin PATH'.")
    source_obj = marketplace_source(source)
    markets[MARKETPLACE], enabled[PLUGIN_ID] = {"source": source_obj}, True
    merged = dict(settings, extraKnownMarketplaces=markets, enabledPlugins=enabled)
    return {"settings": write_settings(path, merged, original), "marketplace": MARKETPLACE, "source": source_obj,
            "plugin": PLUGIN_ID, "project": project, "gitignore_added": ensure_gitignore(project)}


def uninstall_plugin(project: str) -> dict:
    """``uninstall --plugin``: our two entries out again (the file too when nothing else is left in it)."""
    project = project_dir(project)
    path, settings, original, markets, enabled = plugin_settings(project, SETTINGS_FILES[:2])
    markets.pop(MARKETPLACE, None)
    enabled.pop(PLUGIN_ID, None)
    cleaned = with_key(with_key(settings, "extraKnownMarketplaces", markets), "enabledPlugins", enabled)
    return {"settings": write_settings(path, cleaned, original, delete_if_empty=True), "marketplace": MARKETPLACE,
            "plugin": PLUGIN_ID, "project": project, "memory_root": os.path.join(project, *MEMORY_REL)}


def uninstall_project(project: str) -> dict:
    """Remove our hooks, runtime, commands and skill from ``project``; keep memories and all else."""
    project = project_dir(project)
    refuse_links(project, *touched_paths(project))
    result = write_hooks(os.path.join(project, ".claude", "settings.json"), None)  # no file: nothing written
    runtime = os.path.join(project, *RUNTIME_REL)
    runtime_removed = os.path.lexists(runtime)
    if runtime_removed:
        assert_our_runtime(runtime)
        shutil.rmtree(runtime)
    return {"project": project, "settings": result, "runtime_removed": runtime_removed,
            "markdown_removed": remove_markdown(project), "memory_root": os.path.join(project, *MEMORY_REL)}

AGENTS = ("claude", "codex", "gemini", "cursor", "vscode")
# Gemini CLI sets CLAUDE_PROJECT_DIR (and GEMINI_PROJECT_DIR) for its hooks: Claude Code's drop-in commands run
# as they are; its events and tools are translated at the hook's input (``records.hookio.from_agent``).
GEMINI_EVENTS = {"SessionStart": "SessionStart", "BeforeAgent": "UserPromptSubmit", "BeforeTool": "PreToolUse"}
# Codex runs a hook's command in the session's folder and names no project variable: the launchers are found from
# the repository root (``./`` keeps install's marker, ``/.claude/team-memory/hooks/``, in every command).
# Its tool names in hook payloads (0.171.0): its shell is "Bash", its patch tool "apply_patch".
CODEX_TOOLS = "Bash|apply_patch"
# Each hooks agent: (the launchers' root, {its event: Claude Code's} (None: the same), {its event: matcher},
# the timeout's unit per second: Gemini counts milliseconds).
HOOK_AGENTS = {"codex": ("./.claude/team-memory", None, {"PreToolUse": CODEX_TOOLS, "PostToolUse": CODEX_TOOLS}, 1),
               "gemini": (HOOK_ROOT, GEMINI_EVENTS, {"BeforeTool": "run_shell_command|write_file|replace"}, 1000)}
# The MCP server for editors: started from the workspace folder both editors substitute in their mcp.json.
MCP_NAME = "team-memory"
MCP_ARGS = ["${workspaceFolder}/.claude/team-memory/scripts/memory.py", "mcp", "--root", "${workspaceFolder}"]
# Each agent but claude: (its file, what our entry is: a hooks builder or (MCP key, server), what it asks on start).
AGENT_FILES = {
    "codex": ((".codex", "hooks.json"), "codex",
              "Codex asks twice on the first start in this repository (start codex at its root): \"Trust this "
              "folder?\": answer 1, Trust and continue (project hooks run only in a trusted project); then \"Hooks "
              "need review: 5 hooks are new or changed\": answer 2, Trust all and continue (or 1 to review them: "
              "their commands run .claude/team-memory/hooks/*.py). Asked again only when the hooks change. "
              "For automation: codex exec --dangerously-bypass-hook-trust in a trusted project."),
    "gemini": ((".gemini", "settings.json"), "gemini",
               "Gemini CLI runs a project's hooks once you trust the folder: on the first start it asks whether "
               "to trust it; answer Trust folder. `gemini hooks list` shows the three team-memory hooks."),
    "cursor": ((".cursor", "mcp.json"), ("mcpServers", {"command": "python3", "args": MCP_ARGS}),
               "Cursor lists the project's MCP servers under Settings > MCP: switch team-memory on "
               "(it asks once whether to trust this project's servers)."),
    "vscode": ((".vscode", "mcp.json"), ("servers", {"type": "stdio", "command": "python3", "args": MCP_ARGS}),
               "VS Code asks whether to trust and start the MCP server team-memory from .vscode/mcp.json "
               "(Copilot's agent mode): answer Trust."),
}

AGENTS_MD = "AGENTS.md"
AGENTS_BEGIN = "<!-- team-memory:begin (generated by memory.py install --agent; rewritten when the memories change) -->"
AGENTS_END = "<!-- team-memory:end -->"
MAX_BLOCK_BYTES = 2048
CLI_HERE = "python3 .claude/team-memory/scripts/memory.py"


def agent_hooks(agent: str, source: str) -> dict:
    """hooks.json's groups in a hooks agent's terms (``HOOK_AGENTS``): launchers, events, tool names, timeouts."""
    root, events, matchers, unit = HOOK_AGENTS[agent]
    ours = drop_in_hooks(source, root)  # a fresh copy: each event's groups are its own
    out = {event: ours.get(claude_event, []) for event, claude_event in (events or dict(zip(ours, ours))).items()}
    for event, groups in out.items():
        for group in groups:
            if event in matchers:
                group["matcher"] = matchers[event]
            for hook in group.get("hooks", []) if unit != 1 else ():
                if isinstance(hook, dict) and isinstance(hook.get("timeout"), int):
                    hook["timeout"] *= unit
    return out


def agents_block(memory_root: str) -> str:
    """The generated AGENTS.md block: how to search and save, and the active critical/high constraints by title."""
    from ..base.config import load_config
    from ..base.sanitize import clean_line, cut
    from ..records.exposure import shown_text
    from ..records.store import iter_records, record_status
    found = []
    for _, _, record in iter_records(memory_root, load_config(memory_root), "constraint"):
        content = record.get("content") if isinstance(record.get("content"), dict) else {}
        severity = content.get("severity")
        if record_status(record) == "active" and content.get("active") is not False and severity in ("critical", "high"):
            found.append((severity != "critical", cut(clean_line(shown_text(record.get("title", ""))), 120)))
    lines = [AGENTS_BEGIN, "## Team memory", "",
             "This repository keeps the team's decisions, constraints and runbooks in `.claude/memory/` (JSON, "
             "reviewed like code). Before deciding how to do something, search it; save what a teammate would "
             "need later (never edit those files by hand):", "",
             f"- search: `{CLI_HERE} search \"<question>\"`",
             f"- save: `{CLI_HERE} save --record '<the whole record as JSON>'` (fields: `{CLI_HERE} save --help`)", ""]
    if found:
        lines.append("Active constraints (critical and high):")
    tail, more = [AGENTS_END], f"- ... and more: `{CLI_HERE} list --category constraint`"
    for critical_last, title in sorted(found):
        line = f"- {'[critical] ' if not critical_last else ''}{title}"
        if len("\n".join(lines + [line, more] + tail).encode("utf-8")) + 1 > MAX_BLOCK_BYTES:
            lines.append(more)
            break
        lines.append(line)
    return "\n".join(lines + tail) + "\n"


def _path(project: str, parts: tuple) -> str:
    """``project/parts...``, refused when any part of the way is a link (nothing is followed)."""
    refuse_links(project, files=["/".join(parts)])
    return os.path.join(project, *parts)


def write_agents_md(project: str, block: str | None) -> dict:
    """Put ``block`` into AGENTS.md (None: take ours out), the rest of the file kept byte for byte."""
    path = _path(project, (AGENTS_MD,))
    try:
        text = safefs.read_text(path, errors="surrogateescape") or ""
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    begin, end = text.find(AGENTS_BEGIN), text.find(AGENTS_END)
    if begin >= 0 and end > begin:
        stop = end + len(AGENTS_END) + (1 if text[end + len(AGENTS_END):].startswith("\n") else 0)
        before, after = text[:begin], text[stop:]
        if block is None and before.endswith("\n\n") and not after:
            before = before[:-1]  # the blank line the block was added after goes with it
    else:  # after the text and a blank line (no block to take out: nothing changes)
        before, after = text + ("" if block is None or not text else "\n" if text.endswith("\n") else "\n\n"), ""
    new = before + (block or "") + after
    if new == text:
        return {"path": path, "changed": False}
    if block is None and not new.strip():  # (a missing file was returned above: nothing changed)
        os.unlink(path)
    else:
        atomic_write_bytes(path, new.encode("utf-8", errors="surrogateescape"))
    return {"path": path, "changed": True}


def _write_agent(project: str, agent: str, source: str | None) -> dict:
    """Our hooks or MCP server in the agent's file (``source`` None: taken out); all else kept, a backup first."""
    parts, entry, _ = AGENT_FILES[agent]
    path = _path(project, parts)
    if isinstance(entry, str):
        return write_hooks(path, agent_hooks(agent, source) if source else None)
    (key, server), (data, original) = entry, read_settings(path, hooks=False)
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: \"{key}\" must be an object of servers; fix it and run again")
    servers = {k: v for k, v in servers.items() if k != MCP_NAME}
    if source:
        servers[MCP_NAME] = server
    return write_settings(path, with_key(data, key, servers), original, delete_if_empty=not source)


def install_agents(project: str, agents: list, *, allow_no_git: bool = False) -> dict:
    """Install for each of ``agents``; returns ``{"project", "agents": {name: report}, "agents_md"}``."""
    unknown = [a for a in agents if a not in AGENTS]
    if unknown:
        raise InstallError(f"unknown agent {unknown[0]!r}; choose from {', '.join(AGENTS)}")
    project, source = install_target(project, SOURCE_ROOT, allow_no_git)
    reports = {}
    if "claude" in agents:
        reports["claude"] = install_project(project, source, allow_no_git=allow_no_git)
    else:
        copy_runtime(source, _path(project, RUNTIME_REL))
        ensure_store(project)
        ensure_gitignore(project)
    reports.update({agent: {"hooks": _write_agent(project, agent, source), "asks": AGENT_FILES[agent][2]}
                    for agent in AGENTS[1:] if agent in agents})
    block = write_agents_md(project, agents_block(os.path.join(project, ".claude", "memory")))
    return {"project": project, "agents": reports, "agents_md": block}


def uninstall_agents(project: str, agents: list) -> dict:
    """Take each agent's entries out again; memories, the runtime (unless ``claude``) and other settings stay."""
    project = project_dir(project)
    reports = {agent: {"hooks": _write_agent(project, agent, None)} for agent in AGENTS[1:] if agent in agents}
    if "claude" in agents:
        reports["claude"] = uninstall_project(project)
    block = {"changed": False} if _agent_left(project) else write_agents_md(project, None)
    return {"project": project, "agents": reports, "agents_md": block}


def _agent_left(project: str) -> bool:
    """Is any agent still installed here (its file names our hooks or server)? Then AGENTS.md keeps the block."""
    files = [((".claude", "settings.json"), HOOK_MARKER)]
    files += [(parts, HOOK_MARKER if isinstance(entry, str) else f'"{MCP_NAME}"')
              for parts, entry, _ in AGENT_FILES.values()]
    for parts, mark in files:
        try:
            if mark in (safefs.read_text(_path(project, parts), errors="replace") or ""):
                return True
        except OSError:
            continue
    return False
