"""A real OpenAI-compatible HTTP server on 127.0.0.1, for testing the API backend.

    with FakeOpenAIServer(reply="Hello there.") as server:
        settings = Settings(openai_base_url=server.base_url, ...)
        ...
        assert server.requests[0].body["model"] == "test-model"

Attributes (`reply`, `respond`, `error_status`, `error_message`, `delay`) may be changed while it
runs.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received; header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeOpenAIServer:
    """Serve `POST /v1/chat/completions` like OpenAI does, in a background thread.

    Args:
        reply: the assistant's answer, streamed word by word when the request asks to stream.
        error_status: answer every request with this HTTP status and an OpenAI-style error.
        error_message: the `error.message` sent with `error_status`.
        delay: seconds to wait before answering (to test timeouts).
        model: the model name the server accepts; others get a 404 like OpenAI's.
            None accepts any model.
        respond: when set, the reply to each request is `respond(messages)` (the request's
            chat messages), so one server can play several roles (translate, then answer).
    """

    reply: str = "The answer is 42 [smith2020]."
    error_status: int | None = None
    error_message: str = "Something went wrong."
    delay: float = 0.0
    model: str | None = None
    respond: Callable[[list[dict[str, Any]]], str] | None = None
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running: use it as a context manager")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The URL to give as `openai_base_url` (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        # A short poll interval: shutdown() waits for one, and every test stops a server.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.02,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()  # wakes handlers sleeping in slow mode
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- what the handler calls

    def _wait(self) -> None:
        if self.delay:
            self._stopping.wait(self.delay)

    def _reply_to(self, body: dict[str, Any]) -> str:
        if self.respond is None:
            return self.reply
        return self.respond(list(body.get("messages") or []))

    def _chunks(self, model: str, reply: str) -> list[dict[str, Any]]:
        """Return the streamed events: role first, then word pieces, then the stop reason."""
        pieces = [p for p in re.split(r"(?<=\s)(?=\S)", reply) if p]
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model}
        events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
        events += [
            {**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
            for p in pieces
        ]
        events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        return events

    def _completion(self, model: str, reply: str) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


def _error_body(message: str, status: int) -> dict[str, Any]:
    kind = {401: "invalid_request_error", 404: "invalid_request_error", 429: "rate_limit"}
    return {"error": {"message": message, "type": kind.get(status, "server_error"), "code": None}}


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output clean."""

        def do_GET(self) -> None:
            self._record(None)
            self._send_json(404, _error_body(f"Unknown path {self.path}", 404))

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            self._record(body)
            server._wait()
            if server._stopping.is_set():
                return
            if server.error_status is not None:
                status = server.error_status
                self._send_json(status, _error_body(server.error_message, status))
                return
            if self.path.rstrip("/") != "/v1/chat/completions" or not isinstance(body, dict):
                self._send_json(404, _error_body(f"Unknown path {self.path}", 404))
                return
            model = str(body.get("model", ""))
            if server.model is not None and model != server.model:
                msg = f"The model `{model}` does not exist or you do not have access to it."
                self._send_json(404, _error_body(msg, 404))
                return
            reply = server._reply_to(body)
            if body.get("stream"):
                self._send_stream(server._chunks(model, reply))
            else:
                self._send_json(200, server._completion(model, reply))

        def _record(self, body: Any) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            server.requests.append(RecordedRequest(self.command, self.path, headers, body))

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, events: list[dict[str, Any]]) -> None:
            # HTTP/1.0 without Content-Length: the body ends when the connection closes.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(b": keep-alive\n\n")
            for event in events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def handle(self) -> None:
            # The client may hang up first (timeouts); that is the test's point, not an error.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                super().handle()

    return Handler
