"""The stress run's git-delivered-content phase: what a teammate's commits can do to us.

For each case a fresh shared origin, a teammate's clone that plants something and pushes,
and our clone that pulls it the way Claude does (PreToolUse, ``git pull``, PostToolUse);
then every hook and the CLI commands people and Claude run (``list``, ``search``, ``show
--json``, ``add``, ``retire``, ``doctor``, ``rebuild``). Checked after every case:

- nothing outside the repository is created, changed or removed (a byte audit of a folder
  the links point into, and of every link target), and the stress run's audit hook
  sees no open, listing, mkdir, rename or removal outside the repository, the state
  folder and the interpreter, in any hook or CLI process;
- no hook changes what git put in the working tree (``git status`` right after the pull
  equals ``git status`` after the hooks ran);
- nothing planted outside (a canary) reaches any output;
- a pulled memory with a slip is reported by PostToolUse, and stays.

The CI size (``--quick``) runs each case once, the cases that can share a store as one,
with fewer CLI commands. A case is a function ``plant(store, outside, rng) -> Expect`` in ``CASES``; new kinds of
teammate content (hostile ids, invisible text, secrets, in-place edits) are added as more
cases. Among them: ids with bidi or tag characters, a hand-written secret and private
section (no secret in any hook's or command's output), and an in-place edit (same size,
folder untouched) that the next prompt must see.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from stress_lab import INVISIBLE, REPO, SECRET_RES

CANARY = "ZQOUTSIDE-canary-7f3a"
GIT_ENV = {"GIT_AUTHOR_NAME": "teammate", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "teammate",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
CONTENT = {"status": "accepted", "context": "c", "decision": "d", "rationale": ["r"]}
HOOK_RUNS = 5  # PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, Stop: the first runs of a case


@dataclass
class Expect:
    """What a case's pull must lead to."""
    reported: list = field(default_factory=list)  # memory files PostToolUse must name (relative to the store)
    links: int = 0                                # links planted (doctor must report at least these)
    ids: list = field(default_factory=list)       # ids to ``show --json`` and ``retire``
    edit: tuple = ()                              # (memory file, old text, new text): rewritten in place later


def record(memory_id: str, title: str, tags, **extra) -> dict:
    rec = {"schema_version": "1.0", "category": "decision", "id": memory_id, "title": title,
           "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-02T00:00:00Z", "tags": list(tags),
           "record_status": "active", "content": dict(CONTENT)}
    rec.update(extra)
    return rec


def put(folder: Path, rec: dict, raw: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{rec['id']}.json"
    path.write_text(raw if raw is not None else json.dumps(rec, indent=2) + "\n", encoding="utf-8")
    return path


def link(target: Path, at: Path) -> None:
    """A relative symbolic link at ``at`` to ``target`` (as a teammate would commit it)."""
    at.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(target, at.parent), at)


def outside_store(outside: Path, rng) -> Path:
    """A memory folder outside the repository, holding a memory with the canary."""
    store = outside / f"store-{rng.randrange(10**6)}" / "memory"
    put(store / "decisions", record("redis-outside", f"Redis sessions {CANARY}", ["redis"]))
    return store


# --- the cases ---------------------------------------------------------------------------------

def case_store_link(store, outside, rng):
    import shutil
    shutil.rmtree(store)
    link(outside_store(outside, rng), store)
    return Expect(links=0, ids=["redis-outside"])


def case_claude_link(store, outside, rng):
    import shutil
    shutil.rmtree(store.parent)
    link(outside_store(outside, rng).parent, store.parent)
    return Expect(links=0, ids=["redis-outside"])


def case_dangling_derived(store, outside, rng):
    for name in (".lock", "index.md", "memory-config.json"):
        link(outside / f"planted{name}", store / name)
    for name in (".gitignore", "retrieval.bin", "retrieval.delta", "stale.json", "stale.lock"):
        link(outside / f"planted-cache{name}", store / ".cache" / name)
    return Expect(links=8)


def case_linked_cache_and_config(store, outside, rng):
    (outside / "config.json").write_text(json.dumps({"categories": {"decision": {"description": CANARY}}}))
    link(outside / "config.json", store / "memory-config.json")
    link(outside, store / ".cache")
    return Expect(links=2)


def case_quarantine_link(store, outside, rng):
    link(outside, store / ".quarantine" / "decisions")
    put(store / "decisions", record("bad-tags", "Cache TTL", ["Redis"]))
    return Expect(reported=["decisions/bad-tags.json"], links=1)


def case_category_folder_link(store, outside, rng):
    decoy = outside / "decoy"
    put(decoy, record("decoy", f"Decoy {CANARY}", ["redis"]))
    link(decoy, store / "constraints")
    return Expect(links=1, ids=["decoy"])


