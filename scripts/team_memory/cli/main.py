"""The command-line interface: ``main(argv) -> int``; exit 0 ok, 1 a known error (``CliError``), 2 usage, 3 other."""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from functools import cached_property
from typing import Sequence

from ..base.cliname import user_cli
from .. import __version__
from ..base.config import load_config
from ..base.fsutil import FileBusy
from ..base.model import CATEGORIES, MEMORY_REL
from ..base.safefs import UnsafePath, check_store
from ..records.store import find_memory_root, project_root_of

# module (with ``register(subparsers, common)``) -> its commands in --help's order: a run imports one module
COMMANDS = {
    "cmd_store": ("rebuild", "list", "search", "show", "demo", "eval"), "cmd_install": ("install", "uninstall", "mcp"),
    "cmd_write": ("add", "save", "update", "retire", "archive", "restore", "unarchive", "validate", "similar", "edit"),
    "cmd_admin": ("doctor", "gc", "stats", "review"), "cmd_transfer": ("export", "import"), "cmd_view": ("view",),
}
COMMAND_HOME = {command: module for module, commands in COMMANDS.items() for command in commands}

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNEXPECTED = 0, 1, 2, 3

CLI = user_cli()
DESCRIPTION = f"""\
team-memory: the team's memories as JSON files in the repository, recalled for
Claude Code before every prompt.

examples:
  {CLI} demo                      # try it on a built-in demo store
  {CLI} search "fix pydantic import error" --explain
  {CLI} list --category decision
  {CLI} <command> --help          # every command has examples
"""


class CliError(Exception):
    """A known problem, reported as one readable message with exit code ``code``."""
    code = EXIT_ERROR


class UsageError(CliError):
    code = EXIT_USAGE


class Context:
    """What a command needs: the parsed args, the store (found lazily) and output helpers."""

    def __init__(self, args):
        self.args = args

    @cached_property
    def memory_root(self) -> str:
        """From ``--root`` (a project folder or the memory folder itself), else found upward."""
        root = getattr(self.args, "root", None)
        if root:
            root = os.path.abspath(root)
            nested = os.path.join(root, *MEMORY_REL)
            if os.path.lexists(nested):
                return check_store(nested)
            if os.path.isdir(root) and os.path.basename(root) == MEMORY_REL[-1]:
                return check_store(root)
            raise NoStore(root)
        found = find_memory_root(os.getcwd()) or find_memory_root(os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())
        if found is None:
            raise NoStore(os.getcwd(), "at or above ")
        return found

    @cached_property
    def config(self) -> dict:
        return load_config(self.memory_root)

    def print_json(self, data) -> int:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return EXIT_OK

    def color(self, text: str, code: str) -> str:
        """``text`` in an ANSI colour, only on a terminal and never with ``NO_COLOR``."""
        if not sys.stdout.isatty() or os.environ.get("NO_COLOR") is not None or os.environ.get("TERM") == "dumb":
            return text
        from ..base.terminal import colored
        return colored(text, code)


class NoStore(CliError):
    """No memory store: an error for a command that changes one, nothing to show (exit 0) for ``SHOW_ONLY``."""

    def __init__(self, where: str, how: str = "in "):
        super().__init__(f"no memory store (.claude/memory) {how}{where}: run inside a project that has one or pass "
                         "--root PATH; the first save in a repository creates it")


SHOW_ONLY = frozenset({"list", "stats", "doctor", "view", "review"})
RAW_OUTPUT = frozenset({"export", "mcp"})  # data meant to be read back (JSON Lines), written as is
# Arguments that name files: any bytes the file system allows. Every other text argument must be UTF-8.
PATH_ARGS = frozenset({"root", "path", "paths", "input", "output", "content_file", "source", "from_claude_memory",
                       "from_file", "keep"})


def check_text_args(args) -> None:
    """Refuse text arguments holding bytes that are not UTF-8 (a Latin-1 terminal: surrogate escapes in argv)."""
    for name, value in sorted(vars(args).items()):
        if name in PATH_ARGS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and any("\udc80" <= ch <= "\udcff" for ch in item):
                option = "--" + name.replace("_", "-") if name not in ("id", "prompt") else name.upper()
                raise CliError(f"{option} is not valid UTF-8 text (is the terminal set to another encoding? "
                               "try a UTF-8 locale such as LANG=C.UTF-8); nothing was done")


MAX_INPUT_BYTES = 4 * 1024 * 1024  # a record or content: the store never reads a memory file larger than this


