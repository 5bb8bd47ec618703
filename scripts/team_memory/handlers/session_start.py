"""SessionStart: the short orientation (what the store holds and how to save)."""
from __future__ import annotations

from ..capture.orientation import on_session_start


def handle(payload: dict):
    return on_session_start(payload)
