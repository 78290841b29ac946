"""A collaborator deferring outside its area voices only the issues its own area decides."""

from __future__ import annotations

from collabsim.participants.claims import Issue
from collabsim.participants.deference import in_area, voiced
from collabsim.participants.human import HumanModel
from collabsim.participants.team import load_profile

COLUMN = Issue("wrong_column_variant", "use the interpolated column", (("column", "a_inter"),))
PERIOD = Issue("wrong_window", "the era is 1000-1500", (("window", "1000,1500"),))
YEAR = Issue("wrong_year", "I get 1200", (("column", "a_inter"), ("ordinal", "2"),
                                           ("relation", "peak"), ("window", "")))


def _person(key: str, object_outside: float) -> HumanModel:
    return HumanModel.from_params({**load_profile(key).params, "object_outside": object_outside})


def test_an_issues_area_is_that_of_the_settings_its_fix_names() -> None:
    d, r = _person("D", 0.0), _person("R", 0.0)
    assert in_area(COLUMN, d) and not in_area(COLUMN, r)
    # a bounded period is a reading (R's), although a wrong window is a computation mistake
    assert in_area(PERIOD, r) and not in_area(PERIOD, d)
    # a year recomputed under my whole reading is not mine alone to correct
    assert not in_area(YEAR, d)


def test_deferring_keeps_only_the_own_areas_issues_and_the_default_keeps_all() -> None:
    found = (COLUMN, PERIOD, YEAR)
    never = lambda: 0.0  # noqa: E731 - a draw that would always keep everything
    assert voiced(found, _person("D", 1.0), never) == found
    assert voiced(found, _person("D", 0.0), never) == (COLUMN,)
    assert voiced(found, _person("R", 0.0), never) == (PERIOD,)
    assert voiced(found, _person("D", 0.5), lambda: 0.4) == found
    assert voiced(found, _person("D", 0.5), lambda: 0.6) == (COLUMN,)
