"""The mistake model's map of what each kind changes agrees with the code that applies it."""

from __future__ import annotations

import dataclasses

import pytest

from collabsim.participants.plan import (
    MISTAKE_KINDS,
    MISTAKE_PARAMETER,
    AnalysisPlan,
    apply_mistakes,
    misread_semantics,
)
from collabsim.participants.query import QuerySemantics

# the plan field each parameter name of a fact or an issue's fix is
FIELD = {"column": "columns", "ordinal": "ordinal", "relation": "relation", "window": "window"}


def _plans() -> list[AnalysisPlan]:
    """Plans on which every kind has something to change."""
    base = AnalysisPlan("rise", "t.csv", ("Amber_inter",), ordinal=2, window=(-3000, -2000),
                        raw_columns=("Amber",))
    return [base, dataclasses.replace(base, relation="peak")]


def _changed(before: object, after: object) -> set[str]:
    return {f.name for f in dataclasses.fields(before)  # type: ignore[arg-type]
            if getattr(before, f.name) != getattr(after, f.name)}


@pytest.mark.parametrize("kind", MISTAKE_KINDS)
def test_each_kind_changes_exactly_the_parameter_the_map_names(kind: str) -> None:
    expected = {FIELD[MISTAKE_PARAMETER[kind]]} if kind in MISTAKE_PARAMETER else set()
    changed = set().union(*(_changed(p, apply_mistakes(p, [kind])) for p in _plans()))
    assert changed == expected
    for plan in _plans():
        semantics = QuerySemantics(plan.relation, ("amber",), ordinal=plan.ordinal,
                                   window=plan.window)
        # the reader's misreadings change the same parameter (semantics hold no columns)
        assert _changed(semantics, misread_semantics(semantics, [kind])) <= expected
