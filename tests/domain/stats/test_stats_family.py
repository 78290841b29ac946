"""Which family a task belongs to."""

from __future__ import annotations

from helpers_stats import NLS, Brief, Col, Data

from collabsim.domain.stats.family import STATISTICAL, TIME_SERIES, family_of


def test_year_columns_of_the_time_series_data_keep_the_time_series_family() -> None:
    series = Data("time_series_data.csv", (Col("CE"), Col("Dagger_inter")))
    capital = Data("capital.csv", (Col("BCE"), Col("ZDolch")))
    assert family_of(Brief("When did daggers rise?", (series,))) == TIME_SERIES
    assert family_of(Brief("q", (capital, NLS))) == TIME_SERIES
    assert family_of(Brief("q", ())) == TIME_SERIES
    assert family_of(Brief("How does age affect BMI?", (NLS,))) == STATISTICAL
