"""Fake model APIs for the real agent clients in the suite (offline, on 127.0.0.1).

``ResponsesAPI`` speaks enough of OpenAI's Responses API for Codex CLI (``wire_api = "responses"``):
``POST /v1/responses`` answered as a server-sent event stream (``response.created``, one
``response.output_item.done`` per item, ``response.completed``). Each request takes the next reply
of a script: a function ``reply(body) -> [items]`` or a list of items, where an item is made by
``message(text)``, ``shell_call(command)`` or ``patch_call(patch)``. When the script is used up the
model says "done". Every request body is kept (``requests``), so a test asserts on what the model
was actually given.
"""
from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_ids = itertools.count(1)


def message(text: str) -> dict:
    return {"type": "message", "role": "assistant", "id": f"msg_{next(_ids)}",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def function_call(name: str, arguments: dict) -> dict:
    return {"type": "function_call", "id": f"fc_{next(_ids)}", "call_id": f"call_{next(_ids)}", "name": name,
            "arguments": json.dumps(arguments)}


def custom_call(name: str, text: str) -> dict:
    return {"type": "custom_tool_call", "id": f"ctc_{next(_ids)}", "call_id": f"call_{next(_ids)}", "name": name,
            "input": text}


def _texts(*values) -> str:
    """Every string inside ``values`` (at any depth), one per line."""
    parts = []

    def walk(value):
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
    walk(values)
    return "\n".join(parts)


def input_text(body: dict) -> str:
    """Every text the request gives the model (instructions and input items), as one string."""
    return _texts(body.get("instructions") or "", body.get("input"))


def tool_names(body: dict) -> list:
    return [t.get("name") or t.get("type") for t in body.get("tools") or [] if isinstance(t, dict)]


class ResponsesAPI:
    """A threaded fake of ``POST /v1/responses``; use as a context manager (``base_url`` once started)."""

    def __init__(self, script=()):
        self.script = list(script)
        self.requests: list = []
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # /v1/models and the like: an empty list
                self._json({"object": "list", "data": [], "models": []})

            def do_POST(self):
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                if not self.path.rstrip("/").endswith("/responses"):
                    self._json({})
                    return
                items = api._next(body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                rid = f"resp_{next(_ids)}"
                events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
                for index, item in enumerate(items):
                    events.append(("response.output_item.done",
                                   {"type": "response.output_item.done", "output_index": index, "item": item}))
                events.append(("response.completed", {"type": "response.completed", "response": {
                    "id": rid, "output": items,
                    "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}}))
                for name, data in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def _json(self, data):
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _next(self, body: dict, done=lambda: message("done")) -> list:
        with self._lock:
            self.requests.append(body)
            step = self.script.pop(0) if self.script else None
        items = (step(body) if callable(step) else step) if step is not None else ()
        return list(items) or [done()]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------- Gemini API (generativelanguage, v1beta)

def gemini_text(text: str) -> dict:
    return {"text": text}


def gemini_call(name: str, args: dict) -> dict:
    return {"functionCall": {"name": name, "args": args}}


def gemini_input_text(body: dict) -> str:
    """Every text the request gives the model (system instruction and contents), as one string."""
    return _texts(body.get("systemInstruction"), body.get("contents"))


class GeminiAPI(ResponsesAPI):
    """A fake of ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (and ``:generateContent``,
    ``:countTokens``) for Gemini CLI's gateway mode (``GOOGLE_GEMINI_BASE_URL``). A script step gives parts
    (``gemini_text``, ``gemini_call``); only the turns of the main conversation (with tools) take a step."""

    def __init__(self, script=()):
        super().__init__(script)
        api = self
        base = self.server.RequestHandlerClass

        class Handler(base):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                if ":countTokens" in self.path:
                    self._json({"totalTokens": 10})
                    return
                with api._lock:
                    api.all_requests.append((self.path, body))
                if body.get("tools"):
                    parts = api._next(body)
                else:  # a side request (routing, next speaker, summary): a plain JSON-ish answer
                    parts = [gemini_text('{"next_speaker": "user", "reasoning": "done"}')]
                chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                         "index": 0}],
                         "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}
                if "alt=sse" in self.path or "streamGenerateContent" in self.path:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
                    self.wfile.flush()
                else:
                    self._json(chunk)

        self.all_requests: list = []
        self.server.RequestHandlerClass = Handler

    def _next(self, body: dict, done=lambda: gemini_text("done")) -> list:
        return super()._next(body, done)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"
