"""A full disk ends a job with one line, its finished sessions kept (issue 23, item 14).

The disk is not really filled: ``ResultStore.save`` raises ``OSError(ENOSPC)`` from the third
session on, as ``os.replace`` of a result record would on a full disk.
"""

from __future__ import annotations

import errno
import os

import pandas as pd
import pytest

from collabsim.cli import run_app
from collabsim.experiment import store as store_module
from collabsim.experiment.job import run
from tests.experiment.test_job import job_cfg


@pytest.fixture
def disk_fills_after_two_sessions(monkeypatch):
    saved = []
    real_save = store_module.ResultStore.save

    def save(self, plan, result):
        if len(saved) >= 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.result_path(plan)))
        saved.append(plan)
        return real_save(self, plan, result)

    monkeypatch.setattr(store_module.ResultStore, "save", save)
    return saved


def test_full_disk_keeps_finished_sessions_and_writes_their_tables(
    tmp_path, disk_fills_after_two_sessions
):
    from collabsim.experiment.job import JobWriteError

    cfg = job_cfg(tmp_path, "team.compositions=[single]", "structure=default",
                  "run.max_concurrency=1")
    with pytest.raises(JobWriteError) as caught:
        run(cfg, tmp_path / "out")
    failed = caught.value
    assert failed.no_space and failed.finished == 2 and failed.total == 4
    assert "No space left on device" in str(failed)
    sessions = pd.read_csv(tmp_path / "out" / "sessions.csv")
    assert len(sessions) == 2 and set(sessions["status"]) == {"finished"}
    assert (tmp_path / "out" / "aggregate.csv").is_file()


def test_full_disk_through_collabsim_run_is_one_line_exit_2(
    tmp_path, disk_fills_after_two_sessions, capsys
):
    out = tmp_path / "out"
    code = run_app.main_with_args([
        "tasks.n_tasks=2", f"tasks.root={tmp_path / 'suite'}", "team=single",
        "structure=default", "seeds=[0,1]", "run.max_concurrency=1", "run.progress=false",
        f"run.store={tmp_path / 'store'}", f"hydra.run.dir={out}",
    ])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("collabsim run: cannot write results: No space left on device")
    assert "2 of 4 sessions finished" in lines[0] and f"run.store={tmp_path / 'store'}" in lines[0]
    assert (out / "sessions.csv").is_file()


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_under_llm_sessions_is_one_line_without_tracebacks(
    tmp_path, monkeypatch, capfd
):
    """Issue 38.16: the disk fills while sessions run concurrently under ``policy=llm``: the
    call log, the trace rewrite at the session's end and the job's log file all fail. One
    line, exit 2; no traceback from the engine, from asyncio's shutdown or from logging."""
    import logging

    from collabsim.cli.main import main
    from collabsim.llm.calllog import CallLog
    from collabsim.session.trace import TraceWriter

    monkeypatch.setattr(CallLog, "write", _no_space)
    monkeypatch.setattr(TraceWriter, "rewrite", _no_space)
    monkeypatch.setattr(logging.FileHandler, "flush", _no_space)
    monkeypatch.setattr(logging, "raiseExceptions", True)
    out = tmp_path / "out"
    code = main([
        "run", "policy=llm", "llm.agent.model=collabsim/scripted",
        "llm.collaborator.model=collabsim/scripted", "tasks.n_tasks=2",
        f"tasks.root={tmp_path / 'suite'}", "team=all", "structure=default", "seeds=[0]",
        "run.max_concurrency=4", "run.progress=false", f"run.store={tmp_path / 'store'}",
        f"llm.cache_dir={tmp_path / 'cache'}", f"hydra.run.dir={out}",
    ])
    err = capfd.readouterr().err
    assert code == 2, err[-3000:]
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert "Traceback" not in err and "Logging error" not in err, err[-3000:]
    assert len(lines) == 1 and "No space left on device" in lines[0], lines
