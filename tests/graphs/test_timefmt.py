"""Clock-time parsing and formatting for Kolab time fields."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collabsim.graphs.timefmt import (
    TimeFormatError,
    format_clock,
    format_intervals,
    parse_clock,
    parse_intervals,
)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("00:01:36", 96.0),
        ("1:00:00", 3600.0),
        ("1:06:04", 3964.0),
        ("01:36", 96.0),
        ("7:05", 425.0),
        ("60:54", 3654.0),  # MM:SS with minutes past the hour, as in the source
        ("75", 75.0),
        ("00:00:01.5", 1.5),
    ],
)
def test_parse_clock_formats(text: str, seconds: float) -> None:
    assert parse_clock(text) == seconds


@pytest.mark.parametrize("text", ["", "ab:cd", "1:2:3:4", "00:61:00", "01:75", "1.5:00"])
def test_parse_clock_rejects_garbage(text: str) -> None:
    with pytest.raises(TimeFormatError, match="clock|range|fractional"):
        parse_clock(text)


def test_parse_intervals_all_source_formats() -> None:
    assert parse_intervals("00:00:00-00:01:36") == ((0.0, 96.0),)
    assert parse_intervals("00:27-03:53") == ((27.0, 233.0),)
    assert parse_intervals("44:43-1:00:00") == ((2683.0, 3600.0),)
    assert parse_intervals("00:00:00\u201300:00:37") == ((0.0, 37.0),)  # en dash
    assert parse_intervals("06:52\u201307:50") == ((412.0, 470.0),)
    assert parse_intervals("00:25:00-00:45:00, 00:53:22-00:53:44") == (
        (1500.0, 2700.0),
        (3202.0, 3224.0),
    )
    mixed = "59:54-01:00:10, 01:00:20\u201301:01:00"
    assert parse_intervals(mixed) == ((3594.0, 3610.0), (3620.0, 3660.0))
    assert parse_intervals(["00:00:01-00:00:02", "00:00:03-00:00:04"]) == ((1, 2), (3, 4))
    assert parse_intervals("07:15-07:15") == ((435.0, 435.0),)
    assert parse_intervals(None) == ()
    assert parse_intervals("") == ()


def test_parse_intervals_error_names_the_range() -> None:
    with pytest.raises(TimeFormatError, match="12:xx"):
        parse_intervals("00:01-00:02, 12:xx-13:00")


def test_format_clock_whole_and_fractional() -> None:
    assert format_clock(0) == "00:00:00"
    assert format_clock(3964) == "01:06:04"
    assert format_clock(90061) == "25:01:01"
    assert format_clock(1.25) == "00:00:01.25"
    assert format_intervals([(0, 96), (100, 101.5)]) == "00:00:00-00:01:36, 00:01:40-00:01:41.5"
    with pytest.raises(ValueError):
        format_clock(-1)


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False).map(lambda x: round(x, 6)))
def test_format_parse_round_trip_is_exact(seconds: float) -> None:
    assert parse_clock(format_clock(seconds)) == seconds
