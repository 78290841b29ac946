"""Analysis code cells: what the scripted participants run, and reading their output.

:func:`inspect_cell` loads the dataset and prints its bins and gaps; :func:`compute_cell`
computes a plan's answer and prints a machine-readable ``RESULT`` line that
:func:`parse_result` reads back. Loading and binning come from
:mod:`collabsim.domain.analysis_helpers`, imported in the sandbox; the event definitions
(thresholds, onsets, extremes, plateaus) are written out in the cell, so a teammate
reviewing it sees the computation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from collabsim.domain.stats.cell import parse_stats_result, stats_cell, stats_inspect_cell
from collabsim.domain.stats.model import RESULT_MARK, StatPlan, StatResult
from collabsim.domain.thresholds import PLATEAU_TOLERANCE, SUSTAIN_BINS, THRESHOLD
from collabsim.domain.time_expr import parse_window
from collabsim.domain.variables import gap_filled_column, raw_column
from collabsim.participants.plan import AnalysisPlan, computation_key

INSPECT_MARK = "# collabsim analysis: inspect"
COMPUTE_MARK = "# collabsim analysis: compute"
_COLS_RE = re.compile(r"^COLS = (\[.*\])$", re.MULTILINE)
_MISSING_RE = re.compile(r"^(\S+) missing bins: (\d+)", re.MULTILINE)
_IMPORTS = (
    "import pandas as pd\n"
    "from collabsim.domain.analysis_helpers import onsets, read_table, table\n"
)


@dataclass(frozen=True)
class AnalysisResult:
    """A parsed ``RESULT`` line."""

    relation: str
    ordinal: int
    columns: tuple[str, ...]
    window: tuple[int, int] | None
    year: int | None
    value: float | None = None
    events: tuple[int, ...] = ()
    note: str = ""
    trends: tuple[tuple[str, str], ...] = ()
    corr: float | None = None

    def key(self) -> str:
        """Same format as :meth:`AnalysisPlan.key`."""
        return computation_key(self.relation, self.ordinal, self.columns, self.window)


def inspect_cell(plan: AnalysisPlan | StatPlan) -> str:
    """A cell loading the dataset and printing its shape, bins and gaps of the columns (a
    statistical plan: rows, missing values and kinds of its columns)."""
    if isinstance(plan, StatPlan):
        return stats_inspect_cell(plan)
    return (
        f"{INSPECT_MARK}\n{_IMPORTS}\n"
        f"df = read_table({plan.dataset!r})\n"
        f"t = table({plan.dataset!r}, df)\n"
        "print('rows', len(df), 'bins', len(t), 'from', t.index.min(), 'to', t.index.max())\n"
        f"for col in {list(plan.columns) + list(plan.raw_columns)!r}:\n"
        "    if col in t.columns:\n"
        "        s = pd.to_numeric(t[col], errors='coerce')\n"
        "        print(col, 'missing bins:', int(s.isna().sum()), 'max', round(float(s.max()), 3),"
        " 'min', round(float(s.min()), 3))\n"
    )


def compute_cell(plan: AnalysisPlan | StatPlan) -> str:
    """A self-contained cell computing the plan's answer and printing a ``RESULT`` line (a
    statistical plan: :func:`~collabsim.domain.stats.cell.stats_cell`, a ``RESULT-STATS``
    line)."""
    if isinstance(plan, StatPlan):
        return stats_cell(plan)
    head = (
        f"{COMPUTE_MARK}\n{_IMPORTS}\n"
        f"PLAN = {plan.key()!r}\n"
        f"COLS = {list(plan.columns)!r}\n"
        f"WINDOW = {plan.window!r}\n"
        f"ORDINAL = {plan.ordinal}\n"
        # table() reuses a file an earlier cell of the session (inspect, a teammate's check)
        # loaded; the answer itself is still computed in the cell, where teammates see it.
        f"t = table({plan.dataset!r})\n"
        "data = t[COLS].apply(pd.to_numeric, errors='coerce')\n"
        "if WINDOW is not None:\n"
        "    data = data.loc[WINDOW[0]:WINDOW[1]]\n"
        "s = data[COLS[0]] if COLS else None\n"
        "year, value, events, evidence = None, None, [], ''\n"
    )
    body = _relation_code(plan)
    tail = (
        "ev = ','.join(str(e) for e in events) or 'none'\n"
        "val = 'nan' if value is None or value != value else f'{value:.3f}'\n"
        "print(f'RESULT {PLAN} year={year if year is not None else \"none\"} value={val} "
        "events={ev}')\n"
        "print(evidence)\n"
    )
    return head + body + tail


def _relation_code(plan: AnalysisPlan) -> str:
    thr, k = THRESHOLD, SUSTAIN_BINS
    if plan.relation in ("rise", "fall"):
        op = f">= {thr}" if plan.relation == "rise" else f"<= -{thr}"
        return (
            "d = s.diff()\n"
            f"events = onsets(d {op})\n"
            "if len(events) >= ORDINAL:\n"
            "    year = events[ORDINAL - 1]\n"
            "    value = float(s.loc[year])\n"
            "evidence = 'changes: ' + ', '.join(f'{y}: {c:+.2f}' for y, c in d.dropna().items()"
            f" if abs(c) >= {thr})\n"
        )
    if plan.relation == "simultaneous":
        dirs = list(plan.directions) or ["down"] * len(plan.columns)
        return (
            f"DIRS = {dirs!r}\n"
            "flag = None\n"
            "for col, direction in zip(COLS, DIRS):\n"
            "    d = data[col].diff()\n"
            f"    f = (d >= {thr}) if direction == 'up' else (d <= -{thr})\n"
            "    flag = f if flag is None else (flag & f)\n"
            "events = onsets(flag)\n"
            "if len(events) >= ORDINAL:\n"
            "    year = events[ORDINAL - 1]\n"
            "    value = float(s.loc[year])\n"
            "evidence = 'joint changes at: ' + ', '.join(str(e) for e in events)\n"
        )
    if plan.relation in ("peak", "growth_max", "growth_min"):
        fn = "idxmin" if plan.relation == "growth_min" else "idxmax"
        asc = "True" if plan.relation == "growth_min" else "False"
        return (
            "if s.notna().any():\n"
            f"    year = int(s.{fn}())\n"
            "    value = float(s.loc[year])\n"
            f"top = s.dropna().sort_values(ascending={asc}).head(3)\n"
            "evidence = 'top bins: ' + ', '.join(f'{y}: {v:.2f}' for y, v in top.items())\n"
        )
    if plan.relation == "plateau":
        return (
            f"m = s.rolling({k}).min()\n"
            "if m.notna().any():\n"
            f"    ok = m[m >= m.max() - {PLATEAU_TOLERANCE}]\n"
            "    pos = list(s.index).index(ok.index[0])\n"
            f"    year = int(s.index[pos - {k - 1}])\n"
            "    value = float(m.max())\n"
            f"evidence = 'highest {k}-bin minimum: ' + ', '.join(f'{{y}}: {{v:.2f}}' "
            "for y, v in m.dropna().sort_values(ascending=False).head(3).items())\n"
        )
    # describe: the direction of each series over the (windowed) record and, for two or more
    # series, the correlation of the first two - what an open question's answer states
    return (
        "parts, trends = [], []\n"
        "for col in data.columns:\n"
        "    c = data[col].dropna()\n"
        "    if len(c):\n"
        "        parts.append(f'{col}: max at {int(c.idxmax())}, min at {int(c.idxmin())}')\n"
        "        change = float(c.iloc[-1] - c.iloc[0])\n"
        f"        trends.append(f\"{{col}}:{{'up' if change >= {thr} else 'down' if change <= -{thr}"
        " else 'flat'}\")\n"
        "evidence = '; '.join(parts) or 'no numeric column selected'\n"
        "corr = None\n"
        "if len(COLS) >= 2:\n"
        "    pair = data[COLS[:2]].dropna()\n"
        "    if len(pair) >= 3 and pair.std().min() > 0:\n"
        "        corr = float(pair[COLS[0]].corr(pair[COLS[1]]))\n"
        "value = corr\n"
        "print('TRENDS', ','.join(trends) or 'none', 'corr=' + ('nan' if corr is None else "
        "f'{corr:.2f}'))\n"
    )


# -------------------------------------------------------------------------- reading output

_RESULT_RE = re.compile(r"^RESULT (.*)$", re.MULTILINE)
_TRENDS_RE = re.compile(r"^TRENDS (\S+) corr=(\S+)$", re.MULTILINE)


def compute_cell_columns(code: str) -> frozenset[str] | None:
    """The columns a compute cell (:func:`compute_cell`, possibly edited) names in its
    ``COLS`` line; None for another cell."""
    match = _COLS_RE.search(code)
    if match is None or not code.startswith(COMPUTE_MARK):
        return None
    return frozenset(re.findall(r"'([^']+)'", match.group(1)))


def parse_cell_result(output: str) -> AnalysisResult | StatResult | None:
    """A compute cell's result of either family: the ``RESULT-STATS`` line of a statistical
    cell (:func:`~collabsim.domain.stats.cell.parse_stats_result`), else the ``RESULT`` line
    (:func:`parse_result`)."""
    if RESULT_MARK + " " in (output or ""):
        return parse_stats_result(output)
    return parse_result(output)


def parse_missing_bins(output: str) -> dict[str, int]:
    """Column -> missing bins, as an :func:`inspect_cell` output prints them."""
    return {col: int(n) for col, n in _MISSING_RE.findall(output or "")}


def variants_agree(used: tuple[str, ...], own: tuple[str, ...],
                   missing_bins: Mapping[str, int]) -> bool:
    """Whether two column lists differ only in variants that give the same binned series.

    They do when each column of one list that the other lacks has its raw / gap-filled twin
    (``Dagger`` / ``Dagger_inter``) in the other, and the raw twin has no missing bin
    (``missing_bins``: what an inspect cell printed; a column not inspected is not known to
    be gap-free): gap-filling only fills missing bins, so a raw series with none is its
    gap-filled series. On the DiscoveryBench archaeology table every raw series has a value
    in every 100-year bin; the generated suite's raw series have gaps.
    """
    only_used = [c for c in used if c not in own]
    only_own = [c for c in own if c not in used]
    if not only_used or len(only_used) != len(only_own):
        return False
    for column in only_used:
        twin = next((c for c in only_own
                     if column in (raw_column(c), gap_filled_column(c))), None)
        if twin is None or missing_bins.get(min(column, twin, key=len)) != 0:
            return False
    return True


def parse_result(output: str) -> AnalysisResult | None:
    """Read the last ``RESULT`` line of a cell's output (None when there is none)."""
    lines = _RESULT_RE.findall(output or "")
    if not lines:
        return None
    pairs = dict(re.findall(r"(\w+)=(\S+)", lines[-1]))
    described = _TRENDS_RE.findall(output or "")
    trends: tuple[tuple[str, str], ...] = ()
    corr = None
    if described:
        listed, corr_text = described[-1]
        trends = tuple(tuple(p.split(":", 1)) for p in listed.split(",")  # type: ignore[misc]
                       if ":" in p)
        corr = None if corr_text == "nan" else float(corr_text)
    try:
        year = None if pairs.get("year", "none") == "none" else int(pairs["year"])
        value = float(pairs["value"]) if pairs.get("value", "nan") != "nan" else None
        events = tuple(int(e) for e in pairs.get("events", "none").split(",") if e != "none")
        return AnalysisResult(
            relation=pairs.get("relation", "describe"),
            ordinal=int(pairs.get("ordinal", "1")),
            columns=tuple(c for c in pairs.get("columns", "none").split("+") if c != "none"),
            window=parse_window(pairs.get("window", "none")),
            year=year,
            value=value,
            events=events,
            trends=trends,
            corr=corr,
        )
    except (KeyError, ValueError):
        return None
