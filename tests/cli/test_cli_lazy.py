"""The CLI imports only the module of the command it runs; ``--help`` still lists every command."""
from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from helpers import REPO
from team_memory.cli import main as cli


def _registered_by(module: str) -> tuple:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    importlib.import_module(f"team_memory.cli.{module}").register(sub, argparse.ArgumentParser(add_help=False))
    return tuple(sub.choices)


def test_command_home_names_every_command_and_its_module():
    assert cli.COMMANDS == {module: tuple(_registered_by(module)) for module in cli.COMMANDS}


def test_a_command_parses_the_same_with_only_its_module():
    for name, module in cli.COMMAND_HOME.items():
        lazy = cli.build_parser([name])
        sub = next(a for a in lazy._actions if isinstance(a, argparse._SubParsersAction))
        assert tuple(sub.choices) == _registered_by(module)
        full = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
        assert sub.choices[name].format_help() == full.choices[name].format_help()


def test_running_a_command_imports_only_its_module(tmp_path):
    code = (f"import sys; sys.path.insert(0, {str(REPO / 'scripts')!r}); from team_memory.cli.main import main; "
            "rc = main(['stats', '--root', sys.argv[1]]); "
            "print(sorted(m for m in sys.modules if m.startswith('team_memory.cli.cmd_')))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "['team_memory.cli.cmd_admin']"


def test_help_lists_every_command_with_its_help(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    for name in cli.COMMAND_HOME:
        assert f"    {name} " in text or f"    {name}\n" in text


def test_unknown_command_is_a_usage_error(capsys):
    assert cli.main(["no-such-command"]) == 2
    assert "invalid choice" in capsys.readouterr().err