def read_source(source: str, what: str, limit: int | None = MAX_INPUT_BYTES) -> str:
    """The file ``source`` (``-``: stdin) as UTF-8 text, refused over ``limit`` bytes (None: no bound, for import)."""
    size = -1 if limit is None else limit + 1
    if source == "-":
        buffer = getattr(sys.stdin, "buffer", None)  # None: a text stdin; a surrogate in it is no UTF-8 either
        data = buffer.read(size) if buffer else sys.stdin.read(size).encode("utf-8", "surrogatepass")
    else:
        try:
            with open(source, "rb") as f:
                data = f.read(size)
        except OSError as exc:
            raise CliError(f"cannot read {source}: {exc.strerror or exc}") from None
    what += " from stdin" if source == "-" else f" {source}"
    if limit is not None and len(data) > limit:
        raise CliError(f"{what} is larger than {limit // (1024 * 1024)} MB, far more than any memory; "
                       "nothing was written")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(f"{what} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                       "save it as UTF-8 first (for example: iconv -f latin1 -t utf-8); nothing was written") from None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv`` naming a known command, only that command's module is imported."""
    parser = argparse.ArgumentParser(prog="memory.py", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"team-memory {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="<command>")
    common = argparse.ArgumentParser(add_help=False)  # --root, for every command that reads or writes a store
    common.add_argument("--root", metavar="PATH",
                        help="the project folder or its .claude/memory folder (default: found from the current folder)")
    for name in (COMMAND_HOME[argv[0]],) if argv and argv[0] in COMMAND_HOME else COMMANDS:
        importlib.import_module(f".{name}", __package__).register(subparsers, common)
    return parser


def opt(flags, help_text: str, **kwargs) -> tuple:
    """An option for ``add_command``: its name (or names) and ``add_argument`` keywords."""
    return flags, dict(kwargs, help=help_text)


def flag(name: str, help_text: str) -> tuple:
    return opt(name, help_text, action="store_true")


def group(*options, required: bool = False) -> tuple:
    """Mutually exclusive options."""
    return {"required": required}, list(options)


JSON_OPT = flag("--json", "print JSON")
RESULT_JSON = flag("--json", "print the result as JSON")
CATEGORY_ONLY = opt("--category", "only this category", choices=CATEGORIES)


def add_command(subparsers, common, name: str, func, help_text: str, examples: str, *options):
    """Add one subcommand with its help line, description, examples and ``options`` (see ``add_options``)."""
    p = subparsers.add_parser(name, parents=[common], help=help_text,
                              description=f"{help_text}\n\nexamples:\n{examples}",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"team-memory {__version__}")
    p.set_defaults(func=func)
    add_options(p, options)
    return p


def add_options(target, options) -> None:
    """Each option from ``opt``, ``flag`` or ``group``."""
    for flags, spec in options:
        if isinstance(spec, list):
            add_options(target.add_mutually_exclusive_group(**flags), spec)
        else:
            target.add_argument(*((flags,) if isinstance(flags, str) else flags), **spec)


def related_fix(kept: list) -> str:
    """The options that set related_files to ``kept``, to copy into a command (a hidden part stays hidden)."""
    import shlex
    from ..records.exposure import hide
    return "".join(f" --related-file {shlex.quote(hide(e))}" for e in kept) if kept else " --no-related-files"


def related_args(memory_root: str, values: list, check: bool = False) -> list:
    """``--related-file`` values as given, an absolute path inside the project refused (``check``: as update would)."""
    from ..records.relpaths import problem, repo_relative
    from ..records.validate import shown
    project = project_root_of(memory_root)
    for value in values:
        inside = (os.path.isabs(value) or value.startswith("~")) and repo_relative(value, os.getcwd(), project)
        if inside:
            raise CliError(f"--related-file {shown(value)} is an absolute path; write it relative to the "
                           f"repository root: --related-file {inside} (nothing was written)")
    for value in values if check else ():
        why = problem(value)
        if why:
            raise CliError(f"--related-file {shown(value)}: {why}")
    return list(values)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    if args.command in RAW_OUTPUT:
        return _run(args)
    from ..base.terminal import safe_output
    with safe_output():  # nothing read from a file reaches the terminal with escapes or invisible text
        return _run(args)


def _run(args) -> int:
    try:
        check_text_args(args)
        return int(args.func(Context(args)) or 0)
    except CliError as exc:
        from ..records.exposure import hide_secrets
        if isinstance(exc, NoStore) and args.command in SHOW_ONLY:
            print(f"nothing to show: {hide_secrets(str(exc))}", file=sys.stderr)
            return 0
        print(f"error: {hide_secrets(str(exc))}", file=sys.stderr)
        return exc.code
    except (UnsafePath, FileBusy) as exc:  # a link where the store needs a real file; a file held open (Windows)
        from ..records.exposure import shown_message
        hint = " (team-memory never follows links under .claude/; run: python3 scripts/memory.py doctor)"
        print(f"error: {shown_message(exc)}{hint if isinstance(exc, UnsafePath) else ''}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the one place unexpected errors become exit 3
        print(f"unexpected error: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        if os.environ.get("TEAM_MEMORY_DEBUG"):
            raise
        return EXIT_UNEXPECTED
