"""Fixtures of the LLM tests: the loopback stand-in model server (:mod:`helpers.model_server`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from helpers.model_server import Script, StandInServer
from stub_server import StubServer, serve

# Dummy keys: litellm's providers want one; the stand-in server ignores it (and never records it).
DUMMY_KEYS = {
    "OPENAI_API_KEY": "sk-test-standin-0000000000000000",
    "DEEPSEEK_API_KEY": "sk-test-standin-deepseek-000000",
    "HOSTED_VLLM_API_KEY": "sk-test-standin-vllm-0000000000",
}


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., StandInServer]]:
    """``model_server(script, max_requests=400)``: a started :class:`StandInServer`.

    Sets dummy provider keys in the environment; every server started is stopped at teardown,
    and a script that raised fails the test.
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


@pytest.fixture()
def stub_server() -> Iterator[StubServer]:
    """A running stub model server (``stub_server.base_url``: ``http://127.0.0.1:<port>/v1``)."""
    state, httpd, thread = serve()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
