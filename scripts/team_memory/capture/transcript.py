"""A tolerant reader of Claude Code's transcript (JSONL) and of Codex's rollout file (``rollout_turns``).

``read_transcript`` returns the ``Turn``s appended since an offset and where to resume: a line still being written is
read next time, a file that shrank is read again from the start, anything else skipped.
"""
from __future__ import annotations

import os
from collections import namedtuple

from ..base import fastjson  # not ``json``: start-up speed (``json`` imports ``re``)

MAX_READ_BYTES = 2 * 1024 * 1024
MAX_TEXT_CHARS = 20_000  # per block: one pasted log must not dominate the stretch
# The tools that change a file, and the input key that names it (Claude Code's tool_use inputs).
EDIT_TOOLS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
MAX_PATH_CHARS = 4096


# One piece of the conversation: ``role`` is user, assistant or tool_result; ``tools`` and ``files`` are tuples.
Turn = namedtuple("Turn", "role text tools files", defaults=("", (), ()))


Stretch = namedtuple("Stretch", "turns end skipped")  # what one read found; ``skipped``: bytes were left unread


# Codex CLI 0.171.0's rollout (``response_item`` lines): its shell is ``Bash``, an ``apply_patch`` file an ``Edit``.
CODEX_SHELL = "exec_command"
CODEX_CONTEXT = ("<environment_context>", "# AGENTS.md instructions", "<user_instructions>")  # Codex's own user items


def rollout_turns(item) -> list:
    """The turns of a rollout ``response_item`` payload; [] when it is not conversation."""
    if not isinstance(item, dict):
        return []
    kind, name = item.get("type"), item.get("name")
    if kind == "message" and item.get("role") in ("user", "assistant"):
        texts = [b["text"] for b in item.get("content") or () if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if item["role"] == "user" and any(t.lstrip().startswith(CODEX_CONTEXT) for t in texts):
            return []
        text = "\n".join(t for t in (t[:MAX_TEXT_CHARS] for t in texts) if t.strip())
        return [Turn(item["role"], text)] if text else []
    if kind == "function_call" and name == CODEX_SHELL and isinstance(item.get("arguments"), str):
        return [Turn("assistant", tools=("Bash",))]
    if kind in ("function_call", "custom_tool_call") and isinstance(name, str):
        from ..records.hookio import PATCH_TOOL, patch_files
        patch = item.get("input") if name == PATCH_TOOL else None
        paths = patch_files(patch[:MAX_TEXT_CHARS * 10]) if isinstance(patch, str) else []
        call = item.get("call_id") if isinstance(item.get("call_id"), str) else ""
        files = [(call, path) for path in paths if isinstance(path, str) and 0 < len(path) <= MAX_PATH_CHARS]
        return [Turn("assistant", tools=("Edit",) * len(paths) or (name or "tool",), files=tuple(files))]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        return [Turn("tool_result", output[:MAX_TEXT_CHARS] if isinstance(output, str) else "")]
    return []


def turns_of_line(obj) -> list:
    """The turns of one parsed transcript line; [] for anything that is not a conversation message."""
    if isinstance(obj, dict) and obj.get("type") == "response_item":
        return rollout_turns(obj.get("payload"))
    message = obj.get("message") if isinstance(obj, dict) else None
    if (not isinstance(message, dict) or obj.get("isMeta") is True or obj.get("isSidechain") is True
            or obj.get("type") not in ("user", "assistant")):
        return []
    role = message.get("role") if message.get("role") in ("user", "assistant") else obj["type"]
    content = message.get("content")
    if isinstance(content, str):
        return [Turn(role, content[:MAX_TEXT_CHARS])] if content.strip() else []
    if not isinstance(content, list):
        return []
    turns, texts, tools, files = [], [], [], []
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"][:MAX_TEXT_CHARS])
        elif btype == "tool_use":
            name = block.get("name")
            tools.append(name if isinstance(name, str) and name else "tool")
            key = EDIT_TOOLS.get(name) if isinstance(name, str) else None
            tool_input = block.get("input") if key else None
            path = tool_input.get(key) if isinstance(tool_input, dict) else None
            if isinstance(path, str) and 0 < len(path) <= MAX_PATH_CHARS:
                files.append((block.get("id") if isinstance(block.get("id"), str) else "", path))
        elif btype == "tool_result":  # its text: a string, or the text blocks and strings of a list
            failed = block.get("is_error") is True and isinstance(block.get("tool_use_id"), str)
            result = block.get("content")
            result = [result] if isinstance(result, str) else result if isinstance(result, list) else []
            result = [b.get("text") if isinstance(b, dict) and b.get("type") == "text" else b for b in result]
            turns.append(Turn("tool_result", "\n".join(t[:MAX_TEXT_CHARS] for t in result if isinstance(t, str)),
                              files=((block["tool_use_id"], None),) if failed else ()))
    text = "\n".join(t for t in texts if t.strip())
    if text or tools:
        turns.insert(0, Turn(role, text, tuple(tools), tuple(files) if role == "assistant" else ()))
    return turns


def parse_lines(data: bytes) -> list:
    """Turns from complete JSONL lines; corrupt lines are skipped."""
    turns = []
    for raw in filter(None, (raw.strip() for raw in data.split(b"\n"))):
        try:
            turns.extend(turns_of_line(fastjson.loads(raw.decode("utf-8", errors="replace"))))
        except (ValueError, RecursionError):
            continue
    return turns


def read_transcript(path: str, offset: int = 0, max_bytes: int = MAX_READ_BYTES) -> Stretch:
    """The turns appended to ``path`` since ``offset``; ``OSError`` (``UnsafePath``: not a regular file)."""
    from ..base.safefs import open_regular
    fd, st = open_regular(path)
    with os.fdopen(fd, "rb") as f:
        size = st.st_size
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0 or offset > size:
            offset = 0
        start = max(offset, size - max(1, max_bytes))
        f.seek(start)
        data = f.read(size - start)
    skipped = start > offset
    if skipped:  # we landed mid-line: drop the partial first line
        cut = data.find(b"\n")
        if cut < 0:
            return Stretch([], offset, True)
        start, data = start + cut + 1, data[cut + 1:]
    last_nl = data.rfind(b"\n")  # (-1: no complete line)
    complete, rest = data[:last_nl + 1], data[last_nl + 1:]
    end = start + len(complete)
    if rest.strip():
        try:  # a final line without its newline counts only if it is already whole
            fastjson.loads(rest.decode("utf-8", errors="replace"))
            complete, end = data, start + len(data)
        except (ValueError, RecursionError):
            pass
    return Stretch(parse_lines(complete), end, skipped)
