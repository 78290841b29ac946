"""Neutralise spreadsheet formulas in the text cells of every CSV collabsim exports.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is evaluated
as a formula by spreadsheet programs (``=HYPERLINK("http://…","click")``, DDE payloads). A
model's hypothesis or a participant's chat message is free text and may start like that, so
every CSV writer passes its rows through :func:`safe_cell` / :func:`safe_frame`, which prefix
such text with a single quote (``'=HYPERLINK(…)``), the convention spreadsheets display as
literal text. Numbers (``int``/``float`` values, and text that parses as a plain number such
as ``-0.5``) and a lone ``-`` (the tables' "none" mark) are left as they are, so numeric
columns round-trip unchanged.

This module imports nothing from collabsim but pandas (lazily), so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat a cell as a formula."""


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula."""
    if (isinstance(value, str) and len(value) > 1 and value.startswith(FORMULA_LEADS)
            and not _is_number(value)):
        return "'" + value
    return value


def safe_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row (column -> value) with every text cell passed through :func:`safe_cell`."""
    return {key: safe_cell(value) for key, value in row.items()}


def safe_frame(frame: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells (and column names) are neutralised.

    Numeric, boolean and datetime columns are not touched; text and object columns are
    mapped cell by cell.
    """
    from pandas.api import types

    out = frame.copy()
    for column in out.columns:
        dtype = out[column].dtype
        if not (types.is_numeric_dtype(dtype) or types.is_bool_dtype(dtype)
                or types.is_datetime64_any_dtype(dtype)):
            out[column] = out[column].map(safe_cell)
    out.columns = [safe_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out
