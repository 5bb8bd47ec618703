"""Recall by file, and no repeats: what each hook shows once, or not again for a few prompts.

The PostToolUse hook looks the paths up in the file map (``derived.filemap.lookup``); ``recall_found``
reads each memory named to be sure it is active and still names that file, and shows at most
``MAX_LINES`` of them in ``MAX_CHARS``, each once per session.

State per ``(store, session_id)`` (``state``): ``{"prompt": n, "shown": {"<index path>": prompt number}}``;
a memory shown at prompt ``k`` is held back for ``k+1 .. k+N`` (``retrieval.dedupe_prompts``). Each memory
shown by either hook gets a mark of its own (``state.claim``, ``O_EXCL``: of two tool hooks at once, one
shows it); recall by file shows a memory once per session, and marks the files it answered for.
"""
from __future__ import annotations

import os

from ..base.state import claim, claimed, load_state, save_state

KIND = "recall"
SEEN_KIND = "seen"  # one mark per memory shown in the session, by either hook
FILE_KIND = "seen-file"  # one mark per file whose memories the file hook showed in the session
DEFAULT_PROMPTS = 3
MAX_LINES = 3
MAX_CHARS = 1000
MAX_CHECKED = 12  # memory files read to confirm what the map says


class _Hit:
    """What ``block.format_block`` reads of a hit: its entry, record and parts."""

    def __init__(self, entry: dict):
        self.entry, self.record, self.parts = entry, None, {}


def recall_found(session: str, memory_root: str, found: list):
    """The PostToolUse output for ``found`` (``derived.filemap.lookup``: ``[(file, memory path)]``), or None."""
    done = {rel for rel, _ in found if claimed(memory_root, FILE_KIND, session, rel)}  # its memories shown
    found = [(rel, memory) for rel, memory in found
             if rel not in done and not claimed(memory_root, SEEN_KIND, session, memory)]
    if not found:
        return None  # all shown already: nothing more is read
    from ..base.config import load_config, retrieval_enabled
    config = load_config(memory_root)
    if not retrieval_enabled(config):
        return None
    hits, files = [], []
    for rel, memory in found[:MAX_CHECKED]:
        if len(hits) == MAX_LINES:
            break
        got = _confirmed(memory_root, config, memory, rel)
        try:
            if got is None or not claim(memory_root, SEEN_KIND, session, memory):  # another hook showed it
                continue
        except OSError:  # no state can be kept: showing it anyway would repeat it at every call
            continue
        hits.append(got)
        if rel not in files:
            files.append(rel)
    if not hits:
        return None
    try:
        for rel in files:
            claim(memory_root, FILE_KIND, session, rel)
        note_shown(memory_root, session, [entry["path"] for entry, _ in hits])
    except OSError:
        pass  # the prompt hook's window is a nicety; the mark above already keeps this hook from repeating
    from ..derived.drift import marks_for  # a stale memory says so, as in the prompt hook's block
    marks = marks_for(memory_root, [(entry["path"], record) for entry, record in hits])
    block = file_block([entry for entry, _ in hits], config, files, marks)
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": block}} if block else None


def _confirmed(memory_root: str, config: dict, memory: str, rel: str):
    """``(index entry, record)`` of the memory at ``memory`` if it is active and still names ``rel`` (the map may
    be forged: only a file of a category folder of this store, never a link)."""
    from ..base.config import category_enabled, category_folders
    from ..base.safefs import is_real_dir, read_regular
    from ..derived.index import entry_from_record
    from ..records.exposure import name_is_shown
    from ..records.relpaths import matches, usable
    from ..records.store import MAX_MEMORY_BYTES, NotARecord, parse_memory, project_root_of, record_status
    prefix = os.path.relpath(memory_root, project_root_of(memory_root)).replace(os.sep, "/") + "/"
    if not memory.startswith(prefix):
        return None
    folder, _, name = memory[len(prefix):].partition("/")
    category = {f: c for c, f in category_folders(config).items()}.get(folder)
    if category is None or not category_enabled(config, category) or "/" in name or not name.endswith(".json") \
            or not name_is_shown(name) or name.startswith("."):
        return None
    folder_path = os.path.join(memory_root, folder)
    if not is_real_dir(folder_path):
        return None
    path = os.path.join(folder_path, name)
    try:
        record = parse_memory(read_regular(path, MAX_MEMORY_BYTES)[0])
    except (OSError, NotARecord):
        return None
    if record_status(record) != "active" or not any(matches(e, rel) for e in usable(record.get("related_files"))):
        return None
    entry = entry_from_record(memory_root, category, path, record)
    return (entry, record) if entry["title"] else None


def file_block(entries: list, config: dict, files: list, marks: dict | None = None) -> str:
    """The block for ``entries`` (index entries): a note naming ``files``, a line each as the prompt hook prints it."""
    from ..base.sanitize import block_text
    from ..records.hookio import DATA_NOTE
    from .block import format_block
    hits = [_Hit(entry) for entry in entries[:MAX_LINES]]
    named = ", ".join(block_text(f, 120) for f in files[:2]) + (", ..." if len(files) > 2 else "")
    note = f"{DATA_NOTE} These memories name {named} (related files), which the last tool call touched."
    return format_block(hits, config, MAX_CHARS, 0, marks, note)


def window(config: dict) -> int:
    from ..base.config import int_setting
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
