"""Table helpers imported by analysis cells: century bins, per-session cache, onsets."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from collabsim.domain import analysis_helpers as helpers


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    helpers.clear_tables()


def test_bce_column_and_sub_century_rows_are_binned() -> None:
    df = pd.DataFrame({"BCE": [2300, 2250, 2200, 2200, 2100], "v": [1.0, 9.0, 2.0, 7.0, 3.0]})
    t = helpers.year_bins(df)
    # 50-year steps: only whole centuries stay; duplicate years keep their first row
    assert t.index.tolist() == [-2300, -2200, -2100]
    assert t["v"].tolist() == [1.0, 2.0, 3.0]


def test_ce_column_wins_and_rows_are_sorted() -> None:
    df = pd.DataFrame({"CE": [-100, -300, -200], "BCE": [100, 300, 200], "v": [3, 1, 2]})
    assert helpers.year_bins(df)["v"].tolist() == [1, 2, 3]


def test_table_is_cached_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("CE,v\n-200,1\n-100,2\n", encoding="utf-8")
    first = helpers.table(str(path))
    assert helpers.table(str(path)) is first
    path.write_text("CE,v\n-200,1\n-100,5\n0,6\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a new modification time even on coarse clocks
    assert helpers.table(str(path))["v"].tolist() == [1, 5, 6]


def test_onsets_are_the_starts_of_true_runs() -> None:
    flag = pd.Series([True, True, False, True, False, True], index=[-500, -400, -300, -200,
                                                                      -100, 0])
    assert helpers.onsets(flag) == [-500, -200, 0]
    assert helpers.onsets(pd.Series([False, False], index=[1, 2])) == []
