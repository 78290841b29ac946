"""Fixtures for the sandbox tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_helpers import descendants

from collabsim.sandbox import zygote_pid


@pytest.fixture()
def task_csv(tmp_path: Path) -> Path:
    """A small task table."""
    path = tmp_path / "artifacts.csv"
    path.write_text("year,count\n-2300,4\n-2200,7\n-2100,12\n-2000,9\n")
    return path


@pytest.fixture(autouse=True)
def no_worker_outlives_its_test():
    """After every test (all its sandboxes closed) the zygote has no live descendants."""
    yield
    zygote = zygote_pid()
    if zygote is not None:
        assert descendants(zygote) == set()  # close() returns only once the worker exited
