"""A job's settings are validated once (issue 22, item 3): ``collabsim run`` validates every
job of its command line before Hydra writes anything, and the job Hydra then runs takes
those validated settings instead of validating its config again."""

from __future__ import annotations

from typing import Any

import hydra
import pytest

from collabsim.cli.run_app import compose_config, main_with_args
from collabsim.experiment.settings import JobSettings


@pytest.fixture
def validations(monkeypatch) -> list[dict[str, Any]]:
    """Every configuration validated against the job schema, in order."""
    seen: list[dict[str, Any]] = []
    real = JobSettings.model_validate.__func__

    def counted(cls, obj, *args, **kwargs):
        seen.append(obj)
        return real(cls, obj, *args, **kwargs)

    monkeypatch.setattr(JobSettings, "model_validate", classmethod(counted))
    return seen


def _args(tmp_path) -> list[str]:
    return ["tasks.n_tasks=2", f"tasks.root={tmp_path / 'suite'}", "tasks.limit=1", "seeds=[0]",
            "run.progress=false", "run.show_sessions=false"]


def test_a_run_validates_its_job_once(tmp_path, validations, capsys):
    job = tmp_path / "job"
    assert main_with_args([*_args(tmp_path), "team=single", f"hydra.run.dir={job}"]) == 0
    assert "1 sessions run" in capsys.readouterr().out
    assert len(validations) == 1
    assert (job / "sessions.csv").is_file()


def test_a_run_composes_the_packaged_configs_once_before_hydra(tmp_path, validations, capsys,
                                                             monkeypatch):
    """The config read for the run mode and launcher (``hydra`` node included) is also the
    job's config: composed once, validated as :func:`compose_config` composes it."""
    composed = []
    real = hydra.compose

    def counted(*args, **kwargs):
        composed.append(kwargs.get("overrides"))
        return real(*args, **kwargs)

    monkeypatch.setattr(hydra, "compose", counted)
    args = [*_args(tmp_path), "team=D", "structure=scaffolded", "run.max_turns=30"]
    assert main_with_args([*args, f"hydra.run.dir={tmp_path / 'job'}"]) == 0
    capsys.readouterr()
    assert len(composed) == 1
    monkeypatch.setattr(hydra, "compose", real)
    assert validations[0] == compose_config([*args, f"hydra.run.dir={tmp_path / 'job'}"])


def test_each_job_of_a_sweep_is_validated_once(tmp_path, validations, capsys):
    sweep = tmp_path / "sweep"
    args = ["-m", *_args(tmp_path), "team=single,D", "structure=default",
            f"hydra.sweep.dir={sweep}"]
    assert main_with_args(args) == 0
    capsys.readouterr()
    teams = sorted(v["team"]["compositions"][0] for v in validations)
    assert teams == ["D", "single"]
    assert len(list(sweep.glob("*/sessions.csv"))) == 2


def test_a_bad_setting_is_still_refused_before_anything_is_written(tmp_path, validations,
                                                                   capsys):
    job = tmp_path / "job"
    code = main_with_args([*_args(tmp_path), "run.max_concurrency=0", f"hydra.run.dir={job}"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "run.max_concurrency" in err[0]
    assert len(validations) == 1
    assert not job.exists()
