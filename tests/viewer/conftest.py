"""Fixtures for the viewer tests: a real scripted DR scaffolded session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def dr_scaffolded_session(tmp_path_factory) -> Path:
    """Folder of one scripted DR session under ``scaffolded`` (trace.jsonl, result.json)."""
    out = tmp_path_factory.mktemp("viewer_job")
    proc = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", "experiment=smoke", "tasks.limit=1",
         "run.progress=false", f"hydra.run.dir={out}"],
        capture_output=True, text=True, timeout=600, cwd=out,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    folders = sorted((out / "sessions").glob("*__DR__scaffolded__*"))
    assert len(folders) == 1
    return folders[0]
