#!/usr/bin/env python3
"""Write docs/cli.md, the CLI reference, from ``--help`` of every command; ``--check`` only compares.

    python3 scripts/make_cli_docs.py            # after changing a command's help
    python3 scripts/make_cli_docs.py --check    # exit 1 when docs/cli.md is not what --help says (a test runs it)
"""
import argparse
import contextlib
import io
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "cli.md"
os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: one width, whoever runs it
os.chdir(REPO)  # the help names the CLI as run from the checkout: python3 scripts/memory.py
sys.path.insert(0, str(REPO / "scripts"))
from team_memory.cli.main import COMMANDS, main  # noqa: E402

HEAD = """# CLI reference

Generated from `--help` by `python3 scripts/make_cli_docs.py` (do not edit by hand; a test checks it).
Every command also takes `--root PATH` (the project, or its `.claude/memory` folder) and `--version`.
"""


def help_of(argv: list) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*argv, "--help"])
    text = out.getvalue().rstrip().replace("\noptional arguments:", "\noptions:")  # Python 3.9 says the former
    return re.sub(r"(\s--?[\w-]+) ([A-Z_]+), (--?[\w-]+) \2\b", r"\1, \3 \2", text)  # "--output, -o FILE", as 3.13 says


def render() -> str:
    parts = [HEAD, "```text\n" + help_of([]) + "\n```\n"]
    for commands in COMMANDS.values():
        for command in commands:
            parts.append(f"## {command}\n\n```text\n{help_of([command])}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    args = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    args.add_argument("--check", action="store_true", help="compare only; exit 1 when docs/cli.md differs")
    text = render()
    if args.parse_args().check:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current.split() != text.split():  # words, not wrapping: each Python version wraps argparse's columns its own way
            sys.exit("docs/cli.md differs from --help: run python3 scripts/make_cli_docs.py")
    else:
        DOC.write_text(text, encoding="utf-8")
        print(DOC.relative_to(REPO))
