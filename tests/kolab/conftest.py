"""Fixtures for the Kolab benchmark tests: the explorer graphs and their instances, built once."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from collabsim.graphs.explorer_io import load_explorer
from collabsim.graphs.model import WorkflowGraph
from collabsim.kolab.instances import InstanceSet, build_instances


@pytest.fixture(scope="session")
def explorer_graphs(kolab_sessions_path: Path) -> list[WorkflowGraph]:
    """The 31 explorer session graphs (data-quality warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_explorer(kolab_sessions_path)


@pytest.fixture(scope="session")
def explorer_instances(explorer_graphs: list[WorkflowGraph]) -> InstanceSet:
    """All benchmark instances of the explorer data."""
    return build_instances(explorer_graphs)
