"""``memory.py mcp``: the memory as an MCP server over stdio (newline-delimited JSON-RPC 2.0), for agents without
our hooks (Cursor, VS Code). Each tool runs the CLI command a teammate would type, in this process, so it ranks,
validates and writes exactly as the CLI does; every answer is at most ``MAX_TEXT`` characters and passes the
exposure rule. A line that is not JSON-RPC is answered with an error and the server reads on."""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys

PROTOCOL_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")
MAX_LINE = 1024 * 1024
MAX_TEXT = 16_000
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602

TOOLS = [
    {"name": "search", "description": "Search the team's memories (decisions, constraints, runbooks, preferences) "
                                      "for a question or task, ranked as they are recalled before each prompt.",
     "inputSchema": {"type": "object", "properties": {
         "query": {"type": "string", "description": "the question or task, in a sentence (10 characters or more)"},
         "limit": {"type": "integer", "minimum": 1, "maximum": 20}}, "required": ["query"]}},
    {"name": "show", "description": "Show one memory in full, by its id (as search lists it).",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
    {"name": "file_memories", "description": "The memories tied to a file of the repository (their related_files).",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "repository-relative"}},
                     "required": ["path"]}},
    {"name": "save", "description": "Save a new team memory: the whole record as a JSON object with category "
                                    "(decision, constraint, preference, runbook, tech_debt, session_summary), title, "
                                    "tags and content (run `memory.py save --help` for each category's fields). "
                                    "Search first: update an existing memory rather than duplicate it.",
     "inputSchema": {"type": "object", "properties": {"record": {"type": "object"}}, "required": ["record"]}},
]


class ToolError(Exception):
    """A bad call (unknown tool, missing argument): answered as a JSON-RPC error."""


def _cli(root: str, *argv: str) -> tuple:
    """``(exit code, output)`` of one CLI command run here, its output captured."""
    from .main import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--root", root])
    return code, out.getvalue() + err.getvalue()


def _string(args: dict, key: str, limit: int = 4000) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > limit or "\x00" in value:
        raise ToolError(f"'{key}' must be a non-empty string of at most {limit} characters")
    return value


def _file_memories(root: str, path: str) -> tuple:
    from ..derived.filemap import lookup
    from ..records.exposure import shown_name, shown_text
    from ..records.store import load_memory, project_root_of
    hit = lookup(project_root_of(root), [path])
    lines = []
    for rel, memory_path in hit[1] if hit else ():
        try:
            record = load_memory(memory_path)
        except Exception:  # noqa: BLE001 - a broken file is left out, as recall leaves it out
            continue
        lines.append(f"- [{shown_text(record.get('category', '?')).upper()}] {shown_text(record.get('title', '?'))} "
                     f"(id {shown_name(os.path.basename(memory_path)[:-5])}; names {shown_text(rel)})")
    return 0, "\n".join(lines) or f"no memory names {shown_text(path)}"


def call_tool(root: str, name, args) -> dict:
    """The MCP result of one ``tools/call``; ``ToolError`` for a call that cannot be made."""
    if not isinstance(args, dict):
        raise ToolError("arguments must be an object")
    if name == "search":
        limit = args.get("limit", 5)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 20:
            raise ToolError("'limit' must be an integer from 1 to 20")
        code, text = _cli(root, "search", _string(args, "query"), "--limit", str(limit))
    elif name == "show":
        code, text = _cli(root, "show", _string(args, "id", 200))
    elif name == "file_memories":
        code, text = _file_memories(root, _string(args, "path"))
    elif name == "save":
        if not isinstance(args.get("record"), dict):
            raise ToolError("'record' must be a JSON object (the whole memory record)")
        code, text = _cli(root, "save", "--record", json.dumps(args["record"], ensure_ascii=False))
    else:
        raise ToolError(f"unknown tool {str(name)[:100]!r}; the tools: {', '.join(t['name'] for t in TOOLS)}")
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + "\n[... cut: ask for less]"
    return {"content": [{"type": "text", "text": text}], "isError": code != 0}


def answer(root: str, message) -> dict | None:
    """The JSON-RPC response to one message; None for a notification."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return _error(message.get("id") if isinstance(message, dict) else None, INVALID_REQUEST, "not a JSON-RPC 2.0 request")
    method, mid, params = message["method"], message.get("id"), message.get("params") or {}
    if "id" not in message:
        return None  # notifications (initialized, cancelled): nothing to answer
    if method == "initialize":
        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        from .. import __version__
        return _result(mid, {"protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                             "capabilities": {"tools": {}},
                             "serverInfo": {"name": "team-memory", "version": __version__},
                             "instructions": "The team's memory for this repository: search it before deciding how "
                                             "to do something, save what a teammate would need later."})
    if method in ("ping", "tools/list"):
        return _result(mid, {"tools": TOOLS} if method == "tools/list" else {})
    if method == "tools/call":
        if not isinstance(params, dict):
            return _error(mid, INVALID_PARAMS, "params must be an object")
        try:
            return _result(mid, call_tool(root, params.get("name"), params.get("arguments") or {}))
        except ToolError as exc:
            return _error(mid, INVALID_PARAMS, str(exc))
    return _error(mid, METHOD_NOT_FOUND, f"method not found: {method[:100]}")


def _result(mid, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": mid, "result": result}


def _error(mid, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": mid if isinstance(mid, (str, int)) and not isinstance(mid, bool) else None,
            "error": {"code": code, "message": message}}


def serve(root: str) -> int:
    """Answer messages from stdin (bytes, one per line) until it ends; 0."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for line in iter(lambda: stdin.readline(MAX_LINE + 1), b""):
        if len(line) > MAX_LINE:
            while line and not line.endswith(b"\n"):  # the rest of an over-long line is skipped
                line = stdin.readline(MAX_LINE)
            reply = _error(None, INVALID_REQUEST, f"message longer than {MAX_LINE} bytes")
        elif not line.strip():
            continue
        else:
            try:
                message = json.loads(line.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                reply = _error(None, PARSE_ERROR, "not JSON")
            else:
                try:
                    reply = answer(root, message)
                except Exception as exc:  # noqa: BLE001 - one bad call must not end the session
                    reply = _error(message.get("id") if isinstance(message, dict) else None, -32603,
                                   f"internal error: {exc.__class__.__name__}")
        if reply is not None:
            stdout.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
            stdout.flush()
    return 0
