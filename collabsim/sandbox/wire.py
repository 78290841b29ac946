"""Length-prefixed JSON messages over unix stream sockets (optionally carrying fds).

JSON, never pickle: the worker runs untrusted code, and anything it sends back must not be
able to execute code in the parent. What a worker sends is bounded before it is decoded
(:data:`MAX_MESSAGE_BYTES`, :data:`MAX_CONTAINERS`), so a reply nested a million levels deep
is a malformed message, not a ``RecursionError`` in the parent.

A cell can write anything to its worker's socket, so a message that speaks for the sandbox
itself (the zygote's report of a worker's end, which carries a set-up failure) is sealed
with a per-worker key the worker never holds (:func:`seal`, :func:`unseal`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import socket
import struct
from typing import Any

_HEADER = struct.Struct("!I")
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
MAX_CONTAINERS = 64
"""Arrays and objects one message may hold (the protocol's messages are flat); this bounds
the nesting depth too, checked before decoding."""
# In JSON a backslash occurs only inside strings and escapes the next character: with the
# escapes gone, quotes pair up and one left-to-right pass removes every string (linear time).
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')


class WireError(Exception):
    """Raised on a closed peer or a malformed message."""


def _containers(payload: bytes) -> int:
    """How many arrays and objects ``payload`` opens, at C speed (brackets inside strings,
    e.g. a printed list in a cell's output, are not counted)."""
    count = payload.count(b"[") + payload.count(b"{")
    if count <= MAX_CONTAINERS:  # the usual message: no need to look inside its strings
        return count
    structure = _STRING.sub(b"", _ESCAPE.sub(b"", payload))
    return structure.count(b"[") + structure.count(b"{")


def decode(payload: bytes) -> Any:
    """Decode one message body, bounded in size and depth before it is parsed.

    Raises:
        WireError: Oversized, too deeply nested or malformed.
    """
    if len(payload) > MAX_MESSAGE_BYTES:
        raise WireError(f"message too large ({len(payload)} bytes)")
    if _containers(payload) > MAX_CONTAINERS:
        raise WireError(f"message holds more than {MAX_CONTAINERS} arrays and objects")
    try:
        return json.loads(payload.decode("utf-8"))
    except ValueError as exc:
        raise WireError(f"malformed message: {exc}") from exc


def seal(op: str, body: dict[str, Any], key: bytes) -> dict[str, Any]:
    """A message ``op`` carrying ``body`` under an HMAC-SHA256 of ``key``."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    mac = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    return {"op": op, "body": text, "mac": mac}


def unseal(msg: dict[str, Any], key: bytes | None) -> dict[str, Any] | None:
    """The body of a :func:`seal` ed message with its ``op``; ``None`` unless ``key`` sealed it."""
    text, mac = msg.get("body"), msg.get("mac")
    if key is None or not isinstance(text, str) or not isinstance(mac, str):
        return None
    expected = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, mac):
        return None
    try:
        body = decode(text.encode())
    except WireError:
        return None
    return {**body, "op": msg["op"]} if isinstance(body, dict) else None


def encode(obj: Any) -> bytes:
    """Return one framed message for ``obj``."""
    # ensure_ascii: lone surrogates (possible in user output) survive the round trip
    payload = json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    if len(payload) > MAX_MESSAGE_BYTES:
        raise WireError(f"message too large ({len(payload)} bytes)")
    return _HEADER.pack(len(payload)) + payload


def send_msg(sock: socket.socket, obj: Any, fds: tuple[int, ...] = ()) -> None:
    """Send one message, passing ``fds`` along with its first byte (SCM_RIGHTS)."""
    data = encode(obj)
    if fds:
        sent = socket.send_fds(sock, [data], list(fds))
        data = data[sent:]
    if data:
        sock.sendall(data)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks: list[bytes] = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise WireError("peer closed the connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_msg(sock: socket.socket, with_fds: bool = False) -> tuple[Any, list[int]]:
    """Receive one message (blocking); returns ``(obj, fds)``.

    Raises:
        WireError: On EOF or a malformed message.
    """
    fds: list[int] = []
    if with_fds:
        head, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, 4)
        for fd in fds:
            os.set_inheritable(fd, False)
        if not head:
            raise WireError("peer closed the connection")
        if len(head) < _HEADER.size:
            head += _recv_exact(sock, _HEADER.size - len(head))
    else:
        head = _recv_exact(sock, _HEADER.size)
    (size,) = _HEADER.unpack(head)
    if size > MAX_MESSAGE_BYTES:
        raise WireError(f"message too large ({size} bytes)")
    return decode(_recv_exact(sock, size)), fds


class FrameBuffer:
    """Incremental decoder for a non-blocking reader."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        """Append received bytes."""
        self._buf += data

    def pop(self) -> Any | None:
        """Return the next complete message, or ``None`` if none is complete.

        Raises:
            WireError: On an oversized or malformed message.
        """
        if len(self._buf) < _HEADER.size:
            return None
        (size,) = _HEADER.unpack_from(self._buf)
        if size > MAX_MESSAGE_BYTES:
            raise WireError(f"message too large ({size} bytes)")
        end = _HEADER.size + size
        if len(self._buf) < end:
            return None
        payload = bytes(self._buf[_HEADER.size : end])
        del self._buf[:end]
        return decode(payload)
