"""A small OpenAI-compatible chat server on 127.0.0.1 for the client's tests (fixture
``stub_server`` in ``tests/llm/conftest.py``).

It answers ``POST .../chat/completions`` from a script of replies (status, headers, JSON body)
and records every request body, so a test can see what litellm really sent (tools, seed) and
make litellm raise the exceptions it raises for real providers (429 with ``Retry-After``).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def chat_completion(
    content: str | None,
    *,
    finish_reason: str = "stop",
    tool_calls: list[dict[str, Any]] | None = None,
    prompt_tokens: Any = 11,
    completion_tokens: Any = 7,
) -> dict[str, Any]:
    """An OpenAI chat-completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "stub-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": 18,
        },
    }


@dataclass
class Scripted:
    """One scripted answer."""

    status: int = 200
    body: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


class StubServer:
    """The server's state: scripted answers and the requests received."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self.base_url = ""
        # The reply text once the script runs out, from the request number (1-based).
        self.default: Callable[[int], str] = lambda n: f"reply {n}"

    def then(self, status: int = 200, body: Mapping[str, Any] | None = None,
             headers: Mapping[str, str] | None = None) -> StubServer:
        """Queue one answer (after the queue runs out: :attr:`default` of the request number)."""
        self.script.append(Scripted(status, body or {}, headers or {}))
        return self

    def answer(self, request: dict[str, Any]) -> Scripted:
        with self._lock:
            self.requests.append(request)
            if self.script:
                return self.script.popleft()
            return Scripted(body=chat_completion(self.default(len(self.requests))))


def _handler(server: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            size = int(self.headers.get("content-length") or 0)
            request = json.loads(self.rfile.read(size) or b"{}")
            scripted = server.answer(request)
            body = json.dumps(scripted.body or {"error": {"message": "stub"}}).encode()
            self.send_response(scripted.status)
            self.send_header("content-type", "application/json")
            for name, value in scripted.headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            """Quiet."""

    return Handler


def serve() -> tuple[StubServer, ThreadingHTTPServer, threading.Thread]:
    """Start a stub server on a free loopback port."""
    state = StubServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    return state, httpd, thread
