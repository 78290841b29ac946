"""A 200-session run killed (-9) and interrupted (Ctrl-C), then resumed on the same store."""

from __future__ import annotations

import contextlib
import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run

# 50 tasks x 4 seeds, the single agent: 200 sessions
JOB = ["tasks.n_tasks=50", "team=single", "seeds=[0,1,2,3]", "run.show_sessions=false"]
N_SESSIONS = 200


def start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "collabsim.cli.main", "run", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: the test can clean up sandbox workers
        # a shell's background jobs ignore SIGINT; this run must see Ctrl-C like a terminal's
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_results(store: Path, at_least: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 600
    while len(list(store.glob("sessions/*/result.json"))) < at_least:
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        assert time.monotonic() < deadline
        time.sleep(0.02)


def stop_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # leftovers of the group this test started


def traces(store: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in store.glob("sessions/*/trace.jsonl")}


def test_kill_and_ctrl_c_then_rerun_gives_every_session_once_and_identical_traces(tmp_path):
    suite = tmp_path / "suite"
    reference_store = tmp_path / "reference"
    reference = run(
        compose_config([*JOB, f"tasks.root={suite}", f"run.store={reference_store}",
                        "run.progress=false"]),  # fmt: skip
        tmp_path / "reference-out",
    )
    assert len(reference.sessions) == N_SESSIONS

    store = tmp_path / "store"
    args = [*JOB, f"tasks.root={suite}", f"run.store={store}", "run.progress=false"]

    killed = start([*args, f"hydra.run.dir={tmp_path / 'killed'}"], tmp_path)
    try:
        wait_for_results(store, 30, killed)
        killed.send_signal(signal.SIGKILL)
        killed.communicate(timeout=60)
    finally:
        stop_group(killed)
    assert killed.returncode == -signal.SIGKILL

    interrupted = start([*args, f"hydra.run.dir={tmp_path / 'interrupted'}"], tmp_path)
    try:
        wait_for_results(store, 80, interrupted)
        interrupted.send_signal(signal.SIGINT)
        _, err = interrupted.communicate(timeout=120)
    finally:
        stop_group(interrupted)
    assert interrupted.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    message = [line for line in err.splitlines() if "interrupted" in line]
    assert len(message) == 1 and f"of {N_SESSIONS} sessions finished" in message[0]
    assert f"run.store={store}" in message[0] and "resume with: collabsim run" in message[0]
    finished = int(message[0].split("interrupted: ")[1].split(" of ")[0])
    assert 80 <= finished < N_SESSIONS

    final = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", *args,
         f"hydra.run.dir={tmp_path / 'final'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert final.returncode == 0, final.stderr[-2000:]
    assert f"{N_SESSIONS - finished} sessions run, {finished} reused" in final.stdout
    with (tmp_path / "final" / "sessions.csv").open(encoding="utf-8") as fh:
        rows = [(r["task_id"], r["seed"]) for r in csv.DictReader(fh)]
    assert len(rows) == N_SESSIONS and len(set(rows)) == N_SESSIONS
    expected, got = traces(reference_store), traces(store)
    assert len(expected) == N_SESSIONS and got.keys() == expected.keys()
    assert [name for name in expected if got[name] != expected[name]] == []
