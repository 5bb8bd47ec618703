"""What starting a hook costs through the shell, with ``python3`` as this machine's ``PATH`` has it.

Claude Code runs each hook command with ``/bin/sh -c``; the command starts ``python3 -S <launcher>``,
the ``python3`` that ``PATH`` finds first, which on a machine with a version manager (pyenv, asdf) is
its shim: a shell script that works out the version and then starts the interpreter. This script
times, run by run in turn (A B A B ...), the exact command of two hooks (PreToolUse on an ordinary Bash
call, UserPromptSubmit with a prompt the store answers, 100 memories) through ``/bin/sh -c`` with
``PATH`` as the shell has it and with this interpreter's folder first (what ``doctor`` advises where
``python3`` is a shim), and ``/bin/sh -c 'python3 -S -c pass'`` and this interpreter's own
``-S -c pass`` for scale. It prints what ``PATH``'s ``python3`` is, then the medians.

    python3 benchmarks/hookstart.py              # 21 rounds
    python3 benchmarks/hookstart.py --rounds 41
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
from floorbench import ORDINARY, prepare_project  # noqa: E402

sys.path.insert(0, os.path.join(bench.REPO, "scripts"))
from team_memory.cli.hookpython import hooks_path  # noqa: E402

# what ``pyenv exec`` adds to the environment of the process it starts (this one, when run as ``python3``);
# Claude Code's shell has none of it
EXEC_ONLY = ("PYENV_DIR", "PYENV_HOOK_PATH", "_PYENV_INSTALL_PREFIX")


def command_of(event: str) -> str:
    with open(os.path.join(bench.REPO, "hooks.json"), encoding="utf-8") as f:
        return json.load(f)["hooks"][event][0]["hooks"][0]["command"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="python3 benchmarks/hookstart.py --rounds 21",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=21, help="runs of each command (default 21)")
    args = parser.parse_args(argv)
    here = os.path.realpath(sys.executable)
    shell_path = hooks_path(os.environ)  # PATH as the shell that runs the hooks has it
    found = shutil.which("python3", path=shell_path)
    with open(found, "rb") as f:
        kind = "a script (#!)" if f.read(2) == b"#!" else "a program"
    print(f"python3 on PATH: {found} ({kind}); this interpreter: {here}")
    rng = random.Random(26)
    with tempfile.TemporaryDirectory() as work:
        project = os.path.join(work, "store")
        memory_root = bench.make_store(project, 100, 7)
        prepare_project(project)
        subprocess.run([sys.executable, bench.CLI, "rebuild", "--root", project], check=True, capture_output=True)
        prompt = bench.match_prompt(project, memory_root, rng)
        base = {k: v for k, v in os.environ.items() if k not in EXEC_ONLY}
        base.update(CLAUDE_PLUGIN_ROOT=bench.REPO, PATH=shell_path)
        envs = {"PATH as it is": base,
                "interpreter's folder first": dict(base, PATH=os.path.dirname(here) + os.pathsep + shell_path)}
        counter = [0]

        def payload(event: str) -> bytes:
            counter[0] += 1
            fields = {"hook_event_name": event, "cwd": project, "session_id": f"start-{counter[0]}"}
            if event == "UserPromptSubmit":
                fields["prompt"] = prompt
            else:
                fields.update(tool_name="Bash", tool_input={"command": ORDINARY}, tool_use_id="toolu_start")
            return json.dumps(fields).encode()

        runs = {("interpreter", "-S -c pass"): ([here, "-S", "-c", "pass"], None, None),
                ("sh -c", "python3 -S -c pass"): (["/bin/sh", "-c", "python3 -S -c pass"], None, base)}
        for event in ("PreToolUse", "UserPromptSubmit"):
            for setting, env in envs.items():
                runs[(event, setting)] = (["/bin/sh", "-c", command_of(event)], event, env)
        times: dict = {key: [] for key in runs}
        for key, (cmd, event, env) in runs.items():  # a first run fills every cache
            subprocess.run(cmd, input=payload(event) if event else b"", capture_output=True, env=env, cwd=project)
        for _ in range(args.rounds):
            order = list(runs)
            rng.shuffle(order)
            for key in order:
                cmd, event, env = runs[key]
                times[key].append(bench.run_wait4(cmd, payload(event) if event else b"", cwd=project, env=env)[0])
    scale = bench.percentile(times[("interpreter", "-S -c pass")], 0.5)
    print(f"rounds: {args.rounds}, in turn; medians; x: against this interpreter's own -S -c pass\n")
    print("| what | how | median ms | x |\n| --- | --- | ---: | ---: |")
    for (what, how), values in times.items():
        med = bench.percentile(values, 0.5)
        print(f"| {what} | {how} | {med * 1000:.1f} | {med / scale:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
