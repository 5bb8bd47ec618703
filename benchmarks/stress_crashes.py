"""The stress run's crash phase: writers killed with ``kill -9`` at random moments; nothing lost,
nothing half-written, ``doctor`` repairs the rest.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from stress_lab import (CLI, FOLDERS, HOOK_TIMEOUT, TEXT_FIELD, WORDS, Lab, Tally, check_output, content_for,
                        index_state, leaks_in, make_project, planted, temp_files, truth)
from team_memory.base.fsutil import is_temp_file
from team_memory.records.store import dump_memory
from team_memory.records.validate import validate_record


def doctor_available(lab: Lab) -> bool:
    return lab.cli("doctor", "--help").returncode == 0


def seed_store(memory_root: Path, n: int, rng: random.Random) -> None:
    cats = ("decision", "constraint", "preference", "runbook", "tech_debt")
    for i in range(n):
        cat = cats[i % len(cats)]
        rec = {"schema_version": "1.0", "category": cat, "id": f"seed-{i}",
               "title": f"Seed {i} {rng.choice(WORDS)} {rng.choice(WORDS)}", "created_at": "2024-01-01T00:00:00Z",
               "updated_at": "2024-01-02T00:00:00Z", "tags": [rng.choice(WORDS)], "record_status": "active",
               "content": content_for(cat, f"seed text {i} " + " ".join(rng.choice(WORDS) for _ in range(40)))}
        assert not validate_record(rec, folder_category=cat, file_id=rec["id"])
        folder = memory_root / FOLDERS[cat]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"seed-{i}.json").write_text(dump_memory(rec), encoding="utf-8")


def snapshot_files(memory_root: Path) -> dict:
    return {p.relative_to(memory_root).as_posix(): p.read_bytes() for p in memory_root.rglob("*")
            if p.is_file() and p.name != ".lock" and not is_temp_file(p.name)}


def section_crashes(lab: Lab, size: dict, seed: int, canaries: list) -> bool:
    start = time.monotonic()
    rng = random.Random(seed + 1)
    t = Tally()
    project = make_project(lab.base / "crashes")
    memory_root = project / ".claude" / "memory"
    seed_store(memory_root, 400, rng)
    lab.cli("rebuild", "--root", project)
    use_doctor = doctor_available(lab)
    t.add("temp-file check by 'doctor --fix'" if use_doctor else "temp-file check by this script (no doctor)")
    ops = ("add", "update", "retire", "rebuild")

    def command(op: str, n: int):
        active = sorted(truth(memory_root))
        target = Path(rng.choice(active)).stem if active else None
        if op == "add":
            text, values = planted(rng, f"c{n}")
            canaries.extend(values)
            return ["add", "--category", "decision", "--title", f"Crash {n} {rng.choice(WORDS)}", "--tag", "crash",
                    "--content-json", json.dumps(content_for("decision", text))], None
        if op == "update" and target:
            text, values = planted(rng, f"u{n}")
            canaries.extend(values)
            folder = (memory_root / next(p for p in active if Path(p).stem == target)).parent.name
            field = TEXT_FIELD[next(c for c, f in FOLDERS.items() if f == folder)]
            return ["update", target, "--title", f"Updated {n} {rng.choice(WORDS)}",
                    "--content-json", json.dumps({field: text})], target
        if op == "retire" and target:
            return ["retire", target, "--reason", f"crash trial {n}"], target
        return ["rebuild"], None

    # how long each operation takes when left alone: kills land anywhere in [0, 1.1 x that]
    durations = {}
    for op in ops:
        args, _ = command(op, -1)
        t0 = time.monotonic()
        lab.cli(*args, "--root", project)
        durations[op] = time.monotonic() - t0
    for n in range(size["crash_trials"]):
        op = ops[n % len(ops)]
        args, target = command(op, n)
        before = snapshot_files(memory_root)
        proc = subprocess.Popen([sys.executable, str(CLI), *args, "--root", str(project)], env=lab.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(rng.uniform(0.3, 1.1) * durations[op])  # the first 30% is the interpreter starting
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        rc = proc.wait()
        t.add(f"trials: {op}")
        t.add("killed mid-run" if rc == -signal.SIGKILL else "finished before the kill")
        # every file: the old bytes or a complete new version, never torn
        for p in sorted(memory_root.rglob("*.json")):
            if is_temp_file(p.name) or p.name == "memory-config.json":
                continue
            rel = p.relative_to(memory_root).as_posix()
            data = p.read_bytes()
            try:
                obj = json.loads(data)
            except ValueError:
                t.problem("torn file", rel)
                continue
            if rel.startswith(".cache/"):
                continue
            cat = next((c for c, f in FOLDERS.items() if f == p.parent.name), None)
            if cat and validate_record(obj, folder_category=cat, file_id=p.stem):
                t.problem("invalid record after a crash", rel)
            t.add("files checked after a kill")
            if rel in before and before[rel] != data:
                t.add("files found in their new version")
        entries, bad = index_state(memory_root)
        if entries is None or bad:
            t.problem("index unreadable after a kill", f"bad lines {bad}")
        if not (memory_root / "index.md").read_bytes() == before.get("index.md"):
            t.add("index found in its new version")
        # leftover temp files: found, then removed
        left = temp_files(memory_root)
        t.add("leftover temp files found", len(left))
        if left:
            if use_doctor:
                # every writer of this trial is dead, so even a fresh temp file is a leftover
                lab.cli("doctor", "--fix", "--temp-age", "0", "--root", project)
            else:
                for p in left:
                    p.unlink()
            if temp_files(memory_root):
                t.problem("temp file not removed", str(temp_files(memory_root)[0]))
        # the next hook heals a stale index by itself; an explicit rebuild gives the truth
        run = lab.run_hook("UserPromptSubmit", json.dumps({"prompt": f"crash {rng.choice(WORDS)} notes",
                                                           "cwd": str(project)}).encode(), project,
                           allowed=lab.allowed([memory_root]))
        for p in check_output("UserPromptSubmit", run, {"canaries": canaries}):
            t.problem("hook after a kill", p)
        if index_state(memory_root)[0] != truth(memory_root):
            t.problem("hook did not bring the index back to the truth", op)
        proc2 = lab.cli("rebuild", "--root", project, timeout=HOOK_TIMEOUT)
        if proc2.returncode != 0:
            t.problem("rebuild after a kill failed", proc2.stderr[-200:])
        if index_state(memory_root)[0] != truth(memory_root):
            t.problem("rebuilt index differs from the truth", op)
        t.add("index rebuilt to the truth")
    t.add("memories in the store at the end", len(truth(memory_root)))
    for p in memory_root.rglob("*"):
        if p.is_file() and leaks_in(p.read_bytes(), canaries):
            t.problem("private text or secret stored", p.name)
    return t.report("crashes", time.monotonic() - start)
