"""Fixtures of the LLM client tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from stub_server import StubServer, serve


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
