"""SessionStart: the short orientation (what the store holds and how to save)."""
from __future__ import annotations

from ..capture.orientation import on_session_start as handle  # noqa: F401 - the event's handler
