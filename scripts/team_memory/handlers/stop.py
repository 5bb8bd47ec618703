"""Stop: ask Claude to save the turn's decisions (at most once per turn)."""
from __future__ import annotations

from ..capture.capture import on_stop as handle  # noqa: F401 - the event's handler
