"""PostToolUse: the store guard's report on what the call changed, and recall by the files it named; each part
fails open on its own. Recall by file reads ``file_path``/``notebook_path`` of the file tools, and for Bash the
operands of a simple line of file readers (``READERS``, read with ``toolgate``'s word reader).
"""
from __future__ import annotations

from ..records.hookio import ToolCall, project_dir_of, report_skip, session_of, tool_calls

EVENT = "PostToolUse"
GUARDED = ("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "PowerShell")  # toolgate.WRITE_TOOLS and the shells
FILE_TOOLS = ("Read", "Write", "Edit", "MultiEdit", "NotebookEdit")
PATH_KEYS = ("file_path", "notebook_path")
# Programs whose operands are files they read; the value: options that take the next word as their value.
READERS = dict.fromkeys(("cat", "less", "more", "nl", "bat", "wc"), ())
READERS.update(head=("-n", "-c"), tail=("-n", "-c"), sed=("-e", "-f", "-l"),
               pytest=("-k", "-m", "-p", "-c", "-o", "--rootdir", "--deselect", "--ignore"))


def handle(payload: dict):
    """The merged output of the guard and recall by file (for each file a Codex patch names), or None."""
    texts = []
    for call, part in ((call, part) for call in tool_calls(ToolCall(payload)) for part in (_guard, _recall)):
        try:
            result = part(call)
        except Exception as exc:  # noqa: BLE001 - one part failing must not silence the other
            report_skip(EVENT, exc)
            continue
        specific = result.get("hookSpecificOutput") if isinstance(result, dict) else None
        text = specific.get("additionalContext") if isinstance(specific, dict) else None
        if isinstance(text, str) and text:
            texts.append(text)
    return {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": "\n\n".join(texts)}} if texts else None


def _guard(payload: dict):
    if payload.get("tool_name") not in GUARDED:
        return None  # Read writes nothing (and imports no guard)
    from ..guards.toolgate import outside_store
    if outside_store(payload):
        return None
    from ..guards.posttool import check_tool_result
    return check_tool_result(payload)


def _recall(payload: dict):
    session = session_of(payload)
    paths = touched_paths(payload) if session else []  # without a session nothing could be shown only once
    if not paths:
        return None
    from ..derived.filemap import lookup
    hit = lookup(project_dir_of(payload), paths)
    if hit is None:
        return None  # the common case: no memory names these files (recall is not even imported)
    from ..recall.block import recall_found
    return recall_found(session, *hit)


def touched_paths(payload: dict) -> list:
    """The files this tool call named, as it named them (relative to ``cwd`` or absolute)."""
    tool, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return []
    if tool in FILE_TOOLS:
        return [v for v in (tool_input.get(k) for k in PATH_KEYS) if isinstance(v, str) and v]
    command = tool_input.get("command") if tool == "Bash" else None
    if not isinstance(command, str):
        return []
    from ..guards.toolgate import MAX_COMMAND, simple_commands
    commands = simple_commands(command) if len(command) <= MAX_COMMAND else None
    paths = []
    for words in commands or ():
        if words[0] == "cd":
            break  # later relative paths are not relative to cwd any more
        paths.extend(_operands(words))
    return paths


def _operands(words: list) -> list:
    """The file operands of one simple command of ``READERS`` (``python -m pytest`` counts as pytest)."""
    name, args = words[0].rsplit("/", 1)[-1], words[1:]
    if name in ("python", "python3") and args[:2] == ["-m", "pytest"]:
        name, args = "pytest", args[2:]
    if name not in READERS:
        return []
    takes_value, out, skip, script = READERS[name], [], False, name == "sed"
    for word in args:
        if skip:
            skip = False
        elif word == "--":
            continue
        elif word.startswith("-"):
            skip = word in takes_value
            script = script and not word.startswith(("-e", "-f", "--expression", "--file"))  # the script is an option's
        elif script:
            script = False  # sed's first operand is its script
        elif word:
            out.append(word.split("::", 1)[0] if name == "pytest" else word)
    return out
