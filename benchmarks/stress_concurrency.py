"""The stress run's concurrency phase: writers, rebuilds and hooks at once on one store; the store
must end up exactly what the writers wrote.
"""
from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

from stress_lab import (ENTRY, FOLDERS, TEXT_FIELD, WORDS, Lab, Tally, check_output, content_for, index_state,
                        leaks_in, make_project, planted, spawn_worker, temp_files)
from team_memory.base.sanitize import clean_line
from team_memory.records.validate import validate_record


def worker_writer(a) -> None:
    """One writer: creates ``count`` memories, updates every second one, retires every fourth."""
    lab = Lab(Path(a.lab))
    rng = random.Random(a.seed)
    cats = ("decision", "constraint", "preference", "runbook", "tech_debt")
    ids: dict = {}
    with open(a.log, "a", encoding="utf-8") as log:
        def op(kind, k, args, **extra):
            t0 = time.time()
            proc = lab.cli(*args, "--root", a.project, "--json")
            t1 = time.time()
            rec = {"op": kind, "k": k, "ok": proc.returncode == 0, "rc": proc.returncode, "t0": t0, "t1": t1, **extra}
            if proc.returncode == 0:
                data = json.loads(proc.stdout)
                rec.update(id=data["id"], path=data["path"])
            else:
                rec["err"] = (proc.stderr + proc.stdout)[-300:]
            log.write(json.dumps(rec) + "\n")
            log.flush()
            return rec

        for k in range(a.count):
            cat = cats[k % len(cats)]
            title = f"w{a.index} note{k} {rng.choice(WORDS)} {rng.choice(WORDS)}"
            text, values = planted(rng, f"{a.index}x{k}")
            log.write(json.dumps({"op": "plant", "values": values}) + "\n")
            r = op("add", k, ["add", "--category", cat, "--title", title, "--tag", f"w{a.index}",
                              "--tag", rng.choice(WORDS), "--content-json", json.dumps(content_for(cat, text))],
                   title=title, category=cat)
            if r["ok"]:
                ids[k] = r
            if k % 2 == 1 and (k - 1) in ids:
                prev = ids[k - 1]
                text, values = planted(rng, f"{a.index}u{k}")
                log.write(json.dumps({"op": "plant", "values": values}) + "\n")
                new_title = prev["title"] + " revised"
                op("update", k - 1, ["update", prev["id"], "--title", new_title, "--content-json",
                                     json.dumps({TEXT_FIELD[prev["category"]]: text})], title=new_title,
                   id=prev["id"], path=prev["path"])
            if k % 4 == 3 and (k - 2) in ids:
                prev = ids[k - 2]
                text, values = planted(rng, f"{a.index}r{k}")
                log.write(json.dumps({"op": "plant", "values": values}) + "\n")
                op("retire", k - 2, ["retire", prev["id"], "--reason", f"superseded {text}"],
                   id=prev["id"], path=prev["path"])


def worker_rebuild(a) -> None:
    lab = Lab(Path(a.lab))
    n = bad = 0
    while not os.path.exists(a.stop):
        proc = lab.cli("rebuild", "--root", a.project)
        n += 1
        bad += proc.returncode != 0
    Path(a.log).write_text(json.dumps({"rebuilds": n, "failed": bad}))


def worker_hooks(a) -> None:
    """Run the recall hook and read index.md in a loop; log what every reader saw, with times."""
    lab = Lab(Path(a.lab))
    rng = random.Random(a.seed)
    memory_root = Path(a.project) / ".claude" / "memory"
    with open(a.log, "a", encoding="utf-8") as log:
        it = 0
        while not os.path.exists(a.stop):
            it += 1
            prompt = f"w{rng.randrange(a.writers)} note{rng.randrange(a.count)} {rng.choice(WORDS)} {rng.choice(WORDS)}"
            payload = json.dumps({"prompt": prompt, "cwd": a.project, "hook_event_name": "UserPromptSubmit"}).encode()
            t0 = time.time()
            run = lab.run_hook("UserPromptSubmit", payload, a.project)
            t1 = time.time()
            problems = check_output("UserPromptSubmit", run, {})
            paths = [m.group(3) for m in map(ENTRY.match, run["out"].decode("utf-8", "replace").splitlines()) if m]
            log.write(json.dumps({"kind": "hook", "t0": t0, "t1": t1, "paths": paths, "problems": problems,
                                  "secs": run["secs"]}) + "\n")
            t0 = time.time()
            entries, bad = index_state(memory_root)
            t1 = time.time()
            if entries is not None:
                log.write(json.dumps({"kind": "index", "t0": t0, "t1": t1, "bad": bad,
                                      "paths": [p.rsplit("/", 1)[1] for p in entries]}) + "\n")
            log.flush()


