"""run.estimate=true: the run's calls, tokens and dollars before it starts; nothing written."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.estimate import estimate_run
from collabsim.experiment.job import run
from collabsim.experiment.settings import validate_job

PRICED = "+llm.prices={collabsim/scripted: [2.0, 8.0], openai/lab-model: [1.0, 4.0]}"


def overrides(tmp_path: Path, *more: str) -> list[str]:
    return ["policy=llm", "team=DR", "structure=default", "tasks.n_tasks=1",
            f"tasks.root={tmp_path / 'suite'}", "run.progress=false", PRICED, *more]


def test_the_estimate_of_an_offline_run_matches_what_the_run_then_uses(tmp_path: Path) -> None:
    settings = validate_job(compose_config(overrides(tmp_path, "run.estimate=true")))
    (agent, collaborator) = estimate_run(settings)
    real = run(compose_config(overrides(tmp_path, f"run.store={tmp_path / 'store'}",
                                        f"llm.cache_dir={tmp_path / 'cache'}")),
               tmp_path / "out")
    table = pd.read_csv(tmp_path / "out" / "sessions.csv")
    assert agent.calls == table["agent_calls"].sum()
    assert collaborator.calls == table["D_calls"].sum() + table["R_calls"].sum()
    assert agent.prompt_tokens == table["agent_prompt_tokens"].sum()
    assert agent.usd + collaborator.usd == pytest.approx(table["cost_usd"].sum(), rel=1e-6)
    assert agent.max_calls == 80 * 1 * 2 and collaborator.max_calls == 80 * 2 * 2
    assert agent.max_usd > agent.usd and real.summary.ran == 1


def test_the_estimate_prints_per_model_and_writes_nothing(tmp_path: Path, collabsim_cli) -> None:
    work, out, store = tmp_path / "work", tmp_path / "out", tmp_path / "store"
    work.mkdir()
    proc = collabsim_cli("run", *overrides(tmp_path, "llm.agent.model=openai/lab-model",
                                           "run.estimate=true", f"run.store={store}",
                                           f"hydra.run.dir={out}"), cwd=work)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    agent = next(line for line in lines if line.startswith("agent "))
    assert "openai/lab-model" in agent and agent.split()[2] == "1"  # one session
    assert any(line.startswith("collaborator collabsim/scripted") for line in lines)
    assert any(line.startswith("total expected $") for line in lines)
    assert not out.exists() and not store.exists() and list(work.iterdir()) == []
