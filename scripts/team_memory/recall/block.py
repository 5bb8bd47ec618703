"""What the hooks show: the ``<memory-context>`` block, recall by file, and no repeats.

Recalled text is data: a note says so first (``DATA_NOTE``), every line is cleaned, secrets hidden, nothing can end
or forge the block; a clear winner's key content (``excerpt_line``) is neutralised only against ending the block, so
commands and code arrive as written. Recall by file (PostToolUse) shows at most ``MAX_LINES`` memories the file map
names (``derived.filemap.lookup``), each read first to be sure it is active and still names that file.

No repeats: a memory shown at prompt ``k`` is held back for ``k+1 .. k+N`` (``retrieval.dedupe_prompts``; state per
``(store, session_id)``); each memory shown by either hook gets a mark of its own (``state.claim``, ``O_EXCL``: of
two tool hooks at once, one shows it), so recall by file shows it once per session.
"""
from __future__ import annotations

import os

from ..base.config import (category_descriptions, category_enabled, category_folders, load_config, number_setting,
                           retrieval_enabled)
from ..base.model import category_from_display, display_name
from ..base.safefs import is_real_dir
from ..base.sanitize import block_line, block_text, clean_line, cut, neutralize_block
from ..base.state import claim, claimed, load_state, save_state
from ..records.hookio import DATA_NOTE
from ..records.store import NotARecord, decision_status, load_memory, project_root_of, record_status

DEFAULT_BUDGET = 4000
DEFAULT_EXCERPT = 240
CLEAR_RATIO = 1.5  # a clear winner scores at least this many times the runner-up
RUNBOOK_STEPS = 3
# category -> (label, content field) of a one-field key content
KEY_FIELDS = {"decision": ("decision", "decision"), "constraint": ("rule", "rule"), "preference": ("value", "value"),
              "tech_debt": ("debt", "description")}
DESCRIPTION_CHARS = 50  # each category description shown, for the categories that appear
RELATED_HEAD = "Possibly related (titles only):"
# What each kind holds when the configured description is longer than ``DESCRIPTION_CHARS`` (a cut one says less)
SHORT_DESCRIPTIONS = {
    "decision": "technical choices and their reasons",
    "constraint": "hard limits that cannot be changed",
    "preference": "the team's conventions and tool choices",
    "runbook": "steps that fix a known error or issue",
    "tech_debt": "shortcuts taken and work deferred",
    "session_summary": "what a session did and what comes next",
}


def described_categories(config: dict, lines: list) -> str:
    """One line describing the categories that appear in ``lines`` ("" when none has a description)."""
    from ..records.exposure import hide
    descs = dict(category_descriptions(config))  # each described once
    described = []
    for line in lines:
        cat = category_from_display(line[3:line.find("]")]) if line.startswith("- [") else None
        if cat in descs:
            text = block_text(hide(descs.pop(cat)), 500)
            text = text if len(text) <= DESCRIPTION_CHARS else SHORT_DESCRIPTIONS.get(cat, "")
            if text:
                described.append(f"{display_name(cat)} = {text}")
    return "Kinds: " + "; ".join(described) if described else ""


def _text(value) -> str:
    if isinstance(value, str):  # each string hidden on its own: an unclosed tag in one never eats the next
        from ..records.exposure import hide
        return hide(value)
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value if _text(v))
    return ""


def key_content(category: str, record: dict) -> tuple:
    """``(label, text)`` of a record's key content; ``("", "")`` when it has none."""
    content = record.get("content")
    if not isinstance(content, dict):
        return "", ""
    if category in KEY_FIELDS:
        label, field = KEY_FIELDS[category]
        return label, _text(content.get(field))
    if category == "runbook":
        steps = [_text(s) for s in content.get("steps", []) if isinstance(s, str) and s.strip()] \
            if isinstance(content.get("steps"), list) else []
        return "first steps", " ".join(f"{i}. {s.strip()}" for i, s in enumerate(steps[:RUNBOOK_STEPS], 1))
    if category == "session_summary":
        outcome, nxt = _text(content.get("outcome")), _text(content.get("next_actions"))
        return "session", "; ".join(([f"outcome {outcome}"] if outcome else []) + ([f"next: {nxt}"] if nxt else []))
    return "", ""


def excerpt_line(category: str, record: dict, limit: int) -> str:
    """The winner's indented excerpt line, or "" when there is nothing worth showing."""
    label, text = key_content(category, record)
    text = clean_line(text)
    if not text or limit <= 0:
        return ""
    from ..records.exposure import hide
    text = cut(clean_line(hide(text)), limit)
    return f"  {label}: {neutralize_block(text)}"


class Hit:
    """One ranked memory: its score, index entry, how the score was made and ``pos``, its place in the index."""

    __slots__ = ("score", "priority", "entry", "parts", "record", "checked", "pos")

    def __init__(self, score, priority, entry, parts, pos):
        self.score, self.priority, self.entry, self.parts, self.pos = score, priority, entry, parts, pos
        self.record, self.checked = None, False

    def sort_key(self):
        return (self.related(), -self.score, self.priority)

    def related(self) -> bool:
        """Shown by title only, after every clear hit (``Smart.shown``), whatever its recency bonus."""
        return self.parts.get("related", False) is True


def clear_winner(hits: list) -> bool:
    """True when there is one result, or the first scores ``CLEAR_RATIO`` times the second."""
    return bool(hits) and (len(hits) == 1 or hits[0].score >= CLEAR_RATIO * hits[1].score)


