"""The sandbox cells of the statistical family, and reading their output back.

API (stable names):

* :data:`STATS_MARK` - the first line of a statistical compute cell
  (``# collabsim analysis: compute-stats``);
* :data:`CELL_MODULES` - the modules a stats cell imports (pre-imported by the sandbox);
* :data:`STATS_INSPECT_MARK` - the first line of the cell that looks at the data;
* :func:`stats_cell(plan)` - a cell computing a
  :class:`~collabsim.domain.stats.model.StatPlan` with
  :func:`collabsim.domain.stats.runtime.compute_stats` (pandas + statsmodels / scipy) and
  printing one ``RESULT-STATS {json}`` line (:meth:`StatResult.to_json` layout). It never
  raises: a missing column, an all-NaN target, a constant column, too few rows or a failed
  fit print a result with a ``note`` (and no effects);
* :func:`stats_inspect_cell(plan)` - rows, missing values and kinds of the plan's columns;
* :func:`parse_stats_result(output)` - the last ``RESULT-STATS`` line as a
  :class:`~collabsim.domain.stats.model.StatResult` (None when there is none);
* :func:`plan_of_cell(code)` - the plan a (possibly edited) stats cell computes, read from
  its ``PLAN = {...}`` line (None for another cell).

The cell states its plan in one ``PLAN = {...}`` line, so a teammate reviewing it sees the
target, predictors, controls, filters and analysis, and calls the family's sandbox-side
functions (:mod:`collabsim.domain.stats.runtime`), as the time-series cells call
:mod:`collabsim.domain.analysis_helpers`. When the data contradict the planned analysis, the
analysis that fits is run and named in the result's ``analysis`` field (see the runtime).
"""

from __future__ import annotations

import ast
import json
import re

from collabsim.domain.stats.model import RESULT_MARK, StatPlan, StatResult

STATS_MARK = "# collabsim analysis: compute-stats"
#: The modules a stats cell imports beyond pandas/numpy (the sandbox's fork server imports
#: them before forking workers when a statistical task runs).
CELL_MODULES: tuple[str, ...] = ("scipy.stats", "statsmodels.formula.api")
STATS_INSPECT_MARK = "# collabsim analysis: inspect-stats"
_PLAN_RE = re.compile(r"^PLAN = (\{.*\})$", re.MULTILINE)


def _plan_literal(plan: StatPlan) -> str:
    return repr({
        "dataset": plan.dataset, "target": plan.target, "predictors": list(plan.predictors),
        "controls": list(plan.controls), "filters": [list(f) for f in plan.filters],
        "analysis": plan.analysis, "interaction": plan.interaction,
    })


def plan_of_cell(code: str) -> StatPlan | None:
    """The plan a stats cell computes (its ``PLAN`` line), None for another cell."""
    match = _PLAN_RE.search(code or "")
    if match is None or not code.startswith((STATS_MARK, STATS_INSPECT_MARK)):
        return None
    try:
        data = ast.literal_eval(match.group(1))
        return StatPlan(dataset=data["dataset"], target=data["target"],
                        predictors=tuple(data["predictors"]), controls=tuple(data["controls"]),
                        filters=tuple(tuple(f) for f in data["filters"]),  # type: ignore[misc]
                        analysis=data["analysis"], interaction=data.get("interaction", ""))
    except (ValueError, KeyError, TypeError, SyntaxError):
        return None


def stats_cell(plan: StatPlan) -> str:
    """A cell computing ``plan`` and printing one ``RESULT-STATS`` line
    (:func:`collabsim.domain.stats.runtime.compute_stats`; at most
    :data:`~collabsim.domain.stats.runtime.MAX_RESULT_CHARS` characters of JSON: the last
    effects are cut to fit)."""
    return (f"{STATS_MARK}\nfrom collabsim.domain.stats.runtime import compute_stats\n\n"
            f"PLAN = {_plan_literal(plan)}\nprint(compute_stats(PLAN))\n")


def stats_inspect_cell(plan: StatPlan) -> str:
    """A cell printing the table's rows and, per column of the plan, its missing values,
    distinct values and kind (:func:`collabsim.domain.stats.runtime.inspect_stats`)."""
    return (f"{STATS_INSPECT_MARK}\nfrom collabsim.domain.stats.runtime import inspect_stats\n\n"
            f"PLAN = {_plan_literal(plan)}\nprint(inspect_stats(PLAN))\n")


def parse_stats_result(output: str) -> StatResult | None:
    """The last ``RESULT-STATS`` line of a cell's output (None when there is none or it is
    malformed)."""
    lines = [line for line in (output or "").splitlines() if line.startswith(RESULT_MARK + " ")]
    if not lines:
        return None
    try:
        return StatResult.from_json(lines[-1][len(RESULT_MARK) + 1:])
    except (ValueError, KeyError, TypeError, json.JSONDecodeError):
        return None
