"""Tokens and dollars per session and seat in sessions.csv and the report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run
from collabsim.experiment.session_costs import cost_columns, cost_totals
from collabsim.llm import LLMClient, LLMSettings
from collabsim.llm.calllog import read_call_log
from collabsim.llm.pricing import price

# collabsim/scripted is free, but llm.prices comes first: a price makes the dollars visible
PRICES = {"collabsim/scripted": (1.5, 6.0)}


def job_cfg(tmp_path: Path, *overrides: str) -> dict:
    return compose_config([
        "tasks.n_tasks=1", f"tasks.root={tmp_path / 'suite'}", "team.compositions=[DR]",
        "structure.names=[default]", "seeds=[0]", f"run.store={tmp_path / 'store'}",
        "run.progress=false", f"llm.cache_dir={tmp_path / 'cache'}", *overrides])


@pytest.fixture(scope="module")
def llm_job(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("costs")
    cfg = job_cfg(tmp, "policy=llm", "+llm.prices={collabsim/scripted: [1.5, 6.0]}")
    return run(cfg, tmp / "out"), tmp


def test_sessions_csv_has_tokens_and_dollars_per_session_and_seat(llm_job) -> None:
    outcome, tmp = llm_job
    table = pd.read_csv(tmp / "out" / "sessions.csv")
    (log,) = (tmp / "store").rglob("llm_calls.jsonl")
    records = read_call_log(log)
    row = table.iloc[0]
    assert row["llm_calls"] == len(records) > 0 and row["llm_failed_calls"] == 0
    assert row["prompt_tokens"] == sum(r["prompt_tokens"] for r in records)
    assert row["completion_tokens"] == sum(r["completion_tokens"] for r in records)
    expected = sum(price(r["model"], r["prompt_tokens"], r["completion_tokens"], PRICES)[0]
                   for r in records)
    assert row["cost_usd"] == pytest.approx(expected, rel=1e-6) and expected > 0
    assert row["cost_unknown_calls"] == 0
    for seat in ("agent", "D", "R"):
        mine = [r for r in records if r["tag"] == seat]
        assert row[f"{seat}_calls"] == len(mine) > 0
        assert row[f"{seat}_prompt_tokens"] == sum(r["prompt_tokens"] for r in mine)
    assert row[["agent_cost_usd", "D_cost_usd", "R_cost_usd"]].sum() == pytest.approx(
        row["cost_usd"], rel=1e-6)
    assert "judge_calls" not in table  # no judge called: no judge columns
    assert f"Model use over 1 session(s): {len(records)} calls (0 failed)" in outcome.report
    assert f"${expected:.4f}" in outcome.report


def test_a_scripted_run_gets_no_cost_column(tmp_path: Path) -> None:
    outcome = run(job_cfg(tmp_path), tmp_path / "out")
    header = (tmp_path / "out" / "sessions.csv").read_text().splitlines()[0].split(",")
    assert not {"llm_calls", "cost_usd", "prompt_tokens"} & set(header)
    assert cost_totals(outcome.sessions) is None and "Model use" not in outcome.report


def test_judge_calls_count_in_the_judge_seat_and_unknown_prices_are_flagged(
    tmp_path: Path,
) -> None:
    session = tmp_path / "s1"
    judge = LLMClient().for_session(call_log_path=session / "judge.llm_calls.jsonl")
    agent = LLMClient().for_session(call_log_path=session / "llm_calls.jsonl")
    ask = [{"role": "user", "content": "Score it."}]
    judge.complete_sync(ask, LLMSettings(model="gpt-4o-mini",
                                         extra={"mock_response": "{}"}), tag="judge")
    judge.complete_sync(ask, LLMSettings(model="gpt-4o-mini", extra={"mock_response": "{}"}),
                        tag="initiative-judge")
    agent.complete_sync(ask, LLMSettings(model="openai/lab-model-7b",
                                         extra={"mock_response": "FINISH()"}), tag="agent")
    table = cost_columns([session, tmp_path / "no-such-session"])
    assert table is not None
    assert list(table["judge_calls"]) == [2, 0] and list(table["agent_calls"]) == [1, 0]
    assert table.loc[0, "judge_cost_usd"] > 0 and table.loc[0, "agent_cost_usd"] == 0
    assert list(table["cost_unknown_calls"]) == [1, 0]
    totals = cost_totals(table)
    assert totals is not None and totals["llm_calls"] == 3
    assert totals["seats"]["judge"]["calls"] == 2


def test_an_llm_judge_scoped_to_a_session_is_counted_in_its_judge_seat(tmp_path: Path) -> None:
    from collabsim.metrics.judge_llm import LLMJudge

    reply = ('{"context": 1, "relation": 1, "gold_variables": ["x"], "submitted_variables": '
             '["x"], "matched_gold_variables": ["x"], "matched_submitted_variables": ["x"]}')
    judge = LLMJudge(LLMSettings(model="gpt-4o-mini", extra={"mock_response": reply}),
                     LLMClient())
    score = judge.for_session(tmp_path / "s1").score("x rose", "x rose")
    table = cost_columns([tmp_path / "s1"])
    assert score.performance == 1.0 and table is not None
    assert table.loc[0, "judge_calls"] == 1 and table.loc[0, "judge_cost_usd"] > 0
