"""Metrics computed as each session ends equal the metrics computed after the run."""

from __future__ import annotations

import asyncio

import pandas as pd

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import plan_job, run
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.results_table import summarise
from collabsim.experiment.runner import run_plans
from collabsim.experiment.session_configs import SessionConfigs
from collabsim.experiment.store import ResultStore


def _cfg(tmp_path):
    return compose_config([
        "tasks.n_tasks=2", "tasks.seed=5", f"tasks.root={tmp_path / 'suite'}",
        "team.compositions=[single,DR]", "structure=default_and_scaffolded", "seeds=[0]",
        "run.max_concurrency=3", f"run.store={tmp_path / 'store'}", "run.progress=false",
    ])


def test_rows_computed_during_the_run_equal_a_fresh_summary(tmp_path):
    cfg = _cfg(tmp_path)
    outcome = run(cfg, tmp_path / "out")
    assert outcome.phases["metrics_overlapped"] > 0  # rows were made while sessions ran
    job = plan_job(cfg)
    store = ResultStore(tmp_path / "store")
    results = [store.load(p) for p in job.plans]
    fresh, _, _ = summarise(job.plans, results, store, job.tasks)
    pd.testing.assert_frame_equal(outcome.sessions, fresh)
    written = pd.read_csv(tmp_path / "out" / "sessions.csv")
    assert list(written["task_id"]) == [p.task.task_id for p in job.plans]


def test_run_plans_reports_each_session_it_runs_once(tmp_path):
    cfg = _cfg(tmp_path)
    job = plan_job(cfg)
    store = ResultStore(tmp_path / "store")
    builder = ParticipantBuilder(job.settings)
    seen: list[int] = []

    def go():
        return asyncio.run(run_plans(job.plans, store, SessionConfigs(job.settings), builder.build,
                                     max_concurrency=2, progress=False,
                                     on_result=lambda i, r: seen.append(i)))

    first = go()
    assert sorted(seen) == list(range(len(job.plans))) and first.ran == len(job.plans)
    seen.clear()
    second = go()  # everything is stored now: nothing runs, nothing is reported
    assert seen == [] and second.reused == len(job.plans)
