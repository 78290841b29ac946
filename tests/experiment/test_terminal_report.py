"""What a run prints: the per-session table only for small runs (or when asked), one
spelling per metric column, and a one-line legend of the columns under the aggregate."""

from __future__ import annotations

import pytest
from helpers.cli import collabsim_exit_code

from collabsim.experiment import results_table

RUN = ["run", "team=D", "structure=default", "tasks.limit=2", "run.progress=false"]


def _printed(tmp_path, capfd, *extra: str) -> str:
    assert collabsim_exit_code([*RUN, *extra, f"hydra.run.dir={tmp_path / 'out'}"],
                               cwd=tmp_path) == 0
    return capfd.readouterr().out


def test_a_small_run_shows_its_sessions_in_the_aggregate_spelling(tmp_path, capfd):
    out = _printed(tmp_path, capfd)
    sessions = out.split("Sessions\n", 1)[1].split("\n\n", 1)[0]
    assert "H_init,norm" in sessions and "H_init_norm" not in out
    assert "H_init,norm (work)" in sessions and "H_init_work" not in out
    assert results_table.METRIC_LEGEND in out and "docs/metrics.md" in out


@pytest.mark.parametrize("setting, shown", [("auto", False), ("true", True)])
def test_a_large_run_shows_its_sessions_only_when_asked(tmp_path, capfd, monkeypatch,
                                                        setting, shown):
    monkeypatch.setattr(results_table, "SHOW_SESSIONS_UP_TO", 1)
    out = _printed(tmp_path, capfd, f"run.show_sessions={setting}")
    assert ("Sessions\n" in out) is shown
    assert "By structure and team" in out
