"""A scripted fake model for real Claude Code runs that take several tool calls.

Every real-client test runs through ``run_scripted`` (``e2e_support.run_claude`` plays one tool call and a
reply with ``Script``). The save loop needs more: the model must read the Stop hook's reason and do what it says (write a record file, run ``similar``, run
``save``). ``run_scripted(project, prompt, plugin, model)`` starts a fake Messages API in this process
(127.0.0.1, a thread), runs ``claude -p`` against it with full isolation (a fresh
config folder and temp folder, a dummy key, no network traffic besides the fake API), and returns an
``e2e_support.E2EResult``.

The model is any object with ``next_blocks(body) -> list`` (the content blocks of the next assistant
turn); ``Script`` plays a fixed list of tool calls and then a reply, and ``StopFollower`` (in
``e2e_follow.py``) also reads the Stop hook's reason and turns its instructions into tool calls.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import e2e_support as e2e


def tool_use(name: str, tool_input: dict) -> dict:
    return {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name, "input": tool_input}


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def last_user_texts(body: dict) -> list:
    """Texts (text blocks and tool results) of the messages after the model's last turn.

    Claude Code 2.1.330 sends hook feedback, such as a Stop hook's reason, as a ``system`` role message.
    """
    messages = body.get("messages") or []
    tail = []
    for message in reversed(messages):
        if message.get("role") == "assistant":
            break
        tail.insert(0, message)
    return e2e.E2EResult(0, "", 0.0, [{"messages": tail}]).texts()


class Script:
    """Plays ``calls`` (one tool call per turn) whenever the tools are offered, then ``reply``."""

    def __init__(self, calls=(), reply: str = "Done."):
        self.calls = list(calls)
        self.reply = reply

    def next_blocks(self, body: dict) -> list:
        if self.calls and body.get("tools"):
            name, tool_input = self.calls.pop(0)
            return [text(f"Calling {name}."), tool_use(name, tool_input)]
        return [text(self.reply)]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _body(self):
        size = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(size) if size else b""
        try:
            return json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            return None

    def _json(self, payload: dict):
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._json({})

    def do_POST(self):
        body = self._body()
        path = self.path.split("?", 1)[0]
        if path.endswith("/v1/messages/count_tokens"):
            return self._json({"input_tokens": len(json.dumps(body or {})) // 4})
        if not path.endswith("/v1/messages") or not isinstance(body, dict):
            return self._json({})
        with self.server.lock:
            self.server.requests.append(body)
            try:
                blocks = self.server.model.next_blocks(body)
            except Exception as exc:  # a bug in a test's model must show, not hang the run
                self.server.errors.append(repr(exc))
                blocks = [text(f"fake model error: {exc!r}")]
        stop = "tool_use" if blocks[-1]["type"] == "tool_use" else "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5}
        message = {"id": "msg_" + uuid.uuid4().hex[:16], "type": "message", "role": "assistant",
                   "model": body.get("model", "fake"), "content": blocks, "stop_reason": stop,
                   "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self._json(message)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        events = [("message_start", {"type": "message_start", "message": dict(message, content=[], stop_reason=None)})]
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "text", "text": ""}}))
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": dict(block, input={})}))
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 5}}))
        events.append(("message_stop", {"type": "message_stop"}))
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()


def run_scripted(project: Path, prompt: str, plugin: Path | None, model, *, label: str = "",
                 cwd: Path | None = None, timeout: int = e2e.E2E_TIMEOUT, claude_args: tuple = (), base_env: dict | None = None) -> e2e.E2EResult:
    """One ``claude -p PROMPT`` in ``cwd`` (default ``project``) against ``model``; plugin as ``--plugin-dir``.
    ``base_env`` (a scratch HOME's environment, ``e2e_support.home_env``) keeps that HOME's configuration
    instead of a fresh config folder."""
    claude = e2e.require_claude()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.model, server.requests, server.errors, server.lock = model, [], [], threading.Lock()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    work = Path(tempfile.mkdtemp(prefix="cc-save."))
    (work / "config").mkdir()
    (work / "tmp").mkdir()
    env = {k: v for k, v in (base_env or os.environ).items()
           if k not in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX",
                        "CLAUDE_CODE_USE_FOUNDRY", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
                        "CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT")}
    if base_env is None:
        env.update(CLAUDE_CONFIG_DIR=str(work / "config"))
    env.update(CLAUDE_CODE_TMPDIR=str(work / "tmp"), ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}",
               ANTHROPIC_API_KEY="dummy-offline-key", NO_PROXY="127.0.0.1,localhost",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
               DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1")
    args = [str(claude), "-p", prompt, *(["--plugin-dir", str(plugin)] if plugin else []),
            "--output-format", "stream-json", "--verbose", "--include-hook-events", *claude_args]
    start = time.monotonic()
    try:
        proc = subprocess.run(args, cwd=str(cwd or project), env=env, capture_output=True, text=True,
                              timeout=timeout)
        returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        returncode, stdout, stderr = -9, exc.stdout or "", f"timed out after {timeout}s"
        stdout = stdout.decode("utf-8", "replace") if isinstance(stdout, bytes) else stdout
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(work, ignore_errors=True)
    seconds = time.monotonic() - start
    e2e.TIMINGS.append((label or prompt[:40], seconds))
    events = []
    for line in stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    output = f"claude exit {returncode}; stderr: {stderr.strip()[:1500]}\nmodel errors: {server.errors}\n"
    output += "\n".join(json.dumps(e)[:600] for e in events if e.get("type") in ("system", "user", "result"))
    return e2e.E2EResult(returncode, output, seconds, list(server.requests), events)
