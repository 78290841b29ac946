"""``experiment=sensitivity`` runs its one-parameter-at-a-time sweep and writes the plot."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers.cli import collabsim_exit_code

from collabsim.participants.sensitivity import main


@pytest.mark.slow
def test_sensitivity_experiment_writes_table_and_plot(tmp_path: Path,
                                                      discoverybench_root: Path) -> None:
    sweep = tmp_path / "sweep"
    code = collabsim_exit_code(["run", "experiment=sensitivity",
                                f"tasks.root={discoverybench_root}", "tasks.ids=[archaeology/27/0]",
                                f"hydra.sweep.dir={sweep}", "run.show_sessions=false",
                                "run.progress=false", "~hydra/callbacks"], cwd=tmp_path)
    assert code == 0
    table = pd.read_csv(sweep / "sensitivity.csv")
    points = table.groupby("parameter")["value"].unique()
    assert sorted(points["d_error"]) == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    assert sorted(points["deference"]) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert sorted(points["patience"]) == [60.0, 120.0, 240.0, 480.0, 960.0]
    assert set(zip(table.structure, table.team, strict=True)) == {
        ("single", "single"), ("default", "DR"), ("scaffolded", "DR")}
    png = (sweep / "sensitivity.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_sensitivity_plot_of_a_folder_without_jobs_is_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no sensitivity jobs" in err
    assert not (tmp_path / "sensitivity.png").exists()
