"""A sandbox failure is not behaviour (issue 23, item 4): the session is retried once, then
stored as ``infra_error``, left out of every aggregate and counted in the run's summary; the
run exits with code 3 (issue 37: unscored sessions are not a clean run)."""

from __future__ import annotations

import json
import math

import pandas as pd

from collabsim.cli.errors import EXIT_UNSCORED
from collabsim.cli.run_app import main_with_args
from collabsim.experiment.store import ResultStore
from collabsim.sandbox import Sandbox
from collabsim.sandbox.forkserver import SandboxError


def _inject(monkeypatch, calls):
    """Every cell of task gen_001 fails in the sandbox; gen_002 only in its first run."""
    real = Sandbox.execute

    def execute(self, code):
        folders = {f.parent.name for f in self._files}
        calls.append(sorted(folders))
        if "gen_001" in folders:
            raise SandboxError("RecursionError: maximum recursion depth exceeded (injected)")
        if "gen_002" in folders and sum("gen_002" in c for c in calls) == 1:
            raise SandboxError("sandbox zygote did not start (injected)")
        return real(self, code)

    monkeypatch.setattr(Sandbox, "execute", execute)


def test_an_injected_sandbox_failure_is_infra_error_and_left_out_of_every_table(
        tmp_path, monkeypatch, capsys):
    calls: list[list[str]] = []
    _inject(monkeypatch, calls)
    job = tmp_path / "job"
    args = ["tasks.n_tasks=4", f"tasks.root={tmp_path / 'suite'}", "team=single", "seeds=[0]",
            "run.progress=false", f"hydra.run.dir={job}"]
    assert main_with_args(args) == EXIT_UNSCORED == 3
    out = capsys.readouterr().out
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("4 sessions run, 0 reused from the store; 4 sessions: 3 scored, "
                              "1 infra_error (not scored")

    sessions = pd.read_csv(job / "sessions.csv")
    status = dict(zip(sessions["task_id"], sessions["status"], strict=True))
    assert status["gen_001/0/0"] == "infra_error"
    assert status["gen_002/0/0"] != "infra_error"  # its retry ran normally
    failed = sessions[sessions["status"] == "infra_error"].iloc[0]
    assert math.isnan(failed["Performance"]) and math.isnan(failed["W_total"])
    scored = sessions[sessions["status"] != "infra_error"]
    aggregate = pd.read_csv(job / "aggregate.csv")
    assert list(aggregate["n_sessions"]) == [3] and list(aggregate["n_tasks"]) == [3]
    assert aggregate["Performance_mean"].iloc[0] == scored["Performance"].mean()
    report = (job / "report.txt").read_text()
    assert "infra_error 1" in report and "left out of every aggregate" in report

    store = ResultStore(job)
    folder = next(p for p in (job / "sessions").iterdir() if p.name.startswith("gen_001"))
    record = json.loads((folder / "result.json").read_text())
    assert record["status"] == "infra_error" and "RecursionError" in record["error"]

    # the sweep report over the job leaves it out of its tables too
    from collabsim.experiment.sweep_report import build_report

    built = build_report([job], tmp_path / "report", views=None)
    assert list(built.aggregate["n_sessions"]) == [3]
    assert "infra_error" in (tmp_path / "report" / "report.md").read_text()

    # a rerun on the same store runs the failed session again (nothing else)
    monkeypatch.undo()
    assert main_with_args([*args[:-1], f"run.store={job}", f"hydra.run.dir={tmp_path / 'j2'}"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith(
        "1 sessions run, 3 reused from the store, in")
    assert store is not None
