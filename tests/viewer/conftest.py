"""Fixtures for the viewer tests: a real scripted job (DR under default and scaffolded)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cli import collabsim_exit_code


@pytest.fixture(scope="session")
def viewer_job(tmp_path_factory) -> Path:
    """Job folder of one generated task run by DR under ``default`` and ``scaffolded``
    (``gen_001``: a session that ends with a submitted hypothesis under both structures; in
    ``gen_000`` R misreads the query and its gate keeps every draft out of the editor)."""
    out = tmp_path_factory.mktemp("viewer_job")
    code = collabsim_exit_code(["run", "experiment=smoke", "tasks.ids=[gen_001/0/0]",
                                "structure=default_and_scaffolded", "run.progress=false",
                                f"hydra.run.dir={out}"], cwd=out)
    assert code == 0
    assert len(list((out / "sessions").glob("*/trace.jsonl"))) == 2
    return out


@pytest.fixture(scope="session")
def dr_scaffolded_session(viewer_job) -> Path:
    """Folder of one scripted DR session under ``scaffolded`` (trace.jsonl, result.json)."""
    folders = sorted((viewer_job / "sessions").glob("*__DR__scaffolded__*"))
    assert len(folders) == 1
    return folders[0]
