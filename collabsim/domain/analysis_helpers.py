"""Table helpers that analysis cells import inside the sandbox.

A scripted analysis cell starts with
``from collabsim.domain.analysis_helpers import onsets, table`` instead of pasting a prelude
of pandas code: :func:`table` reads a data file with the domain's CSV reader and bins it by
century, once per session; :func:`onsets` lists where a condition starts to hold. The
sandbox's fork server imports this module before it forks workers (a worker may not read
collabsim's source files), so importing it in a cell costs nothing; any cell, an LLM's
included, may use it.

Only pandas and the standard library are used: the module runs under the sandbox policy.
"""

from __future__ import annotations

import os

import pandas as pd

from collabsim.domain.tables import read_table
from collabsim.domain.thresholds import BIN_YEARS

__all__ = ["clear_tables", "onsets", "read_table", "table", "year_bins"]

#: Binned tables of this process (one sandbox worker = one session), keyed by file identity.
_TABLES: dict[tuple[str, int, int], pd.DataFrame] = {}


def year_bins(df: pd.DataFrame) -> pd.DataFrame:
    """Index a table by CE year (``CE`` column, else minus ``BCE``, else row number).

    Finer-than-century records keep only the rows on whole centuries; duplicate years keep
    their first row.

    Returns:
        The table sorted by year, indexed by the integer year.
    """
    if "CE" in df.columns:
        year = pd.to_numeric(df["CE"], errors="coerce")
    elif "BCE" in df.columns:
        year = -pd.to_numeric(df["BCE"], errors="coerce")
    else:
        year = pd.Series(range(len(df)), index=df.index, dtype=float)
    t = df.assign(_year=year).dropna(subset=["_year"])
    step = t["_year"].diff().abs().median()
    if step == step and step < BIN_YEARS:  # NaN-safe: a one-row table has no step
        t = t[t["_year"] % BIN_YEARS == 0]
    t = t.drop_duplicates("_year").sort_values("_year")
    t["_year"] = t["_year"].astype(int)
    return t.set_index("_year")


def table(path: str, df: pd.DataFrame | None = None) -> pd.DataFrame:
    """The binned table of a data file, read and binned once per session.

    Like a notebook's loaded frame: later cells reuse it; a changed file (other size or
    modification time) is read again.

    Args:
        path: Data file (relative to the sandbox's working directory).
        df: The file's already-read table, to bin instead of reading it again.
    """
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _TABLES:
        _TABLES[key] = year_bins(read_table(path) if df is None else df)
    return _TABLES[key]


def clear_tables() -> None:
    """Forget every binned table (the sandbox warm-up calls it before forking workers)."""
    _TABLES.clear()


def onsets(flag: pd.Series) -> list[int]:
    """Years where a boolean series turns true (true now, false or absent one bin before)."""
    before = flag.shift(1, fill_value=False)
    return [int(y) for y, now, prev in zip(flag.index, flag, before, strict=True)
            if now and not prev]
