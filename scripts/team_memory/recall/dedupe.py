"""No repeats: a memory shown in a session is not shown again for the next few prompts.

State per ``(store, session_id)`` (``state``): ``{"prompt": n, "shown": {"<index path>": prompt number}}``;
a memory shown at prompt ``k`` is held back for ``k+1 .. k+N`` (``retrieval.dedupe_prompts``). Each memory
shown by either hook gets a mark of its own (``state.claim``, ``O_EXCL``: of two tool hooks at once, one
shows it); recall by file shows a memory once per session, and marks the files it answered for.
"""
from __future__ import annotations

from ..base.config import int_setting
from ..base.state import claim, load_state, save_state

KIND = "recall"
SEEN_KIND = "seen"  # one mark per memory shown in the session, by either hook
FILE_KIND = "seen-file"  # one mark per file whose memories the file hook showed in the session
DEFAULT_PROMPTS = 3


def window(config: dict) -> int:
    return int_setting(config, "retrieval", "dedupe_prompts", DEFAULT_PROMPTS, 0, 1000)


def _history(memory_root: str, session_id: str) -> tuple:
    """``(prompts so far, {index path: prompt number})`` of the session's state, loosely read."""
    data = load_state(memory_root, KIND, session_id)
    prompt, shown = data.get("prompt"), data.get("shown")
    return (prompt if isinstance(prompt, int) and not isinstance(prompt, bool) else 0,
            shown if isinstance(shown, dict) else {})


class Recall:
    """One session's recall history for one prompt: what to hold back, and what to remember."""

    def __init__(self, memory_root: str, session_id: str, n: int):
        self.memory_root, self.session_id, self.n = memory_root, session_id, n
        prompt, shown = _history(memory_root, session_id)
        self.prompt = prompt + 1
        # keep only what still holds something back
        self.shown = {p: k for p, k in shown.items() if isinstance(k, int) and self.prompt - k <= n}

    def save(self, paths) -> None:
        for path in paths:
            self.shown[path] = self.prompt
            claim(self.memory_root, SEEN_KIND, self.session_id, path)  # the file hook skips it from now on
        save_state(self.memory_root, KIND, self.session_id, {"prompt": self.prompt, "shown": self.shown})


def note_shown(memory_root: str, session_id: str, paths) -> None:
    """Enter ``paths`` (shown by the file hook) in ``shown`` at the session's current prompt."""
    prompt, shown = _history(memory_root, session_id)
    shown.update(dict.fromkeys(paths, prompt))
    save_state(memory_root, KIND, session_id, {"prompt": prompt, "shown": shown})
