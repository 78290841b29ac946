"""Unit tests of the sandbox building blocks: limits, wire format, output capping."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

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


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,  # json.loads would raise RecursionError
        b'{"output": ' + b"[" * 65 + b"]" * 65 + b"}",
        b"[]" * 1_000_000,  # flat, but far more containers than any message holds
    ],
    ids=["deep", "just-too-deep", "wide"],
)
def test_wire_refuses_nesting_before_decoding(body: bytes) -> None:
    buffer = wire.FrameBuffer()
    buffer.feed(len(body).to_bytes(4, "big") + body)
    with pytest.raises(wire.WireError):
        buffer.pop()
    a, b = socket.socketpair()
    with a, b:
        sender = threading.Thread(target=a.sendall, args=(len(body).to_bytes(4, "big") + body,))
        sender.start()
        with pytest.raises(wire.WireError):
            wire.recv_msg(b)
        sender.join()


def test_wire_brackets_and_quotes_inside_strings_are_text() -> None:
    text = '[{"x": [1, 2]}]\\"[[[' * 100  # a cell printing nested lists, escapes and quotes
    buffer = wire.FrameBuffer()
    buffer.feed(wire.encode({"output": text, "status": "ok"}))
    assert buffer.pop() == {"output": text, "status": "ok"}


def test_sealed_messages_open_only_with_their_key() -> None:
    key = os.urandom(32)
    sealed = wire.seal("exit_status", {"exitcode": 71, "setup_error": "boom"}, key)
    assert wire.unseal(sealed, key) == {"op": "exit_status", "exitcode": 71, "setup_error": "boom"}
    assert wire.unseal(sealed, os.urandom(32)) is None
    assert wire.unseal(sealed, None) is None
    forged = {**sealed, "body": sealed["body"].replace("71", "0")}
    assert wire.unseal(forged, key) is None
    assert wire.unseal({"op": "exit_status", "exitcode": 0}, key) is None


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


def test_hidden_ancestor_finds_the_topmost_directory_others_cannot_enter() -> None:
    import shutil
    import tempfile

    from collabsim.sandbox.privileges import hidden_ancestor, readable_by_others

    base = Path(tempfile.mkdtemp(prefix="collabsim-test-hidden-"))  # /tmp: enterable by all
    try:
        base.chmod(0o755)
        outer = base / "outer"
        inner = outer / "mid" / "python"
        inner.mkdir(parents=True)
        outer.chmod(0o700)
        (outer / "mid").chmod(0o700)  # nested hidden levels: the top-most one counts
        inner.chmod(0o755)
        assert hidden_ancestor(str(inner)) == str(outer)
        assert readable_by_others(str(inner))
        outer.chmod(0o755)
        (outer / "mid").chmod(0o755)
        assert hidden_ancestor(str(inner)) is None
    finally:
        shutil.rmtree(base)


def test_sweep_removes_only_folders_of_exited_owners(tmp_path: Path) -> None:
    from collabsim.sandbox.workdirs import WORKDIR_PREFIX, process_start_time, sweep_stale

    dead_pid = 2**22 + 7  # above the kernel's pid_max: never a live process
    dead = tmp_path / f"{WORKDIR_PREFIX}{dead_pid}-123-abc"
    live = tmp_path / f"{WORKDIR_PREFIX}{os.getpid()}-{process_start_time(os.getpid())}-abc"
    reused = tmp_path / f"{WORKDIR_PREFIX}{os.getpid()}-1-abc"  # same pid, other start time
    other = tmp_path / f"{WORKDIR_PREFIX}abc"
    for folder in (dead, live, reused, other):
        (folder / "sub").mkdir(parents=True)
    assert sorted(sweep_stale(tmp_path)) == sorted([dead, reused])
    assert live.is_dir() and other.is_dir()
    assert not dead.exists() and not reused.exists()


def test_disk_usage_counts_allocated_bytes_recursively(tmp_path: Path) -> None:
    from collabsim.sandbox.workdirs import disk_usage

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.bin").write_bytes(b"x" * 300_000)
    (tmp_path / "y.bin").write_bytes(b"y" * 200_000)
    with open(tmp_path / "sparse.bin", "wb") as fh:
        fh.truncate(50_000_000)  # a hole takes no space
    used = disk_usage(tmp_path)
    assert 500_000 <= used.bytes < 1_000_000
    assert used.entries == 4  # a, a/x.bin, y.bin, sparse.bin


def test_disk_usage_stops_past_its_entry_limit(tmp_path: Path) -> None:
    from collabsim.sandbox.workdirs import disk_usage

    for i in range(2000):
        (tmp_path / f"e{i}").touch()
    assert disk_usage(tmp_path).entries == 2000
    assert disk_usage(tmp_path, max_entries=2000).entries == 2000
    assert disk_usage(tmp_path, max_entries=100).entries == 101  # stopped: "more than 100"