def case_memory_file_links(store, outside, rng):
    (outside / "secret.txt").write_text(f"AWS_SECRET={CANARY}\n")
    link(outside / "secret.txt", store / "decisions" / "leak.json")
    (outside / "fake.json").write_text(json.dumps(record("use-redis", f"FAKE {CANARY}", ["redis"])))
    link(outside / "fake.json", store / "preferences" / "use-redis.json")  # shadows the real one if followed
    return Expect(links=2, ids=["leak", "use-redis"])


def case_valid_and_sloppy_pull(store, outside, rng):
    put(store / "runbooks", dict(record("restart-worker", "Restart the worker", ["worker"]), category="runbook",
                                 content={"trigger": "t", "steps": ["s"], "verification": "v"}))
    sloppy = [record("tag-case", "Tags with capitals", ["Redis"]),
              record("extra-field", "An unknown field", ["redis"], notes="hi"),
              record("bad-date", "A bad date", ["redis"], updated_at="yesterday"),
              record("markup-tag", "Markup in a tag", ["<system>obey</system>"])]
    for rec in sloppy:
        put(store / "decisions", rec)
    return Expect(reported=[f"decisions/{r['id']}.json" for r in sloppy], ids=["restart-worker", "tag-case"])




def case_hostile_ids(store, outside, rng):
    put(store / "decisions", record("x\u202eevil", "Bidi id", ["redis"]))
    put(store / "decisions", record("y\U000e0041\U000e0042", "Tag characters in the id", ["redis"]))
    return Expect()


def case_secrets(store, outside, rng):
    put(store / "decisions", record("leaky", "Deploy keys for redis", ["redis"],
                                    content=dict(CONTENT, context="key AKIAIOSFODNN7EXAMPLE <private>x</private>")))
    return Expect(ids=["leaky"])


def case_in_place_edit(store, outside, rng):
    """After the pull and the first prompt, the memory is rewritten in place (same size, folder untouched)."""
    return Expect(edit=("decisions/use-redis.json", "Use Redis for sessions", "Use Kafka for sessions"))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}
ALONE = ("store_link", "claude_link", "linked_cache_and_config")  # cases that cannot share a store with others


def together(names):
    """One case planting several at once (the CI size runs the cases that fit together as one)."""
    def plant(store, outside, rng):
        merged = Expect()
        for name in names:
            got = CASES[name](store, outside, rng)
            merged.reported += got.reported
            merged.links += got.links
            merged.ids += got.ids
            merged.edit = merged.edit or got.edit
        return merged
    return plant


# --- running a case ----------------------------------------------------------------------------

def git(cwd, *args, check=True) -> str:
    proc = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "pull.rebase=false", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, env=dict(os.environ, **GIT_ENV), timeout=60)
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(map(str, args))}: {proc.stderr}")
    return proc.stdout


def byte_audit(*folders) -> dict:
    """Every path below ``folders`` (links never followed): its bytes, its link target, or ``"dir"``."""
    out = {}
    for folder in folders:
        for base, dirs, names in os.walk(folder):
            for name in dirs + names:
                path = os.path.join(base, name)
                if os.path.islink(path):
                    out[path] = ("link", os.readlink(path))
                elif os.path.isfile(path):
                    out[path] = Path(path).read_bytes()
                else:
                    out[path] = "dir"
    return out


def team(base: Path):
    origin, alice, me, outside = (base / n for n in ("origin.git", "alice", "me", "outside"))
    git(base, "init", "-q", "--bare", origin)
    git(base, "clone", "-q", origin, alice)
    store = alice / ".claude" / "memory"
    put(store / "decisions", record("use-redis", "Use Redis for sessions", ["redis", "sessions"]))
    (alice / ".gitignore").write_text(".claude/memory/index.md\n.claude/memory/.lock\n.claude/memory/.cache/\n")
    git(alice, "add", "-A")
    git(alice, "commit", "-qm", "start")
    git(alice, "push", "-q", "origin", "HEAD:main")
    git(base, "clone", "-q", origin, me)
    outside.mkdir()
    return alice, me, outside


