"""No repeats: a memory shown in a session is not shown again for the next few prompts.

State per ``(store, session_id)`` lives outside the repository (``state``):
``{"prompt": <how many prompts this session has had>, "shown": {"<index path>": <prompt number>}}``.
A memory shown at prompt ``k`` is held back for prompts ``k+1 .. k+N``
(``retrieval.dedupe_prompts``, N; 0 turns this off). Only the hook uses it:
``search`` and ``eval`` rank without it.
"""
from __future__ import annotations

from ..base.config import int_setting
from ..base.state import load_state, save_state

KIND = "recall"
DEFAULT_PROMPTS = 3
MAX_SESSION_ID = 200


def window(config: dict) -> int:
    return int_setting(config, "retrieval", "dedupe_prompts", DEFAULT_PROMPTS, 0, 1000)


def session_of(payload: dict) -> str:
    """The payload's ``session_id`` if it is a usable string, else ""."""
    sid = payload.get("session_id")
    return sid if isinstance(sid, str) and 0 < len(sid) <= MAX_SESSION_ID else ""


class Recall:
    """One session's recall history for one prompt: what to hold back, and what to remember."""

    def __init__(self, memory_root: str, session_id: str, n: int):
        self.memory_root, self.session_id, self.n = memory_root, session_id, n
        data = load_state(memory_root, KIND, session_id)
        prompt = data.get("prompt")
        shown = data.get("shown")
        self.prompt = (prompt if isinstance(prompt, int) and not isinstance(prompt, bool) else 0) + 1
        shown = shown if isinstance(shown, dict) else {}
        # keep only what still holds something back
        self.shown = {p: k for p, k in shown.items() if isinstance(k, int) and self.prompt - k <= n}

    def held_back(self) -> set:
        return set(self.shown)

    def save(self, paths) -> None:
        for path in paths:
            self.shown[path] = self.prompt
        save_state(self.memory_root, KIND, self.session_id, {"prompt": self.prompt, "shown": self.shown})
