"""launcher=ray for real: a cluster started with `ray start --head` in another folder, then
`collabsim run -m launcher=ray ...` with the default (relative) sweep folder; and without a
cluster (a local Ray started for the sweep).

Needs the [ray] extra, whose hydra-ray-launcher pins cloudpickle<3 (in conflict with the
test extra's joblib), so these tests run in their own virtualenv: .ci/ray_check (called by
.ci/run) installs collabsim[ray] there and runs this file with COLLABSIM_REQUIRE_RAY=1, which
turns a missing Ray into a failure instead of a skip.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

try:
    import hydra_plugins.hydra_ray_launcher  # noqa: F401
    import ray  # noqa: F401
except ImportError:
    if os.environ.get("COLLABSIM_REQUIRE_RAY"):
        raise
    pytest.skip("needs the [ray] extra (.ci/ray_check runs these tests in a venv with it)",
                allow_module_level=True)

BIN = Path(sys.executable).parent
# No usage report leaves the machine, and Ray keeps to the loopback (on Linux it otherwise
# resolves 127.0.0.1 to the machine's network address); Ray's own processes inherit this.
ENV = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
SWEEP = ["team=D,R", "structure=default", "tasks.limit=1", "run.progress=false",
         "run.show_sessions=false", "hydra.launcher.ray.remote.num_cpus=1"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ray"), *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=timeout)


def _collabsim_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "collabsim"), "run", "-m", "launcher=ray", *args],
                          cwd=cwd, env=ENV, capture_output=True, text=True, timeout=600)


def _only_sweep_folder(driver: Path) -> Path:
    # the default hydra.sweep.dir: multirun/<date>/<time>, relative to the driver's folder
    found = list(driver.glob("multirun/*/*"))
    assert len(found) == 1, found
    return found[0]


def _check_sweep(sweep: Path) -> None:
    jobs = pd.concat([pd.read_csv(sweep / j / "sessions.csv") for j in ("0", "1")])
    assert sorted(jobs["team"].unique()) == ["D", "R"]
    assert (sweep / "report.md").is_file(), "the sweep report is written in the sweep folder"
    assert len(pd.read_csv(sweep / "report_sessions.csv")) == len(jobs) == 2


@pytest.fixture
def ray_head(tmp_path: Path) -> Iterator[Path]:
    """A one-machine Ray cluster started with `ray start --head` from its own folder."""
    folder = tmp_path / "ray-started-here"
    folder.mkdir()
    started = _ray("start", "--head", f"--port={_free_port()}", "--num-cpus=2",
                   "--object-store-memory=100000000", "--include-dashboard=false",
                   "--node-ip-address=127.0.0.1", "--disable-usage-stats", cwd=folder)
    try:
        assert started.returncode == 0, started.stdout[-2000:] + started.stderr[-2000:]
        yield folder
    finally:
        _ray("stop", "--force", cwd=folder, timeout=120)


@pytest.mark.slow
def test_sweep_on_a_running_cluster_writes_under_the_drivers_sweep_folder(tmp_path, ray_head):
    driver = tmp_path / "driver"
    driver.mkdir()
    # run.progress on: the jobs run in Ray workers that `ray start` spawned, which do not
    # inherit the driver's environment, and still draw no bar of their own
    sweep = [a for a in SWEEP if a != "run.progress=false"]
    done = _collabsim_run(*sweep, cwd=driver)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-4000:]
    assert "joined the running Ray cluster" in said
    frames = [f for f in re.split(r"[\r\n]", said) if "session" in f and "|" in f]
    assert frames and all(f.lstrip().startswith("sweep:") for f in frames), frames[-10:]
    _check_sweep(_only_sweep_folder(driver))
    assert not (ray_head / "multirun").exists(), "nothing lands where `ray start` ran"


@pytest.mark.slow
def test_without_a_cluster_a_local_ray_runs_the_sweep(tmp_path):
    done = _collabsim_run(*SWEEP, "hydra.launcher.local.num_cpus=2", cwd=tmp_path)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-4000:]
    assert "started a local Ray" in said
    _check_sweep(_only_sweep_folder(tmp_path))


def test_an_address_with_no_cluster_is_one_line_and_exit_2(tmp_path):
    done = _collabsim_run("team=D", "structure=default", "tasks.limit=1",
                          f"hydra.launcher.ray.init.address=127.0.0.1:{_free_port()}",
                          cwd=tmp_path)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "hydra.launcher.ray.init.address" in lines[0], done.stderr
    assert "ray start --head" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "multirun").exists(), "nothing written"


def test_auto_with_no_cluster_is_one_line_and_exit_2(tmp_path):
    done = _collabsim_run("team=D", "structure=default", "tasks.limit=1",
                          "hydra.launcher.ray.init.address=auto", cwd=tmp_path)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "address=auto" in lines[0], done.stderr
    assert "ray start --head" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "multirun").exists(), "nothing written"
