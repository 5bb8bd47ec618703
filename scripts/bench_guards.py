#!/usr/bin/env python3
"""Time the write-guard hooks as Claude Code runs them: median wall time of the PreToolUse and
PostToolUse launchers for one Bash call, on a store of N memories. Prints the numbers."""
import json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from team_memory.base.model import DEFAULT_FOLDERS  # noqa: E402

CONTENT = {"decision": {"status": "accepted", "context": "c", "decision": "d", "rationale": ["r"]},
           "runbook": {"trigger": "t", "steps": ["s"], "verification": "v"},
           "constraint": {"kind": "limitation", "rule": "r", "impact": ["i"], "severity": "high", "active": True},
           "preference": {"topic": "t", "value": "v", "reason": "r", "strength": "default"},
           "tech_debt": {"status": "open", "priority": "low", "description": "d", "reason_deferred": "r"},
           "session_summary": {"goal": "g", "outcome": "success", "completed": ["c"], "next_actions": ["n"]}}


def write_memory(root, category, memory_id):
    folder = root / DEFAULT_FOLDERS[category]
    folder.mkdir(parents=True, exist_ok=True)
    record = {"schema_version": "1.0", "category": category, "id": memory_id, "title": f"Memory {memory_id}",
              "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "tags": ["t"],
              "content": CONTENT[category]}
    (folder / f"{memory_id}.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def run(hook, payload, env):
    start = time.perf_counter()
    subprocess.run([sys.executable, str(REPO / "hooks" / hook)], input=json.dumps(payload).encode(),
                   capture_output=True, env=env, check=True)
    return (time.perf_counter() - start) * 1000


def main(n=int(sys.argv[1]) if len(sys.argv) > 1 else 500, rounds=20):
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        (project / ".git").mkdir(parents=True)
        root = project / ".claude" / "memory"
        for i in range(n):
            write_memory(root, list(CONTENT)[i % 6], f"m{i}")
        env = dict(os.environ, TEAM_MEMORY_STATE_DIR=str(Path(tmp) / "state"))
        pre, post = [], []
        for r in range(rounds):
            payload = {"tool_name": "Bash", "tool_input": {"command": "make test"}, "cwd": str(project),
                       "session_id": "bench", "tool_use_id": f"t{r}"}
            pre.append(run("pre_tool_use.py", payload, env))
            post.append(run("post_tool_use.py", payload, env))
        base = [run("pre_tool_use.py", {}, env) for _ in range(rounds)]
        print(f"memories: {n}, rounds: {rounds}")
        print(f"PreToolUse  (Bash, snapshot taken): median {statistics.median(pre):.1f} ms")
        print(f"PostToolUse (Bash, snapshot diff):  median {statistics.median(post):.1f} ms")
        print(f"PreToolUse  (empty stdin, startup only): median {statistics.median(base):.1f} ms")


if __name__ == "__main__":
    main()
