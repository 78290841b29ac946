"""Length-prefixed JSON messages over unix stream sockets (optionally carrying fds).

JSON, never pickle: the worker runs untrusted code, and anything it sends back must not be
able to execute code in the parent.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any

_HEADER = struct.Struct("!I")
MAX_MESSAGE_BYTES = 16 * 1024 * 1024


class WireError(Exception):
    """Raised on a closed peer or a malformed message."""


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
    try:
        return json.loads(_recv_exact(sock, size).decode("utf-8")), fds
    except ValueError as exc:
        raise WireError(f"malformed message: {exc}") from exc


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
        try:
            return json.loads(payload.decode("utf-8"))
        except ValueError as exc:
            raise WireError(f"malformed message: {exc}") from exc
