"""How every hint names the CLI: the exact form Claude Code's permission rules match.

The slash commands, the skill and ``autoallow.py`` allow ``python3 "<root>/scripts/memory.py"`` (``<root>``: the
plugin or ``.claude/team-memory``); any other spelling would need approval. People may be shown ``user_cli()``.
"""
from __future__ import annotations

import os
import sys

PYTHONS = ("python3", "python", "py -3")  # what hooks.json's commands try, in this order
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "memory.py")
DROP_IN_CLI = os.path.join(".claude", "team-memory", "scripts", "memory.py")
UNSAFE_IN_DOUBLE_QUOTES = set('"$`\\\n\r')


def same_file(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name one file (False when either is missing or unreadable)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def cli_path(project_dir: str | None = None) -> str:
    """This CLI's script path, spelled as the permission rules of the current install spell it."""
    plugin_root = os.environ.get("CLAUDE_PLUGIN_ROOT")
    candidates = [os.path.join(plugin_root, "scripts", "memory.py")] if plugin_root else []
    bases = (os.environ.get("CLAUDE_PROJECT_DIR"), project_dir)
    candidates += [os.path.join(base, DROP_IN_CLI) for base in bases if base]
    return next((candidate for candidate in candidates if same_file(candidate, SCRIPT)), SCRIPT)


def quote(path: str) -> str:
    """``"path"`` (what the rules match), or shell quoting when double quotes would not keep it literal."""
    if UNSAFE_IN_DOUBLE_QUOTES & set(path):
        import shlex  # rare: kept off the hooks' import path
        return shlex.quote(path)
    return f'"{path}"'


def python_name() -> str:
    """``python3``, or the name hooks.json's command found Python by (its launcher's one argument)."""
    return sys.argv[1] if len(sys.argv) == 2 and sys.argv[1] in PYTHONS else "python3"


def cli_command(project_dir: str | None = None) -> str:
    """``python3 "<cli_path>"`` (or ``python_name()``): how a hook tells Claude to run the CLI."""
    return f"{python_name()} {quote(cli_path(project_dir))}"


def _drop_in() -> bool:
    """Whether this CLI is drop-in installed into a project (``<project>/.claude/team-memory/scripts/memory.py``)."""
    from .pathtext import slashed
    return slashed(os.path.normpath(SCRIPT)).split("/")[-4:] == [".claude", "team-memory", "scripts", "memory.py"]


def stable_cli() -> str:
    """The CLI as named in files this CLI writes (``index.md``): the same for every writer of one store."""
    return f"python3 {DROP_IN_CLI}" if _drop_in() else f"python3 {quote(SCRIPT)}"


def user_cli() -> str:
    """How a person at a terminal runs this CLI: short forms for a drop-in install and this checkout."""
    if _drop_in():
        return f"python3 {DROP_IN_CLI}"
    if same_file(os.path.join("scripts", "memory.py"), SCRIPT):  # relative: from this checkout's root
        return "python3 scripts/memory.py"
    return cli_command()
