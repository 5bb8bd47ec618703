"""``edit ID``: change a memory in your editor; the loop itself lives in ``editing.py``."""
from __future__ import annotations

import os
import sys

from .main import CLI, RESULT_JSON, CliError, add_command, opt, read_source
from .cmd_write import report
from ..edits.editing import RECOVERY_DAYS, EditAborted, edit_session
from ..records.store import find_memory
from ..records.validate import format_problems


def register(subparsers, common) -> None:
    add_command(subparsers, common, "edit", cmd_edit,
                "edit a memory's JSON in $EDITOR (then $VISUAL, then vi); validated on save, never lost",
                f"  {CLI} edit use-redis-for-sessions\n"
                f"  EDITOR='code --wait' {CLI} edit use-redis-for-sessions\n"
                f"  {CLI} edit use-redis-for-sessions --from ~/.local/state/team-memory/recovery/use-redis-for-sessions.X.json",
                opt("id", "the memory id, or category/id or the file's path (one of two files with one id); a broken "
                          "file (bad JSON, not UTF-8, invalid) opens as raw text, saved once it validates"),
                opt("--from", "start from this text (a recovery file) instead of the stored memory", dest="from_file",
                    metavar="FILE"), RESULT_JSON)


def _again() -> bool:
    print("Press Enter to edit again (your text is kept), or q and Enter to stop: ", end="", file=sys.stderr,
          flush=True)
    line = sys.stdin.readline()
    return bool(line) and line.strip().lower() not in ("q", "quit", "n", "no")


def cmd_edit(ctx) -> int:
    args = ctx.args
    found = find_memory(ctx.memory_root, ctx.config, args.id)
    if found is None:
        raise CliError(f"no memory with id {args.id!r} (try: {CLI} list --status all)")
    start = read_source(args.from_file, "--from") if args.from_file else None
    memory_id = os.path.basename(found[1])[:-5]
    try:
        result = edit_session(ctx.memory_root, ctx.config, memory_id, found[1], start, _again,
                              lambda problems: print(f"the memory was not saved:\n{format_problems(problems)}",
                                                     file=sys.stderr))
    except EditAborted as exc:
        message = str(exc)
        if exc.recovery:
            message += (f"; your text (private sections and secrets removed) is kept for {RECOVERY_DAYS} days in "
                        f"{exc.recovery} (continue with: {CLI} edit {args.id} --from {exc.recovery})")
        raise CliError(message) from None
    except ValueError as exc:  # WriteError before the editor opened
        raise CliError(str(exc)) from None
    if result is None and args.json:
        return ctx.print_json({"ok": True, "id": args.id, "action": "unchanged"})
    if result is None:
        print(f"no changes to {args.id}; nothing was written")
        return 0
    return report(ctx, result)
