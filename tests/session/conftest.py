"""Fixtures for the session-engine tests: a tiny task and the code executor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers.tasks import make_task

from collabsim.tasks.model import Task


@pytest.fixture
def task(tmp_path: Path) -> Task:
    """A one-file task in ``tmp_path``."""
    return make_task(tmp_path / "task")


class TrackingFactory:
    """Wraps an executor factory and records every executor it creates and closes."""

    def __init__(self, inner: Callable[[Sequence[Path], Any], Any]) -> None:
        self.inner = inner
        self.created: list[Any] = []
        self.closed: list[Any] = []

    def __call__(self, files: Sequence[Path], limits: Any) -> Any:
        executor = self.inner(files, limits)
        factory = self

        class _Tracked:
            def execute(self, code: str) -> Any:
                return executor.execute(code)

            def close(self) -> None:
                factory.closed.append(executor)
                executor.close()

        self.created.append(executor)
        return _Tracked()


@pytest.fixture
def executor_factory() -> TrackingFactory:
    """The real sandbox (``collabsim.sandbox``), wrapped to track creation and closing."""
    from collabsim.sandbox import Sandbox, SandboxLimits

    def real(files: Sequence[Path], limits: Any) -> Any:
        return Sandbox(list(files), limits or SandboxLimits(wall_seconds=20.0))

    return TrackingFactory(real)