def section_concurrency(lab: Lab, size: dict, seed: int, canaries: list) -> bool:
    start = time.monotonic()
    t = Tally()
    project = make_project(lab.base / "concurrency")
    memory_root = project / ".claude" / "memory"
    logs = lab.base / "concurrency-logs"
    logs.mkdir(exist_ok=True)
    stop = logs / "stop"
    writers = [spawn_worker("writer", lab, project=project, index=i, count=size["per_writer"], seed=seed * 100 + i,
                            log=logs / f"writer-{i}.jsonl") for i in range(size["writers"])]
    rebuild = spawn_worker("rebuild", lab, project=project, stop=stop, log=logs / "rebuild.json")
    hooks = spawn_worker("hooks", lab, project=project, stop=stop, log=logs / "hooks.jsonl", seed=seed,
                         writers=size["writers"], count=size["per_writer"])
    for w in writers:
        t.add("writer processes exited 0", w.wait() == 0)
    stop.write_text("stop")
    rebuild.wait()
    hooks.wait()

    # what every writer reported, per memory
    mem: dict = {}
    for i in range(size["writers"]):
        for line in (logs / f"writer-{i}.jsonl").read_text().splitlines():
            r = json.loads(line)
            if r["op"] == "plant":
                canaries += r["values"]
                continue
            t.add(f"{r['op']} operations")
            if not r["ok"]:
                t.add(f"{r['op']} operations refused")
                t.problem("write failed", f"{r['op']} rc={r['rc']}: {r.get('err', '')}")
                continue
            rel = Path(r["path"]).relative_to(project).as_posix()
            m = mem.setdefault(rel, {"status": "active"})
            if r["op"] == "add":
                m.update(created=r["t1"], title=r["title"], id=r["id"])
            elif r["op"] == "update":
                m["title"] = r["title"]
            elif r["op"] == "retire":
                m.update(status="retired", retire_t0=r["t0"], retire_t1=r["t1"])
    t.add("memories reported saved", len(mem))
    t.add("memories retired", sum(m["status"] == "retired" for m in mem.values()))

    # every saved memory exists, is valid and holds its last reported state
    for rel, m in mem.items():
        path = project / rel
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            t.problem("saved memory missing or unreadable", f"{rel}: {exc}")
            continue
        cat = next(c for c, f in FOLDERS.items() if f == path.parent.name)
        probs = validate_record(rec, folder_category=cat, file_id=path.stem)
        if probs:
            t.problem("saved memory invalid", f"{rel}: {probs[0].field} {probs[0].message}")
        if rec.get("title") != m["title"] or rec.get("record_status") != m["status"]:
            t.problem("saved memory lost an update", f"{rel}: {rec.get('title')!r}/{rec.get('record_status')}")
        t.add("memories verified on disk")
    on_disk = {p.relative_to(project).as_posix() for f in FOLDERS.values() for p in (memory_root / f).glob("*.json")}
    for extra in sorted(on_disk - set(mem)):
        t.problem("file on disk no writer reported", extra)

    # the index, as left by the last writer: exactly the active memories, with their titles
    entries, bad = index_state(memory_root)
    expected = {rel: clean_line(m["title"])[:120].strip() for rel, m in mem.items() if m["status"] == "active"}
    if entries is None or bad:
        t.problem("final index unreadable", f"bad lines {bad}")
    else:
        for rel in set(expected) - set(entries):
            t.problem("active memory missing from the final index", rel)
        for rel in set(entries) - set(expected):
            t.problem("retired or unknown memory in the final index", rel)
        for rel in set(entries) & set(expected):
            if entries[rel] != expected[rel]:
                t.problem("stale title in the final index", f"{rel}: {entries[rel]!r}")
        t.add("final index entries", len(entries))
    if temp_files(memory_root):
        t.problem("temp file left after clean exits", str(temp_files(memory_root)[0]))
    scanned = 0
    for p in memory_root.rglob("*"):  # every byte the writers left: no private text, no secret
        if p.is_file():
            data = p.read_bytes()
            scanned += len(data)
            if leaks_in(data):
                t.problem("private text or secret stored", p.name)
    t.add("bytes scanned for planted values", scanned)

    # every reader's view: parsed; nothing created before it missing; nothing retired before it shown
    by_name = {rel.rsplit("/", 1)[1]: m for rel, m in mem.items()}
    hook_runs = hook_hits = snapshots = 0
    for line in (logs / "hooks.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["kind"] == "hook":
            hook_runs += 1
            for p in r["problems"]:
                t.problem("recall hook output", p)
            for path in r["paths"]:
                hook_hits += 1
                m = mem.get(path)
                if m and m["status"] == "retired" and m["retire_t1"] < r["t0"]:
                    t.problem("retrieval returned a retired memory", path)
            continue
        snapshots += 1
        if r["bad"]:
            t.problem("index snapshot with unparseable lines", str(r["bad"]))
        seen = set(r["paths"])
        for name, m in by_name.items():
            created_before = m.get("created", 1e18) < r["t0"]
            live = m["status"] == "active" or m["retire_t0"] > r["t1"]
            if created_before and live and name not in seen:
                t.problem("index snapshot lost a saved memory", name)
            if m["status"] == "retired" and m["retire_t1"] < r["t0"] and name in seen:
                t.problem("index snapshot shows a retired memory", name)
    reb = json.loads((logs / "rebuild.json").read_text())
    t.add("concurrent rebuilds", reb["rebuilds"])
    if reb["failed"]:
        t.problem("rebuild failed", str(reb["failed"]))
    t.add("recall hook runs during writes", hook_runs)
    t.add("memories returned by those runs", hook_hits)
    t.add("index snapshots read during writes", snapshots)
    return t.report("concurrency", time.monotonic() - start)
