"""llm.prices and the refusal of llm.budget.max_usd for a model without a price."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.settings import SettingsError, validate_job

UNPRICED = "anthropic/claude-lab-preview"  # not in litellm's cost map


def llm_cfg(*overrides: str) -> dict:
    return compose_config(["policy=llm", *overrides])


def test_max_usd_with_an_unpriced_model_is_refused_naming_it_and_llm_prices() -> None:
    cfg = llm_cfg(f"llm.agent.model={UNPRICED}", "llm.budget.max_usd=0.5")
    with pytest.raises(SettingsError) as err:
        validate_job(cfg)
    message = str(err.value)
    assert "\n" not in message and message.startswith("llm.budget.max_usd: ")
    assert UNPRICED in message and "llm.prices" in message


def test_a_price_in_llm_prices_lets_the_budget_through_and_reaches_the_client() -> None:
    cfg = llm_cfg(f"llm.agent.model={UNPRICED}", "llm.budget.max_usd=0.5",
                  f"+llm.prices={{{UNPRICED}: [3.0, 15.0]}}")
    settings = validate_job(cfg)
    assert settings.llm is not None and settings.llm.prices == {UNPRICED: (3.0, 15.0)}
    client = ParticipantBuilder(settings)._root_client(settings.llm)
    assert client.prices == {UNPRICED: (3.0, 15.0)}
    assert client.for_session().prices == {UNPRICED: (3.0, 15.0)}


def test_priced_and_offline_models_and_unbudgeted_runs_need_no_table() -> None:
    validate_job(llm_cfg("llm.agent.model=gpt-4o-mini", "llm.budget.max_usd=0.5"))
    validate_job(llm_cfg("llm.budget.max_usd=0.5"))  # collabsim/scripted: free
    validate_job(llm_cfg(f"llm.agent.model={UNPRICED}"))  # no dollar budget: nothing to stop
    with pytest.raises(SettingsError, match=r"^llm.prices"):
        validate_job(llm_cfg(f"+llm.prices={{{UNPRICED}: [-1, 2]}}"))


def test_the_refusal_through_collabsim_run_is_exit_2_with_nothing_written(
    tmp_path: Path, collabsim_cli
) -> None:
    work, out, store = tmp_path / "work", tmp_path / "out", tmp_path / "store"
    work.mkdir()
    proc = collabsim_cli(
        "run", "policy=llm", f"llm.collaborator.model={UNPRICED}", "llm.budget.max_usd=1",
        "tasks.n_tasks=3", f"tasks.root={tmp_path / 'suite'}", f"run.store={store}",
        f"hydra.run.dir={out}", cwd=work)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("collabsim run: llm.budget.max_usd: ")
    assert UNPRICED in lines[0] and "llm.prices" in lines[0]
    assert not out.exists() and not store.exists() and list(work.iterdir()) == []
