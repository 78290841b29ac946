"""The printed job report states how many of the collaborators' objections were wrong."""

from __future__ import annotations

import math

import pandas as pd

from collabsim.experiment.results_table import objection_summary


def test_objection_summary_counts_wrong_objections_per_structure() -> None:
    sessions = pd.DataFrame(
        {
            "structure": ["single", "default", "default", "scaffolded", "default"],
            "objections": [0, 3, 1, 2, math.nan],
            "objections_wrong": [0, 2, 1, 0, math.nan],
        }
    )
    text = objection_summary(sessions)
    assert text is not None
    lines = text.splitlines()[1:]
    # single has no objection: no line; the NaN session (no gold) is left out
    assert lines == ["  default: 4 objections, 3 wrong (75%)",
                     "  scaffolded: 2 objections, 0 wrong (0%)"]


def test_no_objection_summary_without_objections() -> None:
    sessions = pd.DataFrame({"structure": ["single"], "objections": [0], "objections_wrong": [0]})
    assert objection_summary(sessions) is None
    assert objection_summary(pd.DataFrame({"structure": ["single"]})) is None
