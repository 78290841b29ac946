"""A loopback stand-in for an OpenAI-compatible chat model server (tests only).

:class:`StandInServer` answers ``POST /v1/chat/completions`` on ``127.0.0.1`` (port 0,
background thread, stdlib ``http.server``) the way hosted and local chat models do, so a test
drives the real litellm path (``openai/...``, ``hosted_vllm/...``, ``deepseek/...`` with
``api_base=server.url``) without any network beyond the loopback.

What it answers comes from a *script*: a function ``(request json, request index) -> Reply``.
The reply shapes seen in the wild are small helpers of this module (well-formed, fenced,
chatty, JSON-in-text, native tool call, an unknown action with FINISH named in the THOUGHT,
two ACTION lines, refusal, empty, very long, cut at ``max_tokens``, 429 with ``Retry-After``,
500, 401, a context overflow, a connection hung up, a server that dies, any reported ``usage``);
:func:`sequence` and :func:`always` chain them, :func:`numbered` tells requests apart, and
:func:`session_script` answers by reading the prompt so a whole session can finish.

Every request is recorded (:class:`RecordedRequest`: body, sampling parameters such as
``seed`` and ``tools``, headers without credentials). The server is bounded: at most
``max_requests`` answers (then 500s, and :attr:`StandInServer.overflowed` is set), a socket
timeout per connection, and :meth:`StandInServer.stop` joins its thread with a timeout.

The fixture :func:`model_server` (registered for the whole suite by ``tests/conftest.py``)
starts servers for a test, sets dummy provider keys and stops them at teardown.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from collabsim.core.actions import format_action

HOST = "127.0.0.1"
CHAT_PATH = "/v1/chat/completions"
_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    """One answer of the stand-in server.

    Attributes:
        content: The assistant message's text (None sends ``"content": null``).
        tool_calls: OpenAI-style tool calls (``{"id", "type": "function", "function":
            {"name", "arguments"}}``).
        finish_reason: ``"stop"``, ``"length"``, ``"tool_calls"``, ...
        status: HTTP status (200 for a reply, 429, 500, 400 for errors).
        error: The error message of a non-200 answer.
        error_type: The error's ``type`` (``rate_limit_error``, ``server_error``, ...).
        error_code: The error's ``code`` (``context_length_exceeded``, ...).
        headers: Extra response headers (``Retry-After``).
        hang_up: Close the connection without answering (the server goes on listening).
        dead: Hang up and stop accepting connections.
        prompt_tokens: Prompt tokens reported in ``usage``, taken as given, negative ones too
            (None: the messages' length / 4).
        completion_tokens: Completion tokens reported in ``usage``, as given (None: len(text) / 4).
    """

    content: str | None = ""
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    finish_reason: str = "stop"
    status: int = 200
    error: str = ""
    error_type: str = ""
    error_code: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    hang_up: bool = False
    dead: bool = False
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


Script = Callable[[Mapping[str, Any], int], Reply]


# ---------------------------------------------------------------------------- reply shapes


def action(name: str, **args: Any) -> str:
    """The canonical text of one action (``EXECUTE_CODE(code="...")``)."""
    return format_action(name, **args)


def well_formed(act: str, thought: str = "Next step.") -> Reply:
    """``THOUGHT: ...`` then ``ACTION: <act>``, as the prompt asks."""
    return Reply(f"THOUGHT: {thought}\nACTION: {act}")


def fenced(act: str) -> Reply:
    """The whole answer inside a markdown fence."""
    return Reply(f"```\nTHOUGHT: Let me do this.\nACTION: {act}\n```")


def chatty(act: str) -> Reply:
    """Prose around the action, as chat models like to answer."""
    return Reply(
        "Sure! Here is what I think we should do next.\n\n"
        f"**ACTION:** {act}\n\n"
        "Let me know if you would like me to try something else."
    )


def json_in_text(name: str, args: Mapping[str, Any] | None = None) -> Reply:
    """A JSON object naming the action: ``{"action": NAME, "args": {...}}``."""
    return Reply(json.dumps({"action": name, "args": dict(args or {})}))


def tool_call(name: str, args: Mapping[str, Any] | None = None, *, arguments: str | None = None,
              finish_reason: str = "tool_calls") -> Reply:
    """A native tool call (``message.tool_calls``, no content).

    Args:
        name: The function (action) name.
        args: Its arguments (sent as JSON text).
        arguments: The raw arguments text instead (e.g. cut JSON).
        finish_reason: ``"tool_calls"``, or ``"length"`` for a cut call.
    """
    text = arguments if arguments is not None else json.dumps(dict(args or {}))
    call = {"id": "call_standin_0", "type": "function",
            "function": {"name": name, "arguments": text}}
    return Reply(content=None, tool_calls=(call,), finish_reason=finish_reason)


TRAP_THOUGHT = "The analysis is complete, so I will call FINISH() to submit our answer."


def unknown_action(answer: str = "The peak is in 1850") -> Reply:
    """An unknown action after ``ACTION:``, with ``FINISH()`` named in the THOUGHT (the trap):
    ``ACTION: SUBMIT(answer="<answer>")``."""
    return Reply(f'THOUGHT: {TRAP_THOUGHT}\nACTION: SUBMIT(answer="{answer}")')


def two_actions(first: str, second: str) -> Reply:
    """Two ``ACTION:`` lines in one reply."""
    return Reply(f"THOUGHT: Two things to do.\nACTION: {first}\nACTION: {second}")


def refusal() -> Reply:
    """A refusal without any action."""
    return Reply("I'm sorry, but I can't help with that request.")


def empty() -> Reply:
    """An empty assistant message."""
    return Reply("")


def very_long(act: str, chars: int = 60_000) -> Reply:
    """A THOUGHT of ``chars`` characters, then the action."""
    sentence = "I am weighing every column of the data set once more. "
    filler = (sentence * (chars // len(sentence) + 1))[:chars]
    return Reply(f"THOUGHT: {filler}\nACTION: {act}")


CUT_CODE = 'df = pd.read_csv("capital.csv'


def cut_at_max_tokens(text: str | None = None, completion_tokens: int = 64) -> Reply:
    """A reply cut at ``max_tokens`` (``finish_reason="length"``), its argument unterminated."""
    # cut after `read_csv("capital.csv")` of a cell with unescaped inner quotes: a lenient
    # parser reads it as a whole action whose code is CUT_CODE
    body = text if text is not None else f'THOUGHT: Load the data.\nACTION: EXECUTE_CODE(code="{CUT_CODE}")'
    return Reply(body, finish_reason="length", completion_tokens=completion_tokens)


def rate_limited(retry_after: float = 7) -> Reply:
    """HTTP 429 with ``Retry-After``."""
    return Reply(status=429, error="Rate limit reached for requests", error_type="rate_limit_error",
                 error_code="rate_limit_exceeded", headers={"Retry-After": f"{retry_after:g}"})


def server_error() -> Reply:
    """HTTP 500."""
    return Reply(status=500, error="The server had an error while processing your request.",
                 error_type="server_error")


def unauthorized() -> Reply:
    """HTTP 401 ``invalid_api_key``, as a provider answers a wrong or missing key."""
    return Reply(status=401, error="Incorrect API key provided.", error_type="invalid_request_error",
                 error_code="invalid_api_key")


def context_overflow(limit: int) -> Reply:
    """HTTP 400 ``context_length_exceeded``, as a provider answers a prompt over its window."""
    return Reply(status=400, error=f"This model's maximum context length is {limit} tokens.",
                 error_type="invalid_request_error", error_code="context_length_exceeded")


def hang_up() -> Reply:
    """This connection is closed unanswered (no status line); later connections are accepted,
    as from a proxy whose model process is gone."""
    return Reply(hang_up=True)


def dead() -> Reply:
    """The server dies: this connection is closed unanswered and no new one is accepted."""
    return Reply(dead=True)


# ---------------------------------------------------------------------------- scripts


def always(reply: Reply) -> Script:
    """Answer every request with ``reply`` (``always(well_formed(...))`` is a loop)."""
    return lambda request, index: reply


def sequence(*replies: Reply, then: Script | Reply | None = None) -> Script:
    """Answer request ``i`` with ``replies[i]``, later requests with ``then``.

    Args:
        *replies: The first answers, in order.
        then: A script or a reply for every later request (default: the last reply).
    """
    if not replies:
        raise ValueError("sequence() needs at least one reply")

    def script(request: Mapping[str, Any], index: int) -> Reply:
        if index < len(replies):
            return replies[index]
        if then is None:
            return replies[-1]
        return then if isinstance(then, Reply) else then(request, index)

    return script


def numbered(prefix: str = "reply") -> Script:
    """Answer request ``i`` with the text ``f"{prefix} {i + 1}"``: every request its own reply,
    so a test sees which request (or cached copy) a reply came from."""
    return lambda request, index: Reply(f"{prefix} {index + 1}")


def seat(request: Mapping[str, Any]) -> str:
    """``"agent"`` or ``"collaborator"``, read from the request's system prompt."""
    system = next((str(m.get("content") or "") for m in request.get("messages", [])
                   if m.get("role") == "system"), "")
    return "collaborator" if re.match(r"You are \w+, a simulated human collaborator", system) else "agent"


def member(request: Mapping[str, Any]) -> str:
    """The participant's name (``agent``, ``D``, ``R``) from ``You are <name>,``."""
    system = next((str(m.get("content") or "") for m in request.get("messages", [])
                   if m.get("role") == "system"), "")
    found = re.match(r"You are (\w+),", system)
    return found.group(1) if found else ""


def prompt_text(request: Mapping[str, Any]) -> str:
    """All user messages of the request, joined."""
    return "\n".join(str(m.get("content") or "") for m in request.get("messages", [])
                     if m.get("role") == "user")


def turn_prompt(request: Mapping[str, Any]) -> str:
    """The first user message: the turn prompt (a repair request adds more after it)."""
    return next((str(m.get("content") or "") for m in request.get("messages", [])
                 if m.get("role") == "user"), "")


def is_repair(request: Mapping[str, Any]) -> bool:
    """True for a repair request (the model's reply and a correction follow the prompt)."""
    return any(m.get("role") == "assistant" for m in request.get("messages", []))


STAND_IN_CODE = 'print("stand-in cell")'
STAND_IN_HYPOTHESIS = "The stand-in hypothesis: the series peaks once."


def _available(prompt: str) -> set[str]:
    """Action names listed under ``## Actions you can take now`` (all known names if absent)."""
    part = prompt.split("## Actions you can take now", 1)
    section = part[1].split("\n## ", 1)[0] if len(part) == 2 else prompt
    return set(re.findall(r"\b([A-Z][A-Z_]{3,})\(", section))


def _team_move(prompt: str, available: set[str]) -> str | None:
    """Approve what waits for my decision; agree to the group memory in its build phase."""
    pending = re.search(r"Requests waiting for YOUR decision.*?request_id=(\S+?):", prompt,
                        re.DOTALL)
    if pending and "APPROVE" in available:
        return action("APPROVE", request_id=pending.group(1))
    if "MEMORY_AGREE" in available:
        return action("MEMORY_AGREE")
    return None


def _agent_move(prompt: str, available: set[str], cell: str) -> str | None:
    """One cell, then the hypothesis, then FINISH (each once, read from the prompt)."""
    if "stand-in cell" not in prompt and "EXECUTE_CODE" in available:
        return action("EXECUTE_CODE", code=cell)
    if STAND_IN_HYPOTHESIS not in prompt and "EDITOR_UPDATE" in available:
        return action("EDITOR_UPDATE", text=STAND_IN_HYPOTHESIS)
    return action("FINISH") if "FINISH" in available else None


def session_script(
    *,
    agent: Script | None = None,
    collaborator: Script | None = None,
    sampled: bool = False,
) -> Script:
    """Answer by reading the prompt, so a whole session finishes.

    The agent agrees to the group memory in a build phase, runs one cell
    (:data:`STAND_IN_CODE`; with ``sampled`` the cell also prints the request index, so equal
    prompts get different replies, like a sampling model), writes :data:`STAND_IN_HYPOTHESIS` into the editor, then finishes. A
    collaborator approves what waits for its decision, agrees to the memory, and otherwise
    waits. ``agent`` / ``collaborator`` replace one seat's answers.

    Args:
        agent: Script for the agent's requests instead.
        collaborator: Script for the collaborators' requests instead.
        sampled: Make the agent's cell differ per request.
    """

    def answer(request: Mapping[str, Any], index: int) -> Reply:
        who = seat(request)
        own = agent if who == "agent" else collaborator
        if own is not None:
            return own(request, index)
        prompt = turn_prompt(request)
        move = _team_move(prompt, _available(prompt))
        if move is None and who == "agent":
            move = _agent_move(prompt, _available(prompt),
                               f'print("stand-in cell", {index})' if sampled else STAND_IN_CODE)
        return well_formed(move or action("WAIT_TEAMMATE_CONTINUE"), "Next step.")

    return answer


# ---------------------------------------------------------------------------- the server


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received.

    Attributes:
        index: 0-based arrival number (over the server's whole life, restarts included).
        life: Which start of the server received it (0, then 1 after a restart, ...).
        path: The URL path.
        body: The request JSON (``model``, ``messages``, ``seed``, ``tools``, ...).
        headers: Request headers, credentials left out.
    """

    index: int
    life: int
    path: str
    body: Mapping[str, Any]
    headers: Mapping[str, str]

    @property
    def messages(self) -> list[Mapping[str, Any]]:
        """The chat messages sent."""
        return list(self.body.get("messages", []))

    @property
    def params(self) -> dict[str, Any]:
        """Everything but ``model`` and ``messages`` (``temperature``, ``seed``, ``tools``...)."""
        return {k: v for k, v in self.body.items() if k not in ("model", "messages")}

    @property
    def seat(self) -> str:
        """``"agent"`` or ``"collaborator"``."""
        return seat(self.body)

    @property
    def member(self) -> str:
        """The participant's name."""
        return member(self.body)

    @property
    def is_repair(self) -> bool:
        """True for a repair request."""
        return is_repair(self.body)

    @property
    def prompt(self) -> str:
        """The turn prompt (first user message)."""
        return turn_prompt(self.body)


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _completion_json(body: Mapping[str, Any], reply: Reply, index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [dict(c) for c in reply.tool_calls]
    prompt_tokens = (reply.prompt_tokens if reply.prompt_tokens is not None else _estimate_tokens(
        "".join(str(m.get("content") or "") for m in body.get("messages", []))))
    completion = (reply.completion_tokens if reply.completion_tokens is not None
                  else _estimate_tokens(reply.content or json.dumps(message.get("tool_calls"))))
    return {
        "id": f"chatcmpl-standin-{index}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": str(body.get("model", "stand-in")),
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                  "total_tokens": prompt_tokens + completion},
    }


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    timeout = 10  # seconds a client may take to send its request
    # one request per connection: once the server dies no kept-alive connection still answers
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Stay quiet (tests read stderr)."""

    def do_GET(self) -> None:
        """``/v1/models`` for clients that list models first."""
        self._send(200, {"object": "list", "data": [{"id": "stand-in", "object": "model"}]})

    def do_POST(self) -> None:
        """Record the request, ask the script, answer."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        owner = self.server.owner
        headers = {k.lower(): v for k, v in self.headers.items() if not _SECRET_HEADER.search(k)}
        reply = owner.answer(self.path, body, headers)
        if reply.hang_up or reply.dead:
            self.close_connection = True
            with _suppress_os_error():
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if reply.status != 200:
            error = {"message": reply.error, "type": reply.error_type, "code": reply.error_code}
            self._send(reply.status, {"error": error}, reply.headers)
            return
        self._send(200, _completion_json(body, reply, owner.count - 1), reply.headers)

    def _send(self, status: int, payload: Mapping[str, Any],
              headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        with _suppress_os_error():
            self.wfile.write(data)


class _suppress_os_error:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is not None and issubclass(exc[0], OSError)  # type: ignore[arg-type]


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: StandInServer


class StandInServer:
    """An OpenAI-compatible chat server on 127.0.0.1 answering from a script.

    Args:
        script: ``(request json, request index) -> Reply``.
        max_requests: Answers before every further request gets a 500 (and
            :attr:`overflowed` is set): a runaway loop in a test ends.

    Attributes:
        requests: Every request received, in arrival order.
        errors: Exceptions the script raised (each answered with a 500).
        overflowed: True once more than ``max_requests`` requests came.
    """

    def __init__(self, script: Script, *, max_requests: int = 400) -> None:
        self.script = script
        self.max_requests = max_requests
        self.requests: list[RecordedRequest] = []
        self.errors: list[BaseException] = []
        self.overflowed = False
        self.port = 0
        self.life = -1
        self._lock = threading.Lock()
        self._life_lock = threading.Lock()
        self._http: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.alive = False

    @property
    def url(self) -> str:
        """The ``api_base`` to give litellm: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def count(self) -> int:
        """Requests received so far."""
        return len(self.requests)

    def start(self) -> StandInServer:
        """Listen (on a free port the first time, on the same port after :meth:`kill`)."""
        if self.alive:
            return self
        self._close()  # a death announced by a reply may still be closing the socket
        http = _HTTPServer((HOST, self.port), _Handler)
        http.owner = self
        self.port = http.server_address[1]
        self.life += 1
        self._http = http
        self.alive = True
        self._thread = threading.Thread(
            target=http.serve_forever, kwargs={"poll_interval": 0.05},
            name=f"stand-in-model-server-{self.port}", daemon=True)
        self._thread.start()
        return self

    def answer(self, path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> Reply:
        """Record one request and return the script's reply (server side; thread-safe)."""
        with self._lock:
            index = len(self.requests)
            self.requests.append(RecordedRequest(index, self.life, path, body, dict(headers)))
            if not self.alive:
                return dead()
            if index >= self.max_requests:
                self.overflowed = True
                return server_error()
            if path.rstrip("/") != CHAT_PATH:
                return Reply(status=404, error=f"no route {path}", error_type="not_found")
            try:
                reply = self.script(body, index)
            except Exception as exc:  # noqa: BLE001 - a script bug must fail the test, not hang it
                self.errors.append(exc)
                return server_error()
            if reply.dead:
                # stop listening from another thread: shutdown() waits for serve_forever
                self.alive = False
                threading.Thread(target=self._close, daemon=True).start()
            return reply

    def kill(self) -> None:
        """Stop accepting connections now (clients get "connection refused")."""
        self.alive = False
        self._close()

    def _close(self) -> None:
        # held until the socket is closed, so a restart never races a dying server for the port
        with self._life_lock:
            http, thread = self._http, self._thread
            if http is None:
                return
            http.shutdown()
            http.server_close()
            if thread is not None:
                thread.join(timeout=5)
            self._http = self._thread = None

    def restart(self, script: Script | None = None) -> StandInServer:
        """Listen again on the same port (after a death), optionally with a new script."""
        self.kill()
        if script is not None:
            self.script = script
        return self.start()

    def stop(self) -> None:
        """Stop for good (fixture teardown)."""
        self.kill()

    def of_life(self, life: int) -> list[RecordedRequest]:
        """The requests received during one start of the server."""
        return [r for r in self.requests if r.life == life]

    def __iter__(self) -> Iterator[RecordedRequest]:
        return iter(list(self.requests))


def llm_overrides(server: StandInServer, model: str = "openai/stand-in",
                  seats: Sequence[str] = ("agent", "collaborator")) -> list[str]:
    """``collabsim run`` overrides pointing the given seats at ``server``."""
    out: list[str] = []
    for name in seats:
        out += [f"llm.{name}.model={model}", f"+llm.{name}.extra.api_base={server.url}"]
    return out


# Dummy keys: litellm's providers want one; the stand-in server ignores it (and never records it).
DUMMY_KEYS = {
    "OPENAI_API_KEY": "sk-test-standin-0000000000000000",
    "DEEPSEEK_API_KEY": "sk-test-standin-deepseek-000000",
    "HOSTED_VLLM_API_KEY": "sk-test-standin-vllm-0000000000",
}


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., StandInServer]]:
    """``model_server(script, max_requests=400)``: a started :class:`StandInServer`.

    Sets dummy provider keys (:data:`DUMMY_KEYS`) in the environment; every server started is
    stopped at teardown, and a script that raised fails the test.
    """
    for name, value in DUMMY_KEYS.items():
        monkeypatch.setenv(name, value)
    started: list[StandInServer] = []

    def start(script: Script, *, max_requests: int = 400) -> StandInServer:
        server = StandInServer(script, max_requests=max_requests).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    errors = [e for s in started for e in s.errors]
    if errors:
        raise AssertionError(f"the stand-in server's script raised: {errors[0]!r}") from errors[0]
