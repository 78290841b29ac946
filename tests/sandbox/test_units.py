"""Unit tests of the sandbox building blocks: limits, wire format, output capping."""

from __future__ import annotations

import socket

import pytest

from collabsim.sandbox import EXEC_STATUSES, ExecResult, SandboxLimits, wire
from collabsim.sandbox.worker import CappedOutput, clean_env


def test_limits_defaults_and_validation() -> None:
    limits = SandboxLimits()
    assert (limits.wall_seconds, limits.cpu_seconds, limits.memory_mb) == (30.0, 30.0, 2048)
    assert (limits.output_chars, limits.file_mb) == (4000, 50)
    with pytest.raises(ValueError, match="memory_mb"):
        SandboxLimits(memory_mb=0)
    with pytest.raises(ValueError, match="wall_seconds"):
        SandboxLimits(wall_seconds=-1)


def test_exec_result_is_frozen_and_statuses_are_complete() -> None:
    result = ExecResult(output="1\n", error=None, status="ok", truncated=False, wall_seconds=0.1)
    assert result.ok
    with pytest.raises(AttributeError):
        result.output = "x"  # type: ignore[misc]
    assert set(EXEC_STATUSES) == {
        "ok",
        "error",
        "timeout",
        "memory_limit",
        "cpu_limit",
        "disk_limit",
        "crashed",
        "blocked",
    }


def test_wire_round_trip_with_fds_and_frame_buffer() -> None:
    a, b = socket.socketpair()
    r, w = socket.socketpair()
    with a, b, r, w:
        wire.send_msg(a, {"op": "spawn", "text": "é" * 10}, fds=(r.fileno(),))
        msg, fds = wire.recv_msg(b, with_fds=True)
        assert msg == {"op": "spawn", "text": "é" * 10}
        assert len(fds) == 1
        passed = socket.socket(fileno=fds[0])
        with passed:
            w.sendall(b"ping")
            assert passed.recv(4) == b"ping"
    buffer = wire.FrameBuffer()
    frame = wire.encode({"n": 1}) + wire.encode([2])
    buffer.feed(frame[:5])
    assert buffer.pop() is None
    buffer.feed(frame[5:])
    assert buffer.pop() == {"n": 1}
    assert buffer.pop() == [2]
    assert buffer.pop() is None
    buffer.feed(b"\xff\xff\xff\xff")
    with pytest.raises(wire.WireError):
        buffer.pop()


def test_capped_output_keeps_head_and_tail() -> None:
    out = CappedOutput(20)
    out.write("0123456789")
    assert out.getvalue() == ("0123456789", False)
    out.write("abcdefghijKLMNOPQRST")
    text, truncated = out.getvalue()
    assert truncated
    assert text.startswith("0123456789")
    assert text.endswith("KLMNOPQRST")
    assert "10 characters omitted" in text
    assert out.write("x" * 10**7) == 10**7
    text, _ = out.getvalue()
    assert len(text) < 100 and text.endswith("x" * 10)


def test_clean_env_has_no_parent_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    env = clean_env("/w")
    assert "OPENAI_API_KEY" not in env
    assert env["HOME"] == env["TMPDIR"] == "/w"
    assert env["PYTHONHASHSEED"] == "0" and env["OPENBLAS_NUM_THREADS"] == "1"