def format_block(hits: list, config: dict, budget: int = DEFAULT_BUDGET, excerpt_chars: int = 0,
                 marks: dict | None = None, note: str = DATA_NOTE) -> str:
    """The block in at most ``budget`` characters: the ``note``, the memory lines that fit (a clear winner's excerpt;
    ``marks``: entry path -> stale suffix), the related after ``RELATED_HEAD``, a line describing their categories."""
    head, tail = '<memory-context source=".claude/memory/">', "</memory-context>"
    lines = []
    used = len(head) + len(tail) + 2 + len(note) + 1
    clear = [hit for hit in hits if not hit.related()]
    winner = clear[0] if excerpt_chars > 0 and clear and clear[0].record is not None and clear_winner(clear) else None
    for hit in hits:
        line = block_line(hit.entry)  # its text through the exposure rule when the index was built (``reader``)
        status = None if hit.record is None else decision_status(hit.record)
        if status:  # a decision the team has not settled on, or no longer holds: say so
            line = f"{line} (decision {status})"
        if marks and hit.entry.get("path") in marks:  # one clean line, cut: nothing that could end the block
            from ..derived.drift import MAX_SUFFIX
            line = f"{line} {block_text(marks[hit.entry['path']], MAX_SUFFIX)}"
        new = ([RELATED_HEAD] if hit.related() and RELATED_HEAD not in lines else []) + [line]
        if used + sum(len(x) + 1 for x in new) > budget:
            continue
        used += sum(len(x) + 1 for x in new)
        lines += new
        if hit is winner:
            extra = excerpt_line(category_from_display(hit.entry["category"]) or "", hit.record, excerpt_chars)
            if extra and used + len(extra) + 1 <= budget:
                used += len(extra) + 1
                lines.append(extra)
    if not lines:
        return ""
    described = described_categories(config, lines)
    if described and used + len(described) + 1 <= budget:
        lines.append(described)
    return "\n".join([head, note, *lines, tail]) + "\n"


def sizes(config: dict) -> tuple:
    """``(budget, excerpt_chars)``: how long the block and the winner's excerpt may be."""
    return (number_setting(config, "retrieval", "max_output_chars", DEFAULT_BUDGET, 500, 9000),
            number_setting(config, "retrieval", "excerpt_chars", DEFAULT_EXCERPT, 0, 1000))


# -- recall by file, and no repeats
KIND = "recall"
SEEN_KIND = "seen"  # one mark per memory shown in the session, by either hook
FILE_KIND = "seen-file"  # one mark per file whose memories the file hook showed in the session
DEFAULT_PROMPTS = 3
MAX_LINES = 3
MAX_CHARS = 1000
MAX_CHECKED = 12  # memory files read to confirm what the map says


def recall_found(session: str, memory_root: str, found: list):
    """The PostToolUse output for ``found`` (``derived.filemap.lookup``: ``[(file, memory path)]``), or None."""
    done = {rel for rel, _ in found if claimed(memory_root, FILE_KIND, session, rel)}  # its memories shown
    found = [(rel, memory) for rel, memory in found
             if rel not in done and not claimed(memory_root, SEEN_KIND, session, memory)]
    if not found:
        return None  # all shown already: nothing more is read
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
    from ..derived.index import entry_from_record
    from ..records.exposure import name_is_shown
    from ..records.relpaths import matches, usable
    prefix = os.path.relpath(memory_root, project_root_of(memory_root)).replace(os.sep, "/") + "/"
    if not memory.startswith(prefix):
        return None
    folder, _, name = memory[len(prefix):].partition("/")
    category = {f: c for c, f in category_folders(config).items()}.get(folder)
    if category is None or not category_enabled(config, category) or "/" in name or not name.endswith(".json") \
            or not name_is_shown(name) or name.startswith(".") or not is_real_dir(os.path.join(memory_root, folder)):
        return None
    path = os.path.join(memory_root, folder, name)
    try:
        record = load_memory(path)
    except (OSError, NotARecord):
        return None
    if record_status(record) != "active" or not any(matches(e, rel) for e in usable(record.get("related_files"))):
        return None
    entry = entry_from_record(memory_root, category, path, record)
    return (entry, record) if entry["title"] else None


def file_block(entries: list, config: dict, files: list, marks: dict | None = None) -> str:
    """The block for ``entries`` (index entries): a note naming ``files``, a line each as the prompt hook prints it."""
    hits = [Hit(0.0, 0, entry, {}, 0) for entry in entries[:MAX_LINES]]
    named = ", ".join(block_text(f, 120) for f in files[:2]) + (", ..." if len(files) > 2 else "")
    note = f"{DATA_NOTE} These memories name {named} (related files), which the last tool call touched."
    return format_block(hits, config, MAX_CHARS, 0, marks, note)


def window(config: dict) -> int:
    return number_setting(config, "retrieval", "dedupe_prompts", DEFAULT_PROMPTS, 0, 1000)


def _history(memory_root: str, session_id: str) -> tuple:
    """``(prompts so far, {index path: prompt number})`` of the session's state, loosely read."""
    data = load_state(memory_root, KIND, session_id)
    prompt, shown = data.get("prompt"), data.get("shown")
    return (prompt if isinstance(prompt, int) and not isinstance(prompt, bool) else 0,
            shown if isinstance(shown, dict) else {})


class Recall:
    """One session's recall history for one prompt: what to hold back, and what to remember."""

    def __init__(self, memory_root: str, session_id: str, n: int):
        self.memory_root, self.session_id = memory_root, session_id
        prompt, shown = _history(memory_root, session_id)
        self.prompt = prompt + 1
        self.shown = {p: k for p, k in shown.items() if isinstance(k, int) and self.prompt - k <= n}  # still held

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
