"""The README "Findings" claims, recomputed from a fresh (smaller) archaeology run.

The README compares the scripted archaeology grid with the published table. This test reruns
every third archaeology task (13 tasks x 3 seeds, default and scaffolded, all teams, scripted,
default profiles) and asserts each direction exactly as the README states it - including the
ones that do NOT match the published study - so the README cannot drift from the model.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run

TASKS = "[" + ",".join(f"archaeology/{i}/0" for i in range(0, 38, 3)) + "]"


def _cells(sessions: pd.DataFrame) -> pd.DataFrame:
    """Mean over tasks of the seed-averaged Performance / H_init,norm per (structure, team)."""
    per_task = sessions.groupby(["structure", "team", "task_id"])[
        ["Performance", "H_init_norm"]].mean()
    return per_task.groupby(["structure", "team"]).mean()


@pytest.mark.slow
def test_findings_directions_hold_on_a_fresh_run(tmp_path: Path,
                                                 discoverybench_root: Path) -> None:
    cfg = compose_config([
        "experiment=archaeology",
        f"tasks.root={discoverybench_root}",
        f"tasks.ids={TASKS}",
        "structure=default_and_scaffolded",
        f"run.store={tmp_path / 'store'}",
        "run.progress=false",
        "run.show_sessions=false",
    ])
    sessions = run(cfg, tmp_path / "out").sessions
    assert len(sessions) == 13 * 3 * 7
    cells = _cells(sessions)
    perf = cells["Performance"]
    single = perf[("single", "single")]
    # README: "default DR at or below the single agent" (holds, as published)
    assert perf[("default", "DR")] <= single
    # README: no team in default beats the single agent
    assert all(perf[("default", t)] <= single for t in ("D", "R", "DR"))
    # README: "scaffolding does NOT recover the loss" (the published +0.03...+0.13 does not
    # hold): no scaffolded team gains more than 0.02 over default, none moves by 0.05
    for team in ("D", "R", "DR"):
        gain = perf[("scaffolded", team)] - perf[("default", team)]
        assert -0.05 < gain <= 0.02, (team, gain)
    # README: "H_init,norm rises under scaffolding" (holds in direction for every team; DR by
    # +0.13 on the grid, more than +0.05 on this subset; D and R by less than DR, +0.03 and
    # +0.03 on the grid, because their humans' lead-in already gives them much of the
    # initiative in default: 0.94 and 0.94 on the grid)
    h = cells["H_init_norm"]
    rises = {t: h[("scaffolded", t)] - h[("default", t)] for t in ("D", "R", "DR")}
    assert all(r > 0 for r in rises.values()), rises
    assert 0.05 <= rises["DR"] <= 0.5, rises
    assert rises["D"] < rises["DR"] and rises["R"] < rises["DR"], rises
    assert h[("default", "D")] > 0.85 and h[("default", "R")] > 0.85, h
    # README: Performance varies across seeds in team cells (SE > 0)
    by_seed = sessions[sessions.team != "single"].groupby(
        ["structure", "team", "seed"])["Performance"].mean()
    assert by_seed.groupby(["structure", "team"]).std().max() > 0
    # README: the team's hypothesis differs from the single agent's in 30.7 % of the grid's
    # pairs; on this subset (default and scaffolded only) in 20-40 % (27 %), more often under
    # scaffolding than in default
    solo = sessions[sessions.team == "single"].set_index(["task_id", "seed"]).hypothesis
    teams = sessions[sessions.team != "single"]
    differs = pd.Series([h != solo[(t, s)] for t, s, h in zip(
        teams.task_id, teams.seed, teams.hypothesis, strict=True)], index=teams.index)
    assert 0.20 <= differs.mean() < 0.40, differs.mean()
    by_structure = differs.groupby(teams.structure).mean()
    assert by_structure["scaffolded"] > by_structure["default"]
    # README: most objections in default are wrong (the objected draft was at least as good)
    default = teams[teams.structure == "default"]
    assert default.objections.sum() > 0
    assert default.objections_wrong.sum() / default.objections.sum() >= 0.5
