"""The compute-stats cell on tiny hand-built tables: values, notes for bad data, parsing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
from helpers.executors import run_cell

from collabsim.domain.stats.cell import (
    STATS_MARK,
    parse_stats_result,
    plan_of_cell,
    stats_cell,
    stats_inspect_cell,
)
from collabsim.domain.stats.model import StatPlan, StatResult


def _run(tmp_path: Path, frame: pd.DataFrame, plan: StatPlan, name: str = "t.csv"
         ) -> StatResult:
    path = tmp_path / name
    if name.endswith(".dta"):
        frame.to_stata(path, write_index=False)
    else:
        frame.to_csv(path, index=False)
    output = run_cell(stats_cell(plan), tmp_path)
    assert output.count("RESULT-STATS ") == 1, output
    result = parse_stats_result(output)
    assert result is not None
    return result


LINE = pd.DataFrame({"x": [1, 2, 3, 4, 5], "y": [2, 4, 5, 4, 5]})


def test_ols_slope_and_p_value_by_hand(tmp_path: Path) -> None:
    # slope = Sxy / Sxx = 6 / 10; SSE = 2.4, s^2 = 0.8, SE = sqrt(0.08), t = 2.1213, df = 3
    result = _run(tmp_path, LINE, StatPlan("t.csv", "y", ("x",)))
    (effect,) = result.effects
    assert (result.analysis, result.n, effect.variable) == ("ols", 5, "x")
    assert math.isclose(effect.estimate, 0.6, rel_tol=1e-6)
    assert math.isclose(effect.p_value, 0.1240, abs_tol=5e-4)
    half = 3.182446 * math.sqrt(0.08)  # t(0.975, 3) * SE
    assert math.isclose(effect.ci_low, 0.6 - half, abs_tol=1e-4)
    assert not effect.significant()


def test_group_difference_and_filters_on_text_columns(tmp_path: Path) -> None:
    frame = pd.DataFrame({"bmi": [20, 22, 24, 30, 32, 34, 99, 99],
                          "smoker": ["no", "no", "no", "yes", "yes", "yes", "yes", "no"],
                          "sex": ["MALE"] * 6 + ["FEMALE"] * 2})
    plan = StatPlan("t.csv", "bmi", ("smoker",), filters=(("sex", "==", "male"),),
                    analysis="ttest")
    result = _run(tmp_path, frame, plan)
    (effect,) = result.effects
    # yes/no is read as 1/0: mean(1) - mean(0) = 32 - 22 on the 6 male rows
    assert result.n == 6
    assert effect.variable == "smoker=1.0"
    assert math.isclose(effect.estimate, 10.0)
    assert effect.significant()


def test_logit_of_a_binary_target_and_a_stata_file(tmp_path: Path) -> None:
    frame = pd.DataFrame({"age": [20, 22, 25, 27, 30, 32, 35, 38, 40, 45],
                          "dissaved": [1, 1, 1, 0, 1, 0, 1, 0, 0, 0]})
    result = _run(tmp_path, frame, StatPlan("t.dta", "dissaved", ("age",), analysis="logit"),
                  name="t.dta")
    (effect,) = result.effects
    assert result.analysis == "logit"
    assert effect.estimate < 0  # older -> less likely


def test_correlation_by_hand(tmp_path: Path) -> None:
    # r = Sxy / sqrt(Sxx Syy) = 6 / sqrt(10 * 6) = 0.7746
    result = _run(tmp_path, LINE, StatPlan("t.csv", "y", ("x",), analysis="correlation"))
    assert math.isclose(result.effects[0].estimate, 6 / math.sqrt(60), rel_tol=1e-5)


def test_a_proportion_has_a_seeded_bootstrap_interval(tmp_path: Path) -> None:
    frame = pd.DataFrame({"obese": [1, 0, 0, 1, 0, 0, 0, 1, 0, 0]})
    plan = StatPlan("t.csv", "obese", (), analysis="proportion")
    first, again = _run(tmp_path, frame, plan), _run(tmp_path, frame, plan)
    (effect,) = first.effects
    assert math.isclose(effect.estimate, 0.3)
    assert effect.ci_low < 0.3 < effect.ci_high
    assert first == again


def test_bad_data_gives_a_noted_result_never_a_traceback(tmp_path: Path) -> None:
    missing = _run(tmp_path, LINE, StatPlan("t.csv", "y", ("income",)))
    assert missing.effects == () and "not in the data: income" in missing.note
    empty = _run(tmp_path, pd.DataFrame({"x": [1, 2, 3], "y": [None, None, None]}),
                 StatPlan("t.csv", "y", ("x",)))
    assert empty.effects == () and "has no values" in empty.note
    one_row = _run(tmp_path, pd.DataFrame({"x": [1], "y": [2]}), StatPlan("t.csv", "y", ("x",)))
    assert one_row.effects == () and "only 1 complete rows" in one_row.note
    no_file = parse_stats_result(run_cell(stats_cell(StatPlan("nope.csv", "y", ("x",))),
                                          tmp_path))
    assert no_file is not None and no_file.effects == () and no_file.note


def test_a_constant_target_is_reported_as_such(tmp_path: Path) -> None:
    result = _run(tmp_path, pd.DataFrame({"x": [1, 2, 3, 4], "y": [7, 7, 7, 7]}),
                  StatPlan("t.csv", "y", ("x",)))
    assert result.analysis == "summary"
    assert result.note == "target constant: y is 7 in all 4 rows"


def test_the_cell_states_its_plan_and_parsing_is_strict() -> None:
    plan = StatPlan("a.csv", "y", ("x", "z"), ("c",), (("g", "==", "1"),), "logit", "z")
    code = stats_cell(plan)
    assert code.startswith(STATS_MARK)
    assert plan_of_cell(code) == plan
    assert plan_of_cell(stats_inspect_cell(plan)) == plan
    assert plan_of_cell("# collabsim analysis: compute\nPLAN = 'x'") is None
    assert parse_stats_result("no result here") is None
    assert parse_stats_result("RESULT-STATS {not json") is None
    good = StatResult("ols", "y", ("x",), n=3)
    assert parse_stats_result(f"noise\nRESULT-STATS {good.to_json()}\n") == good
    assert json.loads(good.to_json())["n"] == 3


def test_wide_tables_are_melted_and_joined_by_year(tmp_path: Path) -> None:
    """World Bank layout: one file per indicator, a column per year; the plan joins two
    indicators on group and year (file names may contain '+')."""
    years = [f"{y} [YR{y}]" for y in range(2000, 2006)]
    spend = pd.DataFrame([["Low", "L", *[1, 2, 3, 4, 5, 6]], ["High", "H", *[2, 2, 2, 2, 2, 2]]],
                         columns=["Country Group", "Country Code", *years])
    gdp = pd.DataFrame([["Low", "L", *[10, 21, 29, 41, 50, 61]],
                        ["High", "H", *[70, 70, 70, 70, 70, 70]]],
                       columns=["Country Group", "Country Code", *years])
    spend.to_csv(tmp_path / "spend_15+.csv", index=False)
    gdp.to_csv(tmp_path / "gdp.csv", index=False)
    plan = StatPlan("gdp.csv|spend_15+.csv", "gdp", ("spend_15+",),
                    filters=(("Country Group", "==", "Low"),))
    result = parse_stats_result(run_cell(stats_cell(plan), tmp_path))
    assert result is not None and result.n == 6, result
    (effect,) = result.effects
    assert math.isclose(effect.estimate, 10.0, rel_tol=0.02)  # gdp ~ 10 x spend in Low


def test_anova_of_a_text_outcome_reports_the_predictor(tmp_path: Path) -> None:
    frame = pd.DataFrame({"events": [1, 2, 3, 20, 22, 24, 9, 10, 11],
                          "skill": ["low"] * 3 + ["high"] * 3 + ["mid"] * 3})
    result = _run(tmp_path, frame, StatPlan("t.csv", "skill", ("events",), analysis="anova"))
    assert result.analysis == "anova"
    assert [e.variable for e in result.effects] == ["events", "skill=high", "skill=low",
                                                     "skill=mid"]
    assert math.isclose(result.effects[1].estimate, 22.0)
    assert result.effects[0].significant()


def test_a_population_with_no_rows_is_named(tmp_path: Path) -> None:
    result = _run(tmp_path, LINE, StatPlan("t.csv", "y", ("x",), filters=(("x", ">", "10"),)))
    assert result.effects == () and result.note == "ValueError: no rows where x > 10"


def test_a_repeated_plan_prints_the_same_line_and_new_data_a_new_one(tmp_path: Path) -> None:
    # A worker remembers each (plan, file bytes) result: the same plan on the same bytes
    # prints the same characters; other bytes under the same file name are fitted anew.
    plan = StatPlan("t.csv", "y", ("x",))
    first = _run(tmp_path, LINE, plan)
    again = _run(tmp_path, LINE, plan)
    assert again == first
    steeper = _run(tmp_path, LINE.assign(y=LINE["y"] * 2), plan)
    assert math.isclose(steeper.effects[0].estimate, 1.2, rel_tol=1e-6)  # 2 * 0.6


def test_tables_with_no_shared_column_are_never_paired_by_row(tmp_path: Path) -> None:
    pd.DataFrame({"x": [1, 2, 3, 4], "y": [2, 4, 6, 8]}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"z": [4, 3, 2, 1]}).to_csv(tmp_path / "b.csv", index=False)
    result = parse_stats_result(run_cell(stats_cell(StatPlan("a.csv|b.csv", "y", ("z",))),
                                         tmp_path))
    assert result is not None and result.effects == ()
    assert "b.csv shares no column with the tables before it" in result.note
