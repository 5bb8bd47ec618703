"""``stress.py``'s checks of what a hook printed (the block's shape, no leak, no forged tag) and
the ``Tally`` of runs and violations.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from stress_lab import FORGED_TAG, HOOK_TIMEOUT, INVISIBLE, leaks_in  # noqa: E402

STRESS = Path(__file__).resolve().with_name("stress.py")  # workers run as stress.py --worker


# --- output checks -------------------------------------------------------------------------

_ENTRY = re.compile(r"^- \[([A-Z_]+)\] (.+) -> (\.claude/memory/[a-z_-]+/[^/\s]+\.json)(?: #tags:(\S+))?"
                    r"(?: \([^()]+\))?$")  # the stale mark, when the memory's related files changed since


def data_note() -> str:
    from team_memory.recall.block import DATA_NOTE
    return DATA_NOTE


def related_head() -> str:
    from team_memory.recall.block import RELATED_HEAD
    return RELATED_HEAD


def check_block(text: str, event: str) -> list:
    """Problems with a ``<memory-context>`` block (empty list: well formed)."""
    problems = []
    if not text.endswith("\n"):
        return ["block does not end with a newline"]
    lines = text[:-1].split("\n")
    if not lines[0].startswith('<memory-context source=".claude/memory/"') or not lines[0].endswith(">"):
        problems.append(f"bad head {lines[0][:80]!r}")
    if lines[-1] != "</memory-context>" or text.count("</memory-context>") != 1 or text.count("<memory-context") != 1:
        problems.append("block not closed exactly once at the end")
    if INVISIBLE.search(text):
        problems.append("control, bidi or zero-width character in the block")
    inner = lines[1:-1]
    note = data_note()
    if text.count(note) != 1 or not inner or inner[0] != note:
        problems.append("the reference-data note is not the first line, exactly once")
    for line in inner:
        if line == note:
            continue
        if event == "UserPromptSubmit":
            m = _ENTRY.match(line)
            if m:
                title = m.group(2)
                if FORGED_TAG.search(title) or " -> " in title or "#tags:" in title:
                    problems.append(f"forged tag or marker in title {title[:60]!r}")
                if ".." in m.group(3).split("/"):
                    problems.append(f"path escapes {m.group(3)!r}")
            elif line.startswith("  ") and ":" in line:
                if FORGED_TAG.search(line):
                    problems.append(f"forged tag in excerpt {line[:60]!r}")
            elif line.startswith("Kinds: ") and line is inner[-1]:
                pass
            elif line == related_head() and inner.count(line) == 1:
                pass  # the possibly related titles follow the clear hits
            else:
                problems.append(f"unexpected line {line[:60]!r}")
        else:
            if line.startswith("Search: "):
                continue  # our own usage line (it shows a <words> placeholder)
            if "<" in line or ">" in line or " -> " in line:
                problems.append(f"unescaped orientation line {line[:60]!r}")
    return problems


def check_output(event: str, run: dict, ctx: dict) -> list:
    """Every rule a hook run must keep; an empty list when it kept them all."""
    problems = []
    if run["timeout"]:
        return [f"no exit within {HOOK_TIMEOUT:g} s"]
    if run["rc"] != 0:
        problems.append(f"exit code {run['rc']}")
    out, err = run["out"], run["err"]
    if b"Traceback" in out or b"Traceback" in err:
        problems.append("traceback printed")
    if run.get("audit"):
        problems.append("read outside the memory root: " + run["audit"][0])
    if not out:
        return problems
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError:
        return problems + ["stdout is not UTF-8"]
    for canary in ctx.get("outside", ()):
        if canary in text:
            problems.append("printed a file from outside the memory root")
    if leaks_in(text, ctx.get("canaries", ())):
        problems.append("private text or a secret in hook output")
    if event in ("UserPromptSubmit", "SessionStart"):
        problems += check_block(text, event)
        return problems
    try:
        data = json.loads(text)
    except ValueError:
        return problems + ["stdout is neither empty nor JSON"]
    if event == "Stop":
        if not (isinstance(data, dict) and set(data) == {"decision", "reason"} and data["decision"] == "block"
                and isinstance(data["reason"], str)):
            problems.append("Stop output is not a block decision")
        else:
            for line in data["reason"].splitlines():
                if line.startswith("- ") and ("<" in line or ">" in line):
                    problems.append(f"unescaped evidence {line[:60]!r}")
    else:
        hso = data.get("hookSpecificOutput") if isinstance(data, dict) else None
        if not isinstance(hso, dict) or hso.get("hookEventName") != event:
            problems.append(f"{event} output lacks hookSpecificOutput")
        elif event == "PreToolUse" and hso.get("permissionDecision") != "deny":
            problems.append("PreToolUse output is not a deny")
        elif event == "PostToolUse" and not isinstance(hso.get("additionalContext"), str):
            problems.append("PostToolUse output has no context text")
    return problems


class Tally:
    """Counts plus the first few examples of each problem."""

    def __init__(self):
        self.counts: dict = {}
        self.problems: dict = {}

    def add(self, key: str, n: int = 1):
        self.counts[key] = self.counts.get(key, 0) + n

    def problem(self, kind: str, example: str):
        entry = self.problems.setdefault(kind, [0, []])
        entry[0] += 1
        if len(entry[1]) < int(os.environ.get("TM_STRESS_EXAMPLES", "3")):
            entry[1].append(example[:300])

    def merge(self, other: dict):
        for k, v in other.get("counts", {}).items():
            self.add(k, v)
        for k, (n, ex) in other.get("problems", {}).items():
            entry = self.problems.setdefault(k, [0, []])
            entry[0] += n
            entry[1] += ex[: 3 - len(entry[1])]

    def to_dict(self):
        return {"counts": self.counts, "problems": self.problems}

    def report(self, name: str, secs: float) -> bool:
        print(f"== {name} ==")
        for k in sorted(self.counts):
            print(f"  {k:<48} {self.counts[k]:>9,}")
        for k, (n, examples) in sorted(self.problems.items()):
            print(f"  VIOLATION {k}: {n}")
            for ex in examples:
                print(f"    e.g. {ex}")
        ok = not self.problems
        print(f"{name}: {'PASS' if ok else 'FAIL'} ({secs:.1f} s)\n", flush=True)
        return ok
