"""The network guard refuses non-loopback connections and DNS lookups, allows loopback."""

from __future__ import annotations

import socket
import threading

import pytest

from collabsim.llm import netguard


@pytest.fixture()
def guard():
    netguard.install_network_guard()
    netguard.take_violations()
    yield netguard
    netguard.take_violations()  # the refusals provoked here are expected


def test_non_loopback_connect_is_refused_before_any_packet(guard) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        with pytest.raises(netguard.NetworkBlocked, match="203.0.113.9"):
            sock.connect(("203.0.113.9", 443))  # TEST-NET-3, never routed
    found = guard.take_violations()
    assert [(v.event, v.target) for v in found] == [("socket.connect", "203.0.113.9")]


def test_dns_lookup_of_a_remote_host_is_refused(guard) -> None:
    with pytest.raises(netguard.NetworkBlocked):
        socket.getaddrinfo("api.openai.com", 443)
    assert guard.take_violations()[0].event == "socket.getaddrinfo"


def test_loopback_connections_are_allowed(guard) -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted: list[bytes] = []

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            accepted.append(conn.recv(16))

    thread = threading.Thread(target=serve)
    thread.start()
    with socket.create_connection(("localhost", port), timeout=5) as client:
        client.sendall(b"ping")
    thread.join(5)
    server.close()
    assert accepted == [b"ping"]
    assert guard.take_violations() == []


def test_host_classification() -> None:
    for host in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "::ffff:127.0.0.1", None):
        assert netguard.is_local_host(host), host
    for host in ("10.0.0.1", "8.8.8.8", "api.openai.com", "2001:db8::1"):
        assert not netguard.is_local_host(host), host


@pytest.mark.slow
def test_pytest_plugin_fails_a_test_that_swallowed_the_error(tmp_path) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    tests_dir = str(Path(__file__).resolve().parents[1])  # where the helpers package lives

    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["helpers.netguard_plugin"]\n', encoding="utf-8"
    )
    (tmp_path / "test_inner.py").write_text(
        "import socket\n\n"
        "def test_sneaky():\n"
        "    try:\n"
        "        socket.create_connection(('203.0.113.9', 443), timeout=0.5)\n"
        "    except Exception:\n"
        "        pass\n\n"
        "def test_local():\n"
        "    s = socket.socket(); s.bind(('127.0.0.1', 0)); s.close()\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": tests_dir},
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout
    assert "network access beyond loopback" in run.stdout
