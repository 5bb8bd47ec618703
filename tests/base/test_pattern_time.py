"""Every regular expression the package holds runs in linear time (or on its documented slice): each is timed
on adversarial strings of 10-30 KB built from its own pieces (``pattern_inventory.py``), in a child process
read with a deadline, so a pattern that never ends is named instead of hanging the suite."""
from __future__ import annotations

import pytest

import pattern_inventory

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


@pytest.mark.slow  # 2,500+ timed runs (~7 s): .ci/run and TEAM_MEMORY_SLOW=1 run it; the inventory test above stays fast
def test_every_pattern_is_fast_on_adversarial_text():
    runs, slow = pattern_inventory.run_child([SIZE], BOUND)
    assert len(runs) > 2500
    assert not slow, "\n".join(slow)
