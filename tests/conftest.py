"""Shared test fixtures.

Real data lives beside the repository in ``../shared/data`` (override with the
``COLLABSIM_SHARED_DATA`` environment variable). Tests that need it fail loudly when it is
missing: a skipped data test would hide a broken CI set-up.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.cli import collabsim_in_process, logging_restored
from helpers.tasks import archaeology_tasks

from collabsim.tasks.generator import generate_suite
from collabsim.tasks.model import Task

# Fails any test that opens a network connection to a non-loopback address (or resolves a
# remote host name), even when the code under test caught the error. The stand-in model
# server's module gives every test the `model_server` fixture.
pytest_plugins = ["helpers.netguard_plugin", "helpers.model_server"]

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    """Return the shared data folder, raising a clear error when it is absent."""
    root = Path(os.environ.get("COLLABSIM_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
    if not root.is_dir():
        raise FileNotFoundError(
            f"shared test data not found at {root}: tests need ../shared/data beside the "
            "repository (or COLLABSIM_SHARED_DATA pointing at it)"
        )
    return root


@pytest.fixture(autouse=True)
def _logging_as_before() -> Iterator[None]:
    """Every test leaves logging as it found it: a Hydra job run in the test process (e.g.
    ``run_app.main_with_args``) installs root handlers writing to that test's captured
    streams, which are closed afterwards; a later test's log record (in parallel runs, from
    whichever test shares the worker) would then print "Logging error" into its stderr."""
    with logging_restored():
        yield


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ``../shared/data`` (fails, never skips, when missing)."""
    return shared_data_dir()


@pytest.fixture(scope="session")
def discoverybench_root(shared_data: Path) -> Path:
    """Root of the DiscoveryBench subset."""
    return shared_data / "discoverybench"


@pytest.fixture(scope="session")
def kolab_sessions_path(shared_data: Path) -> Path:
    """Path of the Kolab explorer sessions file."""
    path = shared_data / "kolab" / "explorer_sessions.json"
    if not path.is_file():
        raise FileNotFoundError(f"Kolab explorer data missing: {path}")
    return path


@pytest.fixture(scope="session")
def generated_200(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 200-task generated suite (seed 1), generated once per test run."""
    return generate_suite(tmp_path_factory.mktemp("suite200"), 200, seed=1)


@pytest.fixture(scope="session")
def archaeology(discoverybench_root: Path) -> dict[str, Task]:
    """The 38 DiscoveryBench archaeology tasks by task id."""
    return archaeology_tasks(discoverybench_root)


@pytest.fixture
def collabsim_cli(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``collabsim_cli(*args, cwd=folder)``: the ``collabsim`` command run in this process
    (see :mod:`helpers.cli`), returning exit code, stdout and stderr like ``subprocess.run``."""

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return collabsim_in_process(args, cwd=cwd, capfd=capfd, monkeypatch=monkeypatch)

    return run
