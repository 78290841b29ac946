"""Whether a statistical task's data can answer its query: the checks made while loading.

A DiscoveryBench task of the statistical family
(:func:`~collabsim.domain.stats.family.family_of`) runs only when its data can answer its
query; otherwise it is a listed task problem (``task_problems.csv`` of a run, ``collabsim
tasks``), never a session with a score. The checks read the task's premise and data only -
the query, the metadata (columns, descriptions, facts) and the tables - never the gold
hypothesis, the reference workflow or an answer key. The query is read as the agent reads it
(:func:`~collabsim.domain.stats.choice.plan_for`, facts' settings applied).

API (stable names):

* :func:`table_problem(datasets)` - ``(index, message)`` when no data file of a metadata
  file is a table a statistical query can use (none parses with at least :data:`MIN_ROWS`
  data rows; a companion file that is no table beside a usable one is left to the
  analysis), else None;
* :func:`query_problems(task)` - why the data cannot answer a statistical task's query
  (empty: they can).

What the data cannot answer (each a problem):

* a column the metadata declares and the query names verbatim (``BMI``,
  ``num_unique_artifacts``) is not in the table;
* a column the reading uses (the target, a predictor, a control, a population filter, an
  interaction) is not in the data;
* the target has no value (every row missing), in the table or among the rows of the
  population the query asks about;
* the target has the same value in every row of the table while the query asks how it
  relates to other variables (a constant cannot vary with anything);
* no row belongs to the population the query asks about (``no row of data.csv has
  military_presence > 5000``); a label the data never uses (``project == Psychology``
  where the column names projects otherwise) is the reading's, not a problem of the data.

Legitimate findings, not problems: a target that is constant only within the asked
population ("every city with more than 5000 soldiers has a ruling dynasty" is an answer);
a constant predictor or control (the analysis leaves it out and says so); a query whose
reading finds no column (a limit of the reader, not of the data: the agent answers
cautiously); a query word that is no declared column (``BMI`` where the table has height
and weight: it is computed).

Tables are parsed once per file version (cached); wide year tables are checked in the long
form the statistical cell melts them into (:func:`~collabsim.domain.stats.columns.table_columns`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from collabsim.core.task import DatasetInfo
from collabsim.domain import tables as domain_tables
from collabsim.domain.stats.choice import plan_for
from collabsim.domain.stats.columns import WIDE_MIN_YEARS, YEAR_COLUMN_RE, wide_value_name
from collabsim.domain.stats.family import STATISTICAL, family_of
from collabsim.domain.stats.model import TABLE_SEPARATOR, Filter, StatPlan, format_filters
from collabsim.tasks.model import Task

__all__ = ["MIN_ROWS", "query_problems", "table_problem"]

#: The fewest data rows a table of a statistical task must have.
MIN_ROWS = 2
_OPS = {"==", "!=", ">", ">=", "<", "<="}


def table_problem(datasets: Sequence[DatasetInfo]) -> tuple[int, str] | None:
    """Why no query of a statistical metadata file can use its data: every data file has
    fewer than :data:`MIN_ROWS` rows or is no table (the first one's reason).

    Args:
        datasets: The metadata's tables, in order (their files exist and are text or Stata).

    Returns:
        ``(index in datasets, message)`` of the first unusable file, or None when one of the
        files is a usable table or the tables are of the time-series family (checked by the
        time-series path as before).
    """
    if family_of(_Datasets(tuple(datasets))) != STATISTICAL:
        return None
    first: tuple[int, str] | None = None
    for i, info in enumerate(datasets):
        st = Path(info.path).stat()
        rows = _rows(str(info.path), st.st_mtime_ns, st.st_size)
        if not isinstance(rows, str) and rows >= MIN_ROWS:
            # a companion file that is no table (a phylogenetic tree, a codebook) beside a
            # usable table is left to the analysis: the queries may need only the table
            return None
        if first is None:
            first = (i, f"{rows}: {info.path}" if isinstance(rows, str) else
                     f"data file has {'one data row' if rows == 1 else 'no data rows'}; a "
                     f"statistical analysis needs at least {MIN_ROWS}: {info.path}")
    return first


def query_problems(task: Task) -> list[str]:
    """Why a statistical task's data cannot answer its query (empty: they can, or the task
    is of the time-series family). Call after :func:`table_problem` passed."""
    if family_of(task) != STATISTICAL:
        return []
    versions = tuple((st.st_mtime_ns, st.st_size) for st in (
        Path(info.path).stat() for info in task.datasets))
    return list(_query_problems(task, versions))


@functools.lru_cache(maxsize=4096)
def _query_problems(task: Task, _versions: tuple[tuple[int, int], ...]) -> tuple[str, ...]:
    """:func:`query_problems` of a task and these versions of its data files (cached: a
    folder is loaded again by each command, the reading of a query is the slow part)."""
    frames = {info.name: _long_table(info.path, info.name) for info in task.datasets}
    if any(isinstance(frame, str) for frame in frames.values()):
        return ()  # reported by table_problem
    named = _named_columns_missing(task, frames)
    problems = list(named.values())
    plan = _plan(task)
    if plan is not None:
        problems += _plan_problems(plan, frames, set(named))
    return tuple(problems)


class _Datasets:
    """A stand-in brief for :func:`family_of` (it reads only ``datasets``)."""

    def __init__(self, datasets: tuple[DatasetInfo, ...]) -> None:
        self.datasets = datasets


def _plan(task: Task) -> StatPlan | None:
    """The plan the agent's reading gives the task (facts' settings applied)."""
    plan = plan_for(task.brief())
    if plan is None:
        return None
    for fact in task.facts:
        plan = plan.with_fix(fact.fix)
    return plan


def _named_columns_missing(task: Task, frames: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Declared columns the query names verbatim that their table lacks (column ->
    message)."""
    out: dict[str, str] = {}
    present = {str(c) for frame in frames.values() for c in frame.columns}
    for info in task.datasets:  # a wide table's year columns, before melting
        raw = _raw_table(info.path)
        present |= set() if isinstance(raw, str) else {str(c) for c in raw.columns}
    for info in task.datasets:
        frame = frames[info.name]
        for column in info.columns:
            name = column.name
            if (len(name.strip()) < 2 or name in present or name in out
                    or not _named(name, task.query)):
                continue
            near = [str(c) for c in frame.columns if _loose(str(c)) == _loose(name)]
            hint = f" (it has {near[0]!r})" if near else ""
            out[name] = f"column {name!r} named by the query is not in {info.name}{hint}"
    return out


