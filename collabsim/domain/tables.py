"""The one table reader: CSV with decimal commas, ``;`` separators and cp1252 files, and
Stata ``.dta`` files.

DiscoveryBench files differ: ``capital.csv`` writes ``"-0,44"`` with a comma separator, some
files use ``;`` with decimal commas, some synth metadata and data are cp1252. The task
loader, the analysis helpers the sandbox imports and the sandbox warm-up all read tables
through :func:`read_table`.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd

DECIMAL_COMMA_RE = re.compile(r'"-?\d+,\d+(?:[eE][-+]?\d+)?"')
#: File name endings read as Stata files (:func:`pandas.read_stata`), not as text.
STATA_SUFFIXES = (".dta",)
#: How much of a file is inspected to detect its separator and decimal mark.
SNIFF_CHARS = 65536


class TableReadError(ValueError):
    """A table cannot be read or parsed.

    Attributes:
        path: The file.
        detail: What went wrong.
    """

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = Path(path)
        self.detail = detail


def decode_text(raw: bytes) -> str:
    """Decode a file's bytes: UTF-8 (BOM allowed), else cp1252 (undecodable bytes replaced)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def csv_dialect(text: str) -> tuple[str, str]:
    """``(separator, decimal mark)`` of CSV text, from its first line and first 64 KiB.

    A tab wins when the first line has more tabs than commas and semicolons (tab-separated
    files saved as ``.csv``, e.g. R's ``write.table``); ``;`` wins over ``,`` when the first
    line has more of them, and implies decimal commas; otherwise decimal commas are detected
    by quoted numbers such as ``"-0,44"``.
    """
    head = text[:SNIFF_CHARS]
    first_line = head.splitlines()[0] if head else ""
    tabs, semicolons, commas = (first_line.count(c) for c in ("\t", ";", ","))
    sep = "\t" if tabs > max(semicolons, commas) else ";" if semicolons > commas else ","
    decimal = "," if sep == ";" or DECIMAL_COMMA_RE.search(head) else "."
    return sep, decimal


#: Tables parsed before the sandbox's fork server forks its workers, keyed by file content.
_PRELOADED: dict[bytes, pd.DataFrame] = {}


def preload_tables(paths: list[str] | tuple[str, ...]) -> None:
    """Parse data files once so that :func:`read_table` of the same bytes is a copy.

    The sandbox's fork server calls it with the job's task files before forking workers:
    every session's first cell then copies the parsed table instead of parsing the CSV
    again. Files that cannot be read or parsed are skipped (the cell reports the error).
    """
    for item in paths:
        try:
            raw = Path(item).read_bytes()
            if raw not in _PRELOADED:
                _PRELOADED[raw] = _parse(Path(item), raw)
        except (OSError, TableReadError):
            continue


def preloaded(raw: bytes) -> pd.DataFrame | None:
    """The table parsed by :func:`preload_tables` from these bytes (shared: do not change it)."""
    return _PRELOADED.get(raw) if _PRELOADED else None


def is_stata(path: str | Path) -> bool:
    """Whether a data file is a Stata file (read with :func:`pandas.read_stata`)."""
    return str(path).lower().endswith(STATA_SUFFIXES)


def looks_stata(raw: bytes) -> bool:
    """Whether bytes are a Stata file by their header (format 117+ ``<stata_dta>``; formats
    113-115: version byte, byte order 1/2, file type 1) - for files read without their name,
    as the sandbox's fork server does."""
    return raw.startswith(b"<stata_dta>") or (
        raw[:1] in (b"\x71", b"\x72", b"\x73") and raw[1:2] in (b"\x01", b"\x02")
        and raw[2:3] == b"\x01")


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a CSV file with its detected separator, decimal mark and encoding (a Stata
    ``.dta`` file with :func:`pandas.read_stata`).

    Args:
        path: CSV or ``.dta`` file.

    Returns:
        The table; numeric columns are parsed with the detected decimal mark.

    Raises:
        TableReadError: The file is missing, unreadable or not parseable as CSV.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise TableReadError(path, f"cannot read data file: {err}") from err
    return table_from_bytes(path, raw)


def table_from_bytes(path: str | Path, raw: bytes) -> pd.DataFrame:
    """:func:`read_table` of bytes already read from ``path`` (the path names the format and
    the file in errors): a copy of the table :func:`preload_tables` parsed from the same
    bytes, or the bytes parsed now.

    Raises:
        TableReadError: The bytes are not parseable as CSV (or Stata).
    """
    preloaded = _PRELOADED.get(raw) if _PRELOADED else None
    if preloaded is not None:
        return preloaded.copy()
    return _parse(Path(path), raw)


def _parse(path: Path, raw: bytes) -> pd.DataFrame:
    if is_stata(path) or looks_stata(raw):
        try:
            return pd.read_stata(io.BytesIO(raw), convert_categoricals=False)
        except (ValueError, OSError, KeyError, IndexError) as err:
            raise TableReadError(path, f"cannot parse Stata file: {err}") from err
    text = decode_text(raw)
    sep, decimal = csv_dialect(text)
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, decimal=decimal)
    except (ValueError, pd.errors.ParserError) as err:
        raise TableReadError(path, f"cannot parse CSV: {err}") from err