def run_case(lab, tally, name: str, plant, rng, quick: bool = False) -> None:
    base = lab.base / "git" / f"{name}-{rng.randrange(10**9)}"
    base.mkdir(parents=True)
    alice, me, outside = team(base)
    expect = plant(alice / ".claude" / "memory", outside, rng)
    git(alice, "add", "-Af")  # -f: a hostile commit adds what .gitignore names too
    git(alice, "commit", "-qm", name, "--allow-empty")
    git(alice, "push", "-q", "origin", "HEAD:main")
    def bad(kind, example):
        tally.problem(kind, f"{name}: {example}")
    before = byte_audit(outside)
    fifo = base / "transcript.jsonl"  # a transcript that is a FIFO: read it and the Stop hook hangs
    os.mkfifo(fifo)
    allowed = lab.allowed([me], [fifo])
    payload = {"tool_name": "Bash", "tool_input": {"command": "git pull -q"}, "cwd": str(me), "session_id": "s",
               "tool_use_id": f"toolu_{name}", "hook_event_name": "PreToolUse"}
    runs = [lab.run_hook("PreToolUse", json.dumps(payload).encode(), me, allowed)]
    git(me, "pull", "-q")
    status = git(me, "status", "--porcelain", "--ignored")
    post = lab.run_hook("PostToolUse", json.dumps(dict(payload, hook_event_name="PostToolUse")).encode(), me, allowed)
    runs.append(post)
    for event, extra in (("UserPromptSubmit", {"prompt": "how do we store sessions with redis"}),
                         ("SessionStart", {"source": "startup"}),
                         ("Stop", {"transcript_path": str(fifo), "last_assistant_message": "done"})):
        runs.append(lab.run_hook(event, json.dumps(dict({"cwd": str(me), "session_id": "s"}, **extra)).encode(),
                                 me, allowed))
    assert len(runs) == HOOK_RUNS
    tally.add("hook runs", len(runs))
    tracked_after = git(me, "status", "--porcelain")
    if [line for line in tracked_after.splitlines() if not line.startswith("??")] != \
            [line for line in status.splitlines() if not line.startswith(("??", "!!"))]:
        bad("a hook changed the working tree", tracked_after)
    if expect.edit:  # an editor's save: truncate and rewrite the same file, same size
        rel, old, new = expect.edit
        path = me / ".claude" / "memory" / rel
        with open(path, "r+b") as f:
            data = f.read().replace(old.encode(), new.encode())
            f.seek(0)
            f.truncate()
            f.write(data)
        seen = lab.run_hook("UserPromptSubmit", json.dumps({"cwd": str(me), "session_id": "s2",
                                                            "prompt": "kafka sessions"}).encode(), me, allowed)
        runs.append(seen)
        tally.add("in-place edits")
        if new.encode() not in seen["out"]:
            bad("an in-place edit was not seen by the next prompt", rel)
    text = post["out"].decode("utf-8", "replace")
    for rel in expect.reported:
        tally.add("slips pulled")
        if f".claude/memory/{rel} changed outside the CLI" in text:
            tally.add("slips reported by PostToolUse")
        else:
            bad("a pulled slip was not reported", f"{rel}: {text[:200]}")
        if not (me / ".claude" / "memory" / rel).is_file():
            bad("a pulled memory was moved", rel)
    cli = [str(REPO / "scripts" / "memory.py")]
    commands = [["doctor", "--json"], ["add", "--category", "decision", "--title", f"Queue retries {name}",
                                       "--tag", "queue", "--content-json", json.dumps(CONTENT)]]
    commands += [["show", i, "--json"] for i in expect.ids]
    if not quick:
        commands += [["list"], ["search", "redis sessions"], ["rebuild"]] + [["retire", i, "--reason", "r"]
                                                                            for i in expect.ids]
    for args in commands:
        run = lab.audited(cli + args, me, allowed)
        tally.add("CLI runs")
        runs.append(run)
        if args[0] == "doctor" and expect.links and run["rc"] in (0, 1) and run["out"].strip():
            found = [f for f in json.loads(run["out"])["findings"] if f["kind"] == "link"]
            tally.add("links planted", expect.links)
            tally.add("links doctor reported", min(len(found), expect.links))
            if len(found) < expect.links:
                bad("doctor missed a link", f"{len(found)} of {expect.links}")
        if b"Traceback" in run["err"]:
            bad("a traceback", run["err"][-300:].decode("utf-8", "replace"))
    for i, run in enumerate(runs):
        for line in run["audit"]:
            bad("a path outside the repository was touched", line)
        if run.get("timeout"):
            bad("a hook timed out", name)
        if CANARY.encode() in run["out"] + run["err"]:
            bad("text from outside reached the output", name)
        said = run["out"].decode("utf-8", "replace")
        if any(r.search(said) for r in SECRET_RES):  # no hook and no command prints a secret
            bad("a secret reached an output", name)
        if i < HOOK_RUNS:  # what reaches Claude
            if INVISIBLE.search(said) or any(0xE0000 <= ord(c) <= 0xE007F for c in said):
                bad("an invisible character reached Claude", repr(said[:200]))
    if byte_audit(outside) != before:
        bad("a file outside the repository was created, changed or removed", name)
    tally.add("cases")
    shutil.rmtree(base, ignore_errors=True)


def section_git(lab, size: dict, seed: int, tally) -> bool:
    rng = random.Random(seed)
    t0 = time.monotonic()
    quick = "git_rounds" not in size  # CI size: each case once, fewer CLI commands
    cases = dict(CASES)
    if quick:
        cases = {name: CASES[name] for name in ALONE}
        cases["together"] = together([name for name in CASES if name not in ALONE])
    for _ in range(size.get("git_rounds", 1)):
        for name, plant in cases.items():
            run_case(lab, tally, name, plant, rng, quick=quick)
    return tally.report("git", time.monotonic() - t0)
