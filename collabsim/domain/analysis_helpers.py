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
from pathlib import Path

import numpy as np
import pandas as pd

from collabsim.domain import tables
from collabsim.domain.tables import read_table
from collabsim.domain.thresholds import BIN_YEARS

__all__ = ["clear_tables", "onsets", "preload_binned", "read_table", "table", "year_bins"]

#: Binned tables of this process (one sandbox worker = one session), keyed by file identity.
_TABLES: dict[tuple[str, int, int], pd.DataFrame] = {}
#: Binned tables made in the sandbox's fork server before it forks (and by a reused worker on
#: its first read of a file), keyed by file content; never handed out themselves:
#: :func:`table` gives each session a copy.
_PREBINNED: dict[bytes, pd.DataFrame] = {}
#: Tables a worker adds to ``_PREBINNED`` from its own reads (see ``_keep_pristine``).
MAX_PRISTINE_TABLES = 256


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
        # the file's bytes, read once: the key of the pre-binned and the pristine tables
        raw = _read_bytes(path) if _PREBINNED or df is None else None
        binned = _prebinned(raw, df) if _PREBINNED and raw is not None else None
        if binned is None:
            binned = year_bins(read_table(path) if df is None else df)
            if df is None and raw is not None:
                _keep_pristine(raw, binned)
        _TABLES[key] = binned
    return _TABLES[key]


def _read_bytes(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _keep_pristine(raw: bytes, binned: pd.DataFrame) -> None:
    """Keep an untouched copy of a file's binned table for this worker's later sessions.

    A reused sandbox worker (:mod:`collabsim.sandbox.pool`) forgets its tables between
    sessions (a cell may have changed them); with this copy the next session of the same
    file copies the table instead of reading and binning it again (~9 ms per session) - for
    files nobody preloaded in the fork server (jobs and gym envs preload their task files).
    """
    if len(_PREBINNED) < MAX_PRISTINE_TABLES:
        _PREBINNED.setdefault(raw, binned.copy())


def preload_binned(paths: list[str] | tuple[str, ...]) -> None:
    """Read and bin data files once, before the sandbox's fork server forks its workers.

    A session's first :func:`table` of a file with the same bytes (given no table, or the
    file's unchanged table) then copies the binned table instead of binning it again:
    binning costs a session's sandbox about as much as reading the file. Files that cannot be read
    or parsed are skipped (the cell reports the error when it reads them).
    """
    for item in paths:
        try:
            raw = Path(item).read_bytes()
            if raw not in _PREBINNED:
                df = read_table(item)
                _PREBINNED[raw] = year_bins(df)
                _same_frame(df, df)  # warms the comparison a worker's first table() makes
        except (OSError, ValueError, KeyError, TypeError):
            continue


def _prebinned(raw: bytes, df: pd.DataFrame | None) -> pd.DataFrame | None:
    """The pre-binned table of a file's bytes ``raw``, when binning ``df`` would give the same."""
    binned = _PREBINNED.get(raw)
    if binned is None:
        return None
    if df is not None:
        parsed = tables.preloaded(raw)
        if parsed is None or not _same_frame(df, parsed):
            return None  # not the file's table as read (e.g. the cell changed it)
    return binned.copy()


def _same_frame(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two tables are equal in labels, dtypes and every value bit (``-0.0`` too)."""
    if not (a.columns.equals(b.columns) and a.columns.dtype == b.columns.dtype
            and a.index.equals(b.index) and a.index.dtype == b.index.dtype
            and a.dtypes.equals(b.dtypes) and a.equals(b)):
        return False
    for i, dtype in enumerate(a.dtypes):
        if dtype.kind == "f" and not np.array_equal(
                np.signbit(a.iloc[:, i].to_numpy()), np.signbit(b.iloc[:, i].to_numpy())):
            return False
    return True


def clear_tables() -> None:
    """Forget every binned table (the sandbox warm-up calls it before forking workers)."""
    _TABLES.clear()


def onsets(flag: pd.Series) -> list[int]:
    """Years where a boolean series turns true (true now, false or absent one bin before)."""
    before = flag.shift(1, fill_value=False)
    return [int(y) for y, now, prev in zip(flag.index, flag, before, strict=True)
            if now and not prev]