def _named(name: str, text: str) -> bool:
    """Whether a column name is written as such in a text (case and spelling exact)."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _loose(name: str) -> str:
    return re.sub(r"[\s_]+", " ", name).strip().lower()


def _plan_problems(plan: StatPlan, frames: dict[str, pd.DataFrame],
                   reported: set[str]) -> list[str]:
    """Why the data cannot answer the plan's question (see the module docstring); columns
    in ``reported`` are already listed as missing."""
    names = [n for n in plan.dataset.split(TABLE_SEPARATOR) if n in frames]
    if not names:
        return []
    shown = " / ".join(names)
    roles = [(plan.target, "the target"), *((p, "a predictor") for p in plan.predictors),
             *((c, "a control") for c in plan.controls),
             *((f[0], "a population filter") for f in plan.filters),
             (plan.interaction, "an interaction")]
    missing: dict[str, str] = {}
    for column, role in roles:
        if column and column not in missing and not any(column in frames[n] for n in names):
            missing[column] = role
    if missing:
        return [f"column {c!r} ({role} of the query) is not in {shown}"
                for c, role in missing.items() if c not in reported]
    home = next(n for n in names if plan.target in frames[n])
    target = frames[home][plan.target]
    if target.isna().all():
        return [f"the target column {plan.target!r} has no values: all {len(target)} of "
                f"its entries in {home} are missing"]
    out = population_problems(plan, frames[home], home)
    values = target.dropna().unique()
    if len(values) < 2 and (plan.predictors or plan.interaction):
        out.append(f"the target column {plan.target!r} is {_shown(values[0])} in every row "
                   f"of {home} ({target.notna().sum()} rows): the data cannot show how it "
                   f"relates to {', '.join(plan.predictors or (plan.interaction,))}")
    return out


def population_problems(plan: StatPlan, frame: pd.DataFrame, home: str) -> list[str]:
    """No row in the asked population, or no target value there (filters on the target's
    table only; filters on another table are left to the analysis).

    An equality filter whose value occurs nowhere in its column (``project == Psychology``
    where the column holds other labels) is the reading's label, not the data's: the data may
    hold that population under another name, so it is no problem of the data - the session
    runs and the agent says what it could not find. A threshold nobody passes
    (``age > 90``, the oldest is 70) or labels that occur but never together are problems."""
    filters = _population(plan.filters)
    if not filters or any(f[0] not in frame for f in filters):
        return []
    rows = filter_rows(frame, filters)
    where = format_filters(filters)
    if rows.empty:
        if any(op == "==" and filter_rows(frame, [(column, op, value)]).empty
               for column, op, value in filters):
            return []
        return [f"no row of {home} has {where} (the population the query asks about)"]
    if rows[plan.target].isna().all():
        return [f"the target column {plan.target!r} has no values among the {len(rows)} rows "
                f"of {home} with {where}"]
    return []


def _population(filters: Sequence[Filter]) -> tuple[Filter, ...]:
    """The filters that define one population: a column asked equal to two different values
    ("differ between women and men") names groups to compare, not a population, and is left
    out."""
    wanted: dict[str, set[str]] = {}
    for column, op, value in filters:
        if op == "==":
            wanted.setdefault(column, set()).add(str(value).strip().lower())
    compared = {column for column, values in wanted.items() if len(values) > 1}
    return tuple(f for f in filters if f[1] in _OPS and f[0] not in compared)


def filter_rows(frame: pd.DataFrame, filters: Sequence[Filter]) -> pd.DataFrame:
    """The rows of ``frame`` in a population, compared as the statistical cell compares
    (:mod:`collabsim.domain.stats.cell`): as numbers when the value is a number and the
    column holds numbers, else as stripped lower-case text."""
    for column, op, value in filters:
        series = frame[column]
        numbers = pd.to_numeric(series, errors="coerce")
        try:
            wanted: float | str | None = float(value)
        except ValueError:
            wanted = None
        if wanted is not None and numbers.notna().any():
            series = numbers
        else:
            series = series.astype(str).str.strip().str.lower()
            wanted = str(value).strip().lower()
        keep = {"==": series == wanted, "!=": series != wanted, ">": series > wanted,
                ">=": series >= wanted, "<": series < wanted, "<=": series <= wanted}[op]
        frame = frame[keep]
    return frame


def _shown(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _raw_table(path: Path) -> pd.DataFrame | str:
    """The parsed table of a data file (cached; do not change it), or why it cannot be
    parsed."""
    st = Path(path).stat()
    return _parsed(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4096)
def _rows(path: str, mtime_ns: int, size: int) -> int | str:
    """The number of data rows of a file version, or why it cannot be parsed."""
    table = _parsed(path, mtime_ns, size)
    return table if isinstance(table, str) else len(table)


@functools.lru_cache(maxsize=32)
def _parsed(path: str, _mtime_ns: int, _size: int) -> pd.DataFrame | str:
    """The parsed table of a data file version (shared: do not change it), or why it
    cannot be parsed. A folder's metadata files share their tables, so a few suffice."""
    try:
        return domain_tables.read_table(path)
    except domain_tables.TableReadError as err:
        return err.detail


def _long_table(path: Path, name: str) -> pd.DataFrame | str:
    """The table as the statistical cell sees it: a wide year table (a column per year)
    melted into ``year`` and a value column named after the file."""
    info = Path(path).stat()
    return _long(str(path), info.st_mtime_ns, info.st_size, name)


@functools.lru_cache(maxsize=32)
def _long(path: str, mtime_ns: int, size: int, name: str) -> pd.DataFrame | str:
    table = _parsed(path, mtime_ns, size)
    if isinstance(table, str):
        return table
    years = [c for c in table.columns if YEAR_COLUMN_RE.match(str(c))]
    if len(years) < WIDE_MIN_YEARS:
        return table
    ids = [c for c in table.columns if c not in years]
    return table.melt(id_vars=ids, value_vars=years, var_name="year",
                      value_name=wide_value_name(name))
