"""The expertise map's table, intervals and statements on hand-built sessions."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from collabsim.reporting.expertise_map import main, statements, table, wilson


def test_wilson_interval_matches_the_hand_computed_value() -> None:
    # p = 2/10, z = 1.959964: centre = 0.2 + 0.19207 = 0.39207; half = 1.959964 *
    # sqrt(0.016 + 0.0096037) = 0.31364; denominator 1.38415 -> [0.0567, 0.5098]
    low, high = wilson(2, 10)
    assert low == pytest.approx(0.0567, abs=1e-4)
    assert high == pytest.approx(0.5098, abs=1e-4)
    assert all(math.isnan(v) for v in wilson(0, 0))


def _sessions() -> pd.DataFrame:
    rows = []
    for knowledge, gain in (("everyone", 0.0), ("by_profile", 0.5)):
        for error, wrong in ((0.1, 0), (0.3, 1)):
            for task in ("t0", "t1", "t2", "t3"):
                rows.append([knowledge, error, task, 0, "single", "single", 0.4, None, None])
                # DR gains `gain` on every task; its 2 objections per session are wrong
                # `wrong` times
                rows.append([knowledge, error, task, 0, "DR", "default", 0.4 + gain, 2, wrong])
    return pd.DataFrame(rows, columns=["knowledge", "error", "task_id", "seed", "team",
                                       "structure", "Performance", "objections",
                                       "objections_wrong"])


def test_the_table_pairs_each_team_with_the_single_agent_of_its_job() -> None:
    cells = table(_sessions(), n_boot=200)
    assert len(cells) == 4
    by = cells.set_index(["knowledge", "error"])
    assert by.loc[("by_profile", 0.1), "delta"] == pytest.approx(0.5)
    assert by.loc[("by_profile", 0.1), "ci_low"] == pytest.approx(0.5)
    assert by.loc[("everyone", 0.3), "delta"] == pytest.approx(0.0)
    assert by.loc[("everyone", 0.1), "wrong_share"] == 0.0
    assert by.loc[("everyone", 0.3), "wrong_share"] == pytest.approx(0.5)
    assert by.loc[("everyone", 0.3), "objections"] == 8


def test_statements_say_where_teams_help_and_whether_wrong_objections_fall() -> None:
    lines = statements(table(_sessions(), n_boot=200))
    assert ("knowledge=by_profile: teams beat the single agent (95 % CI above 0) in 2 of 2 "
            "cells; they do worse (CI below 0) in 0.") in lines
    assert ("knowledge=everyone: teams beat the single agent (95 % CI above 0) in 0 of 2 "
            "cells; they do worse (CI below 0) in 0.") in lines
    assert any(line.startswith("  wrong objections DR default by error: 0.00 0.50; monotone; "
                               "trend +2.50 per unit error [") and line.endswith(
                                   "rises with the error") for line in lines), lines


def test_statements_name_a_cell_without_objections_to_compare() -> None:
    sessions = _sessions()
    sessions.loc[sessions["team"] == "DR", "objections"] = 0
    sessions.loc[(sessions["team"] == "DR") & (sessions["error"] == 0.3)
                 & (sessions["knowledge"] == "by_profile"), "objections"] = 2
    lines = statements(table(sessions, n_boot=200))
    i = lines.index("knowledge=by_profile: teams beat the single agent (95 % CI above 0) in "
                    "2 of 2 cells; they do worse (CI below 0) in 0.")
    assert "  wrong objections DR default by error: no objections at any error level" in (
        lines[:i])
    assert ("  wrong objections DR default by error: objections at one error level only "
            "(0.50 wrong)") in lines[i:]


def test_the_figure_is_drawn_when_a_team_raised_no_objection(tmp_path) -> None:
    from collabsim.reporting.expertise_map import plot

    sessions = _sessions()
    sessions.loc[sessions["team"] == "DR", "objections"] = 0
    cells = table(sessions, n_boot=200)
    assert cells["wrong_share"].isna().all()
    assert plot(cells, tmp_path / "map.png").stat().st_size > 10_000


def test_the_figure_is_drawn_when_every_objection_was_right(tmp_path) -> None:
    """A share of 0 has a Wilson interval whose lower end rounds just below or above 0;
    the figure must still be drawn (the archaeology map once failed on it)."""
    from collabsim.reporting.expertise_map import plot

    cells = table(_sessions(), n_boot=200)
    cells.loc[:, "wrong_share"] = 0.0
    cells.loc[:, "wrong_low"] = 1e-17
    png = plot(cells, tmp_path / "map.png")
    assert png.stat().st_size > 10_000


def test_a_sweep_without_the_single_agent_is_one_line_and_writes_nothing(tmp_path, capsys
                                                                         ) -> None:
    job = tmp_path / "0"
    (job / ".hydra").mkdir(parents=True)
    (job / ".hydra" / "config.yaml").write_text(
        "tasks: {knowledge: by_profile}\n"
        "team: {profiles: {D: {params: {error_in_area: 0.3}}, R: {params: {error_in_area: 0.3}}}}\n")
    sessions = _sessions()
    sessions = sessions[(sessions["team"] != "single") & (sessions["knowledge"] == "by_profile")
                        & (sessions["error"] == 0.3)]
    sessions.drop(columns=["knowledge", "error"]).to_csv(job / "sessions.csv", index=False)
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "team=single" in err[0] and "team=all" in err[0]
    assert not list(tmp_path.glob("expertise_map*"))
