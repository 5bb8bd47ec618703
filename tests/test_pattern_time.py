"""Every regular expression the package holds runs in linear time (or on its documented slice): each is timed
on adversarial strings of 10-30 KB built from its own pieces (``pattern_inventory.py``), in a child process
read with a deadline, so a pattern that never ends is named instead of hanging the suite."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pattern_inventory
from helpers import REPO

SIZE = 30_000
BOUND = 2.0  # seconds for one pattern on one string; a linear one takes milliseconds, the old cubic one hours


def test_the_inventory_knows_every_pattern_call():
    found = pattern_inventory.patterns()  # raises on a call it cannot resolve
    texts = {p for _, p, _ in found}
    assert len(found) > 250 and {p for p, _ in pattern_inventory.cue_patterns()} <= texts
    assert any("(?P<key>" in p for p in texts) and any("private" in p for p in texts)


def test_the_adversarial_strings_are_built_from_the_pattern():
    texts = dict(pattern_inventory.adversarial(r"\b(password|token)(?:[_\-][A-Za-z0-9]+)*\s*=", 0, 10_000))
    assert texts["'password'-"].startswith("password-password-") and len(texts["'password'-"]) == 10_000
    assert "near miss" in texts and "spaces" in texts


def _read_lines(stream, out: list) -> None:
    for line in stream:
        out.append((time.monotonic(), json.loads(line)))


def test_every_pattern_is_fast_on_adversarial_text():
    child = subprocess.Popen([sys.executable, str(REPO / "tests" / "pattern_inventory.py"), str(SIZE)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(REPO))
    lines: list = []
    reader = threading.Thread(target=_read_lines, args=(child.stdout, lines), daemon=True)
    reader.start()
    slow, started = [], time.monotonic()
    try:
        while reader.is_alive():
            reader.join(0.2)
            last_at, last = lines[-1] if lines else (started, {})
            if "start" in last and time.monotonic() - last_at > BOUND * 3:
                raise AssertionError(f"{last['start']} still running after {BOUND * 3:.0f} s on {last['text']}: "
                                     f"{last['pattern']}")
    finally:
        child.kill()
        child.wait()
    assert child.returncode in (0, -9), child.stderr.read()[-2000:]
    for (_, before), (_, after) in zip(lines[::2], lines[1::2]):
        if after["seconds"] > BOUND:
            slow.append(f"{before['start']} {after['seconds']:.1f} s on {before['text']}: {before['pattern']}")
    assert len(lines) > 5000 and len(lines) % 2 == 0
    assert not slow, "\n".join(slow)
