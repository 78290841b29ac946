"""Unscored statuses (issue 37, point 2): every status of ``UNSCORED_STATUSES`` is handled
the way ``infra_error`` always was; ``loop`` and ``error`` stay scored.

No metrics (pipeline), no aggregate, no paired difference, never reused from the store, not
retried within the job, counted by status in the run's summary.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import replace

import pandas as pd
import pytest

from collabsim.cli.run_app import compose_config
from collabsim.core.errors import BUDGET_EXCEEDED, LOOP, PROVIDER_ERROR
from collabsim.experiment.job import plan_job, run
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.runner import RunSummary
from collabsim.experiment.store import ResultStore
from collabsim.metrics.pipeline import session_metrics
from collabsim.reporting.paired import paired_differences
from collabsim.reporting.tables import aggregate
from collabsim.session.results import INFRA_ERROR, UNSCORED_STATUSES, read_result

SCORED = ("finished", "max_turns", "timeout", LOOP, "error")


def _result(status: str) -> dict:
    return {"task_id": "t", "team": "single", "structure": "single", "seed": 0,
            "policy": "llm", "status": status, "submitted_hypothesis": "x rises"}


@pytest.mark.parametrize("status", sorted(UNSCORED_STATUSES))
def test_an_unscored_session_gets_no_metrics(status):
    row = session_metrics(_result(status), [])
    assert row["status"] == status
    assert all(math.isnan(row[m]) for m in ("W_total", "M_team", "Performance", "C_wf"))


@pytest.mark.parametrize("status", SCORED)
def test_loop_and_error_are_scored(status):
    assert session_metrics(_result(status), [])["W_total"] == 0


def _sessions(rows):
    return pd.DataFrame(rows, columns=["task_id", "seed", "structure", "team", "status",
                                       "Performance"])


def test_aggregates_and_paired_differences_leave_unscored_sessions_out():
    # A table as an older build wrote it: the failed sessions carry a Performance of 0.
    rows = []
    for task in ("a", "b"):
        for seed in (0, 1):
            rows.append((task, seed, "default", "DR", "finished", 1.0))
            failed = seed == 1
            rows.append((task, seed, "scaffolded", "DR",
                         PROVIDER_ERROR if failed else "finished", 0.0 if failed else 1.0))
    rows.append(("a", 2, "default", "DR", BUDGET_EXCEEDED, 0.0))
    rows.append(("a", 2, "scaffolded", "DR", LOOP, 0.5))
    sessions = _sessions(rows)
    agg = aggregate(sessions).set_index("structure")
    assert agg.loc["default", "n_sessions"] == 4 and agg.loc["scaffolded", "n_sessions"] == 3
    assert agg.loc["scaffolded", "Performance_mean"] == pytest.approx((0.75 + 1.0) / 2)
    deltas = paired_differences(sessions, ["structure", "team"], {"structure": "default"})
    # the failures pair with nothing: no "scaffolded effect" made of them
    assert list(deltas["n_pairs"]) == [2] and list(deltas["delta"]) == [0.0]


def test_the_summary_counts_unscored_sessions_by_status():
    statuses = ("finished", LOOP, PROVIDER_ERROR, PROVIDER_ERROR, BUDGET_EXCEEDED, INFRA_ERROR)

    class Result:
        def __init__(self, status):
            self.status = status

    summary = RunSummary(results=tuple(Result(s) for s in statuses), ran=6, reused=0)
    assert summary.unscored == {BUDGET_EXCEEDED: 1, INFRA_ERROR: 1, PROVIDER_ERROR: 2}
    assert summary.status_note() == (
        "6 sessions: 2 scored, 1 budget_exceeded, 1 infra_error, 2 provider_error (not "
        "scored, left out of every table; rerun on resume)")
    assert RunSummary(results=(Result(LOOP),), ran=1, reused=0).status_note() is None


def _small_cfg(tmp_path, *more):
    return compose_config([
        "tasks.n_tasks=2", f"tasks.root={tmp_path / 'suite'}", "team=single", "seeds=[0,1]",
        f"run.store={tmp_path / 'store'}", "run.progress=false", *more])


@pytest.mark.parametrize("status", [*sorted(UNSCORED_STATUSES), LOOP, "error"])
def test_the_store_never_reuses_an_unscored_session(tmp_path, caplog, status):
    cfg = _small_cfg(tmp_path)
    run(cfg, tmp_path / "out")
    store = ResultStore(tmp_path / "store")
    plan = plan_job(cfg).plans[0]
    # the session as it would be stored had it ended with `status`
    trace = store.trace_path(plan)
    lines = trace.read_text(encoding="utf-8").splitlines()
    end = json.loads(lines[-1])
    assert end["action_type"] == "SESSION_END"
    end["args"]["status"] = status
    trace.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n", encoding="utf-8")
    store.save(plan, replace(read_result(store.result_path(plan)), status=status))
    with caplog.at_level(logging.WARNING):
        loaded = store.load(plan)
    if status in UNSCORED_STATUSES:
        assert loaded is None
        assert f"status {status}, not scored; the session runs again" in caplog.text
    else:
        assert loaded is not None and loaded.status == status


def test_budget_stopped_sessions_are_unscored_not_retried_and_rerun(tmp_path, monkeypatch):
    builds = []
    real_build = ParticipantBuilder.build

    def counting(self, plan, config, session_dir):
        builds.append(plan.slug)
        return real_build(self, plan, config, session_dir)

    monkeypatch.setattr(ParticipantBuilder, "build", counting)
    # a budget too small for the first call: every session stops before it
    cfg = _small_cfg(tmp_path, "policy=llm", "llm.budget.max_tokens=10",
                     f"llm.cache_dir={tmp_path / 'cache'}")
    outcome = run(cfg, tmp_path / "out")
    assert set(outcome.sessions["status"]) == {BUDGET_EXCEEDED}
    assert outcome.summary.unscored == {BUDGET_EXCEEDED: 4}
    assert len(builds) == 4  # once each: a budget stop is not retried within the job
    assert outcome.sessions["Performance"].isna().all()
    assert outcome.aggregate.empty
    assert "4 with status budget_exceeded" in outcome.report
    # a report over a job whose sessions all stopped still builds, with empty tables
    from collabsim.experiment.sweep_report import build_report

    built = build_report([tmp_path / "out"], tmp_path / "report", views=None)
    assert built.aggregate.empty and built.deltas.empty
    # a rerun of the same job on the same store runs them all again
    again = run(cfg, tmp_path / "out2")
    assert (again.summary.ran, again.summary.reused) == (4, 0)
    assert len(builds) == 8
