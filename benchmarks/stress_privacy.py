"""The stress run's privacy phase: planted secrets and private sections never reach a hook's output
or the CLI's.
"""
from __future__ import annotations

import json
import random
import string
import time
from stress_lab import PRIVATE_MARK, WORDS, Lab, Tally, content_for, leaks_in, make_project, rand_token


def section_privacy(lab: Lab, size: dict, seed: int, canaries: list) -> bool:
    """Every write command with planted private sections and secrets; then scan every byte written."""
    start = time.monotonic()
    rng = random.Random(seed + 3)
    t = Tally()
    project = make_project(lab.base / "privacy")
    root = project / ".claude" / "memory"
    (root / "memory-config.json").write_text(json.dumps(
        {"privacy": {"private_tags": {"formats": ["xml", "bracket", "comment"]}}}))
    shapes = [lambda: "sk-" + rand_token(rng, 40), lambda: "ghp_" + rand_token(rng, 36),
              lambda: "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16)),
              lambda: "xoxb-" + rand_token(rng, 24), lambda: "glpat-" + rand_token(rng, 20),
              lambda: "Bearer " + rand_token(rng, 40)]
    wrappers = [("<private>", "</private>"), ("<PRIVATE>", "</Private >"), ("[private]", "[/private]"),
                ("<!-- private -->", "<!-- /private -->")]
    mine: list = []

    def plant():
        secret = rng.choice(shapes)()
        op_, cl = rng.choice(wrappers)
        priv = PRIVATE_MARK + "P" + rand_token(rng, 14)
        mine.extend([priv, secret.split()[-1]])
        return f"see {op_}{priv}{cl} and {secret} here"

    n = max(6, size["writers"] * 3)
    ids = []
    for i in range(n):
        title = f"Privacy {i} {WORDS[i % len(WORDS)]} rollout"
        proc = lab.cli("add", "--root", project, "--json", "--category", "decision", "--title", title, "--tag", "privacy",
                       "--content-json", json.dumps(content_for("decision", plant()) | {"decision": plant()}))
        t.add("add with planted values", 1)
        if proc.returncode == 0:
            ids.append(json.loads(proc.stdout)["id"])
        else:
            t.problem("add refused", proc.stderr[-200:])
        rec = {"category": "runbook", "title": f"Privacy runbook {i} {WORDS[i % len(WORDS)]}", "tags": ["privacy"],
               "content": {"trigger": plant(), "steps": [plant(), plant()], "verification": plant()}}
        proc = lab.cli("save", "--root", project, "--input", "-", input=json.dumps(rec))
        t.add("save with planted values")
        if proc.returncode != 0:
            t.problem("save refused", proc.stderr[-200:])
    for i, mid in enumerate(ids):
        lab.cli("update", mid, "--root", project, "--content-json", json.dumps({"decision": plant()}))
        t.add("update with planted values")
        if i % 3 == 0:
            lab.cli("archive" if i % 2 else "retire", mid, "--root", project, "--reason", plant())
            t.add("retire/archive reasons with planted values")
    canaries.extend(mine)
    t.add("private sections and secrets planted (this section)", len(mine))
    # the hooks read them back: every output is scanned
    outputs = []
    for i in range(n):
        outputs.append(lab.run_hook("UserPromptSubmit", json.dumps(
            {"prompt": f"privacy rollout {WORDS[i % len(WORDS)]} runbook", "cwd": str(project)}).encode(), project))
    outputs.append(lab.run_hook("SessionStart", json.dumps({"cwd": str(project), "source": "startup"}).encode(), project))
    for tp in sorted((lab.base / "transcripts").glob("*.jsonl")) if (lab.base / "transcripts").exists() else []:
        outputs.append(lab.run_hook("Stop", json.dumps({"cwd": str(project), "transcript_path": str(tp),
                                                        "session_id": tp.name}).encode(), project))
    for run in outputs:
        t.add("hook outputs scanned")
        t.add("hook output bytes scanned", len(run["out"]))
        if leaks_in(run["out"], canaries):
            t.problem("hook output leaked", f"{leaks_in(run['out'], canaries)[:2]}")
    # every byte every section wrote: stores, derived files, caches, runtime state
    scanned = 0
    for folder in ("concurrency", "crashes", "privacy", "state"):
        for p in (lab.base / folder).rglob("*") if (lab.base / folder).exists() else []:
            if p.is_file() and not p.is_symlink():
                data = p.read_bytes()
                scanned += len(data)
                t.add("files scanned")
                found = leaks_in(data, canaries)
                if found:
                    t.problem("stored file leaked", f"{p.relative_to(lab.base)}: {found[:2]}")
    t.add("bytes scanned in written files", scanned)
    t.add("planted values checked (all sections)", len(set(canaries)))
    return t.report("privacy", time.monotonic() - start)
