"""Every CLI command is documented: README's Commands table has a row with an example, --help has examples."""
from __future__ import annotations

import argparse
import io
import re

import pytest

from helpers import REPO
from team_memory.base.terminal import SafeStream
from team_memory.cli.main import Context, build_parser, main


def commands() -> dict:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def readme_rows() -> dict:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        m = re.match(r"^\| `([a-z-]+)` \| (.+?) \| (.+) \|$", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def test_every_command_has_a_readme_row_with_an_example():
    rows = readme_rows()
    missing = [name for name in commands() if name not in rows]
    assert not missing, f"add these commands to README.md's Commands table: {missing}"
    for name in commands():
        what, example = rows[name]
        assert what.strip(), name
        assert re.search(rf"`python3 scripts/memory\.py {name}\b[^`]*`", example) or \
            re.search(rf"`[^`]*python3 scripts/memory\.py {name}\b[^`]*`", example), (name, example)


def test_the_readme_table_lists_no_command_that_does_not_exist():
    assert set(readme_rows()) <= set(commands())


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_command_has_help_with_examples(name, capsys):
    assert main([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"memory.py {name}" in out


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    ctx = Context(argparse.Namespace())

    class Tty:
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdout", Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    out = io.StringIO()
    SafeStream(out).write(ctx.color("x\033[2J", "1"))  # the CLI writes through a SafeStream
    assert out.getvalue() == "\033[1mx[2J\033[0m"  # its own colour, never an escape from the text
    monkeypatch.setenv("NO_COLOR", "")
    assert ctx.color("x", "1") == "x"
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setattr("sys.stdout", type("NotTty", (), {"isatty": lambda self: False})())
    assert ctx.color("x", "1") == "x"


def test_exit_codes(project, capsys):
    assert main(["stats", "--root", str(project)]) == 0
    assert main(["show", "nope", "--root", str(project)]) == 1
    assert main(["stats", "--no-such-flag"]) == 2
    assert main([]) == 2


def test_bad_option_values_are_usage_errors_and_every_command_has_version(project, capsys):
    """Usage errors exit 2 whether argparse or the command finds them; --version works after any command."""
    for argv in (["search", "a long enough prompt", "--limit", "0"], ["doctor", "--temp-age", "-1"],
                 ["gc", "--older-than", "-1"], ["stats", "--top", "-1"], ["list", "--category", "nope"]):
        assert main(argv + ["--root", str(project)]) == 2, argv
    capsys.readouterr()
    from team_memory import __version__
    for argv in (["search", "--version"], ["install", "--version"], ["doctor", "--version"]):
        assert main(argv) == 0, argv
        assert capsys.readouterr().out.strip() == f"team-memory {__version__}"


def test_the_cli_reference_is_what_help_says():
    """docs/cli.md is generated from ``--help`` (scripts/make_cli_docs.py): a command or option changed without
    regenerating it fails here. Run as a process: the help names the CLI as run from the checkout."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "make_cli_docs.py"), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in commands():
        assert f"\n## {name}\n" in text and f"usage: memory.py {name} " in text, name
