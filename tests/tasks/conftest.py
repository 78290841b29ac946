"""Fixtures for task tests: a generated suite shared by the module tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.tasks.generator import generate_suite


@pytest.fixture(scope="session")
def generated_200(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 200-task generated suite (seed 1)."""
    return generate_suite(tmp_path_factory.mktemp("suite200"), 200, seed=1)
