"""Failures are not results (issue 37, point 2): a model server that dies mid-run.

The loopback stand-in model server (:mod:`helpers.model_server`) answers ``FINISH()`` twice,
then hangs up on every request. The sessions whose calls fail end ``provider_error``:
``sessions.csv`` marks them, no aggregate, report table or paired difference counts them, the
summary line and the exit code say so, and a resume on the same store after the server is
back (same address) runs exactly those sessions.
"""

from __future__ import annotations

import math

import pandas as pd
from helpers import model_server as ms

from collabsim.cli.errors import EXIT_UNSCORED
from collabsim.cli.run_app import main_with_args
from collabsim.core.errors import PROVIDER_ERROR

FINISH = ms.well_formed(ms.action("FINISH"), "nothing to add.")


def _args(tmp_path, server: ms.StandInServer, job_dir, *more: str, seeds: str = "[0,1,2]",
          retries: int = 0) -> list[str]:
    return [
        "tasks.n_tasks=3", f"tasks.root={tmp_path / 'suite'}", "team=single", f"seeds={seeds}",
        "policy=llm", *ms.llm_overrides(server, model="openai/x", seats=("agent",)),
        f"llm.max_retries={retries}",
        "llm.cache_dir=null", "run.max_concurrency=1", "run.progress=false",
        f"hydra.run.dir={job_dir}", *more,
    ]


def test_a_server_dying_mid_run_leaves_unscored_sessions_that_a_resume_reruns(
        tmp_path, capsys, model_server):
    server = model_server(ms.sequence(FINISH, FINISH, then=ms.hang_up()))
    job = tmp_path / "job"
    code = main_with_args(_args(tmp_path, server, job))
    out = capsys.readouterr().out
    assert code == EXIT_UNSCORED == 3
    # 2 answered (the script), then one try per failed session: provider_error is not
    # retried in the job, so every request is another session's first call
    assert len(server.requests) == 9
    assert len({(r.params.get("seed"), r.prompt) for r in server.requests}) == 9
    summary = out.strip().splitlines()[-1]
    assert summary.startswith(
        "9 sessions run, 0 reused from the store; 9 sessions: 2 scored, 7 provider_error "
        "(not scored"), summary
    assert "rerun on resume" in summary
    # one console line per failed session, naming its status and why
    failed_lines = [line for line in out.splitlines()
                    if "[WARNING]" in line and "status provider_error" in line]
    assert len(failed_lines) == 7, out
    assert all("openai/x" in line and "not scored" in line for line in failed_lines)

    sessions = pd.read_csv(job / "sessions.csv")
    assert sorted(sessions["status"].value_counts().items()) == [
        ("finished", 2), (PROVIDER_ERROR, 7)]
    failed = sessions[sessions["status"] == PROVIDER_ERROR]
    assert failed["Performance"].isna().all() and failed["W_total"].isna().all()
    scored = sessions[sessions["status"] != PROVIDER_ERROR]
    aggregate = pd.read_csv(job / "aggregate.csv")
    assert list(aggregate["n_sessions"]) == [2]
    assert math.isclose(aggregate["Performance_mean"].iloc[0],
                        scored.groupby("task_id")["Performance"].mean().mean())
    report = (job / "report.txt").read_text()
    assert "provider_error 7" in report
    assert "7 with status provider_error (a model call failed after its retries)" in report

    # the report over the job leaves them out of its tables too
    from collabsim.experiment.sweep_report import build_report

    built = build_report([job], tmp_path / "report", views=None)
    assert list(built.aggregate["n_sessions"]) == [2]
    assert "7 with status provider_error" in (tmp_path / "report" / "report.md").read_text()

    # the server is back (same address): a resume runs exactly the 7 failed sessions
    port = server.port
    server.restart(ms.always(FINISH))
    assert server.port == port
    code = main_with_args(_args(tmp_path, server, tmp_path / "j2", f"run.store={job}"))
    assert code == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith(
        "7 sessions run, 2 reused from the store, in")
    assert len(server.of_life(1)) == 7  # one call per rerun session (each answers FINISH at once)
    again = pd.read_csv(tmp_path / "j2" / "sessions.csv")
    assert set(again["status"]) == {"finished"} and len(again) == 9
    assert list(pd.read_csv(tmp_path / "j2" / "aggregate.csv")["n_sessions"]) == [9]


def test_a_refused_key_is_not_retried_and_each_session_says_so_once(
        tmp_path, capsys, model_server):
    server = model_server(ms.always(ms.unauthorized()))
    job = tmp_path / "job"
    code = main_with_args(_args(tmp_path, server, job, seeds="[0]", retries=4))
    out = capsys.readouterr().out
    assert code == EXIT_UNSCORED
    assert len(server.requests) == 3  # one per session: an authentication error is not retried
    failed_lines = [line for line in out.splitlines()
                    if "[WARNING]" in line and "status provider_error" in line]
    assert len(failed_lines) == 3
    assert all("AuthenticationError" in line and "failed after 1 tries" in line
               for line in failed_lines)
    assert out.strip().splitlines()[-1].startswith(
        "3 sessions run, 0 reused from the store; 3 sessions: 0 scored, 3 provider_error")
    assert set(pd.read_csv(job / "sessions.csv")["status"]) == {PROVIDER_ERROR}
