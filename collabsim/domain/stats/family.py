"""Which analysis family a task belongs to: archaeology-style time series or statistics.

API (stable names): :data:`TIME_SERIES`, :data:`STATISTICAL`, :func:`family_of(brief)`.

A task is a time-series task when one of its tables declares a year column of the
time-series data (``CE``, ``BCE`` or ``calBP``: the archaeology records, the generated
suite) or when it has no table at all; every other task is statistical. The rule reads only
the column names of the brief's metadata, so the archaeology tasks and the generated suite
keep exactly the time-series path.
"""

from __future__ import annotations

from typing import Any

TIME_SERIES = "timeseries"
STATISTICAL = "stats"
#: Column names that mark a table of the time-series family.
YEAR_COLUMNS = frozenset({"CE", "BCE", "calBP"})


def family_of(brief: Any) -> str:
    """:data:`TIME_SERIES` or :data:`STATISTICAL` for a task brief (anything with
    ``datasets`` whose ``columns`` have a ``name``)."""
    datasets = getattr(brief, "datasets", ()) or ()
    if not datasets:
        return TIME_SERIES
    for info in datasets:
        if any(c.name.strip() in YEAR_COLUMNS for c in info.columns):
            return TIME_SERIES
    return STATISTICAL
