"""Stop: ask Claude to save the turn's decisions (at most once per turn)."""
from __future__ import annotations

from ..capture.capture import on_stop


def handle(payload: dict):
    return on_stop(payload)
