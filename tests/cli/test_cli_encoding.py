"""Bytes that are not UTF-8, on stdin or in an argument (a Latin-1 terminal), are a clear error:
exit 1, one message, nothing written."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import helpers
from helpers import REPO


def run_bytes(project, *args: bytes | str, stdin: bytes = b""):
    argv = [sys.executable, str(REPO / "scripts" / "memory.py"), *args]
    return subprocess.run(argv, input=stdin, capture_output=True, cwd=project, timeout=60,
                          env=dict(os.environ, LANG="C.UTF-8"))


def files(memory_root):
    return sorted(str(p.relative_to(memory_root)) for p in memory_root.rglob("*.json") if ".cache" not in p.parts)


def test_non_utf8_stdin_to_save_add_and_import(project, memory_root):
    before = files(memory_root)
    latin1 = json.dumps({"category": "decision", "title": "Use the café queue",
                         "content": {"decision": "queue at the café", "rationale": "y"}}, ensure_ascii=False).encode("latin-1")
    for args in (("save", "--input", "-"), ("add", "--category", "decision", "--title", "Cafe", "-"), ("import", "-")):
        proc = run_bytes(project, *args, stdin=latin1 if args[0] != "add" else
                         json.dumps({"decision": "café", "rationale": "y"}, ensure_ascii=False).encode("latin-1"))
        err = proc.stderr.decode()
        assert proc.returncode == 1, (args, err)
        assert "not valid UTF-8" in err and "byte 0xe9" in err and "unexpected" not in err, (args, err)
    assert files(memory_root) == before


def test_non_utf8_text_arguments(project, memory_root):
    helpers.write(memory_root, helpers.record("decision", "use-redis", "Use Redis"))
    before = {p: p.read_bytes() for p in memory_root.rglob("*.json")}
    for args in (("add", "--category", "decision", "--title", b"Caf\xe9 queue", "--content-json", '{"decision": "x", "rationale": "y"}'),
                 ("retire", "use-redis", "--reason", b"moved to caf\xe9"),
                 ("update", "use-redis", "--title", b"Caf\xe9")):
        proc = run_bytes(project, *args)
        err = proc.stderr.decode()
        assert proc.returncode == 1, (args, err)
        assert "is not valid UTF-8 text" in err and "unexpected" not in err, (args, err)
        assert err.count("\n") == 1, err
    assert {p: p.read_bytes() for p in memory_root.rglob("*.json")} == before
