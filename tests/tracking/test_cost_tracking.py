"""wandb gets each variant's model use as scalars (offline wandb, read back from its files)."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from tests.helpers.wandb_offline import offline_runs


def test_variant_runs_carry_calls_tokens_and_dollars_per_seat(tmp_path):
    out = tmp_path / "job"
    proc = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", "tracking=wandb", "policy=llm",
         "team=D", "structure=default", "tasks.limit=1", "run.progress=false",
         "+llm.prices={collabsim/scripted: [2.0, 8.0]}",
         f"hydra.run.dir={out}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
        env={**os.environ, "COLLABSIM_LLM_CACHE": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = pd.read_csv(out / "sessions.csv")
    (run,) = offline_runs(out / "wandb")
    summary = run.summary
    assert summary["cost/llm_calls"] == table["llm_calls"].sum() > 0
    assert summary["cost/prompt_tokens"] == table["prompt_tokens"].sum()
    assert summary["cost/usd"] == pytest.approx(table["cost_usd"].sum()) and summary["cost/usd"] > 0
    assert summary["cost/agent/calls"] == table["agent_calls"].sum()
    assert summary["cost/D/usd"] == pytest.approx(table["D_cost_usd"].sum())
    assert summary["cost/unknown_price_calls"] == 0
    assert summary["cost_usd"] == pytest.approx(table["cost_usd"].mean())
