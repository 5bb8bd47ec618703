"""The CI-size stress run (benchmarks/bench.py stress --quick): concurrency, kill -9, hostile input, privacy,
git-delivered content. Marked ``slow``: run by ``.ci/run`` and ``TEAM_MEMORY_SLOW=1 python3 -m pytest -q``."""
from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import REPO


@pytest.mark.slow
def test_stress_quick_passes():
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench.py"), "stress", "--quick"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    for section in ("concurrency", "crashes", "hostile", "privacy", "git"):
        assert f"{section}: PASS" in proc.stdout
    assert "VIOLATION" not in proc.stdout and "stress: PASS" in proc.stdout
