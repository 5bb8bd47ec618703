"""``view``: the store as one self-contained HTML page (``viewdata`` gathers, ``viewpage`` renders), written to
``--out FILE`` or the store's git-ignored ``.cache/view.html``."""
from __future__ import annotations

import os
import sys

from ..base.cliname import user_cli
from .main import CliError, add_command

CLI = user_cli()
PAGE_NAME = "view.html"

HELP = "write the store as one HTML page to open, search and review (who and when from git, what needs a human)"
EXAMPLES = f"""  {CLI} view                       # writes .claude/memory/.cache/view.html, prints its path
  {CLI} view --open                # and opens it in your browser
  {CLI} view --out site/memory.html

A link to a search keeps it: file:///.../memory.html#q=redis%20sessions (also #review=1,
#tag=redis, #category=decision, #status=stale, #file=app/session.py, #all=1 for retired ones).

The page is one file (style and script inline, no request of any kind): open it from disk or
publish it from CI as a build artifact or a static site. It holds every memory in full, so it
reads with scripts off; the script filters as you type, by category, tag, related file and
status, and "Needs review" lists stale, invalid, duplicate and superseded memories with the
command that settles each. Secrets and private sections are hidden as in the hooks."""


def register(subparsers, common) -> None:
    p = add_command(subparsers, common, "view", cmd_view, HELP, EXAMPLES)
    p.add_argument("--out", metavar="FILE", dest="output",
                   help=f"write the page here (default: the store's git-ignored .cache/{PAGE_NAME})")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.add_argument("--no-git", action="store_true",
                   help="run no git: no authors and dates from git, no stale marks")


def _make_folder_in_repository(folder: str, root: str) -> None:
    """Create ``folder`` (the page's missing parent) one level at a time, only inside ``root``, never through a link."""
    from ..base.sanitize import shown_path
    rel = os.path.relpath(folder, root)
    if rel.startswith(os.pardir) or os.path.isabs(rel):
        raise CliError(f"no folder {shown_path(folder)} to write the page into")
    path = root
    for part in rel.split(os.sep):
        path = os.path.join(path, part)
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
            raise CliError(f"{shown_path(path)} is a link or a file; make the folder for the page yourself")
        if not os.path.lexists(path):
            os.mkdir(path)


def cmd_view(ctx) -> int:
    from datetime import datetime, timezone
    from ..base.fsutil import atomic_write_text
    from ..base.sanitize import shown_path
    from .viewdata import collect
    from .viewpage import render
    data = collect(ctx.memory_root, ctx.config, git=not ctx.args.no_git)
    page = render(data, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    if ctx.args.output:
        target = os.path.abspath(ctx.args.output)
        if os.path.isdir(target):
            raise CliError(f"{shown_path(target)} is a folder; name the file to write (for example "
                           f"{shown_path(os.path.join(target, 'memory.html'))})")
        if not os.path.isdir(os.path.dirname(target)):
            _make_folder_in_repository(os.path.dirname(target), os.path.dirname(os.path.dirname(
                os.path.abspath(ctx.memory_root))))
    else:
        from ..derived.cache import cache_folder
        target = os.path.join(cache_folder(ctx.memory_root), PAGE_NAME)
    atomic_write_text(target, page, durable=False)
    active = sum(1 for m in data["memories"] if m["status"] == "active")
    review = sum(1 for m in data["memories"] if m["status"] == "active" and m["review"])
    print(shown_path(target))
    print(f"  {active} active memor{'y' if active == 1 else 'ies'}, {review} to review, {len(data['invalid'])} invalid files"
          + ("" if data["git"] or ctx.args.no_git else " (no git history: no authors or stale marks)"),
          file=sys.stderr)
    if ctx.args.open:
        import webbrowser
        from pathlib import Path
        if not webbrowser.open(Path(target).as_uri()):
            print(f"could not open a browser; open {shown_path(target)} yourself", file=sys.stderr)
    return 0
