"""Tracking at the edge: wandb runs are offline by default and grouped by sweep."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from collabsim.tracking import NullTracker, WandbTracker, make_tracker


class FakeRun:
    def __init__(self) -> None:
        self.logged: list[dict] = []
        self.finished = False

    def log(self, data: dict) -> None:
        self.logged.append(data)

    def finish(self) -> None:
        self.finished = True


@pytest.fixture()
def fake_wandb(monkeypatch):
    module = types.ModuleType("wandb")
    module.calls = []

    def init(**kwargs):
        module.calls.append(kwargs)
        module.run = FakeRun()
        return module.run

    module.init = init
    module.Table = lambda dataframe: ("table", len(dataframe))
    monkeypatch.setitem(sys.modules, "wandb", module)
    return module


@dataclass
class _Summary:
    ran: int = 3
    reused: int = 1


@dataclass
class _Outcome:
    sessions: pd.DataFrame
    aggregate: pd.DataFrame
    summary: _Summary
    wall_seconds: float = 1.5


def test_none_backend_is_a_no_op(tmp_path: Path):
    assert isinstance(make_tracker({"backend": "none"}, {}, tmp_path), NullTracker)


def test_unknown_backend_is_rejected(tmp_path: Path):
    with pytest.raises(ValueError, match="tracking.backend"):
        make_tracker({"backend": "mlflow"}, {}, tmp_path)


def test_wandb_run_is_offline_grouped_by_sweep_and_logs_both_tables(fake_wandb, tmp_path: Path):
    job_dir = tmp_path / "multirun" / "sweep-7" / "0"
    tracker = make_tracker({"backend": "wandb", "project": "p"}, {"seeds": [0]}, job_dir)
    assert isinstance(tracker, WandbTracker)
    (call,) = fake_wandb.calls
    assert call["mode"] == "offline" and call["group"] == "sweep-7" and call["project"] == "p"
    assert call["config"] == {"seeds": [0]}
    outcome = _Outcome(pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"b": [1]}), _Summary())
    tracker.log_job(outcome)
    tracker.close()
    (logged,) = fake_wandb.run.logged
    assert logged["sessions"] == ("table", 2) and logged["aggregate"] == ("table", 1)
    assert logged["sessions_run"] == 3 and logged["sessions_reused"] == 1
    assert fake_wandb.run.finished


def test_missing_wandb_gives_an_install_hint(monkeypatch, tmp_path: Path):
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(RuntimeError, match=r"pip install 'collabsim\[wandb\]'"):
        make_tracker({"backend": "wandb"}, {}, tmp_path)
