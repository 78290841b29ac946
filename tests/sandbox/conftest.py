"""Fixtures for the sandbox tests."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import FAST, descendants, open_sandbox, state_of

from collabsim.sandbox import Sandbox, zygote_pid


@pytest.fixture()
def task_csv(tmp_path: Path) -> Path:
    """A small task table."""
    path = tmp_path / "artifacts.csv"
    path.write_text("year,count\n-2300,4\n-2200,7\n-2100,12\n-2000,9\n")
    return path


@pytest.fixture(autouse=True)
def no_worker_outlives_its_test():
    """After every test (all its sandboxes closed) the zygote has no live descendants.

    A killed worker can take a moment to finish exiting on a loaded machine, so the check
    allows a short grace period; a leaked worker stays and fails it.
    """
    yield
    zygote = zygote_pid()
    if zygote is None:
        return
    deadline = time.monotonic() + 5.0
    left = descendants(zygote)
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = descendants(zygote)
    assert left == set(), {pid: state_of(pid) for pid in left}


@pytest.fixture(params=["on", "off"])
def hook(request: pytest.FixtureRequest) -> str:
    """Whether the probe runs with the audit hook in place (``on``) or switched off."""
    return request.param


@pytest.fixture()
def sandbox(hook: str) -> Iterator[Sandbox]:
    sb = open_sandbox(FAST, hook)
    try:
        yield sb
    finally:
        sb.close()
