"""Plain fits of a :class:`~collabsim.domain.stats.model.StatPlan` on a generated table.

The generated statistical suite states its golds with the numbers these fits give on the
written CSV (so a correct analysis reproduces them) and checks with them that every planted
effect is clear and every decoy plan - the plan a typical mistake leads to - gives another
answer. The fits are the textbook ones: ``ols`` / ``logit`` (statsmodels formulas, the
first predictor's coefficient, or the interaction term's), ``ttest`` (difference of the
target's means, group 1 minus group 0, Student's t-test), ``correlation`` (Pearson) and
``proportion`` (share of rows with target 1, normal-approximation 95 % interval).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from collabsim.domain.stats.model import Effect, StatPlan

__all__ = ["apply_filters", "differs", "fit_plan", "formula_of"]

_OPS = {
    "==": np.equal, "!=": np.not_equal, ">": np.greater, ">=": np.greater_equal,
    "<": np.less, "<=": np.less_equal,
}


def apply_filters(df: pd.DataFrame, plan: StatPlan) -> pd.DataFrame:
    """The rows of ``df`` the plan's filters keep (values compared as numbers)."""
    mask = np.ones(len(df), dtype=bool)
    for column, op, value in plan.filters:
        mask &= _OPS[op](df[column].to_numpy(dtype=float), float(value))
    return df[mask]


def formula_of(plan: StatPlan) -> str:
    """The statsmodels formula of a regression plan (``y ~ x + c`` or ``y ~ x * z``)."""
    first = plan.predictors[0]
    terms = [f"{first} * {plan.interaction}" if plan.interaction else first,
             *plan.predictors[1:], *plan.controls]
    return f"{plan.target} ~ {' + '.join(terms)}"


def fit_plan(plan: StatPlan, df: pd.DataFrame) -> Effect:
    """The plan's main effect on ``df``: the first predictor's (or the interaction's)
    estimate with its p-value and 95 % interval."""
    import statsmodels.formula.api as smf
    from scipy import stats

    rows = apply_filters(df, plan)
    if plan.analysis in ("ols", "logit"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = (smf.ols(formula_of(plan), rows).fit() if plan.analysis == "ols"
                     else smf.logit(formula_of(plan), rows).fit(disp=0))
        term = (f"{plan.predictors[0]}:{plan.interaction}" if plan.interaction
                else plan.predictors[0])
        low, high = model.conf_int().loc[term]
        return Effect(term, float(model.params[term]), float(model.pvalues[term]),
                      float(low), float(high))
    if plan.analysis == "ttest":
        group = rows[plan.predictors[0]]
        one, zero = rows.loc[group == 1, plan.target], rows.loc[group == 0, plan.target]
        test = stats.ttest_ind(one, zero)
        diff = float(one.mean() - zero.mean())
        se = diff / float(test.statistic) if test.statistic else math.inf
        return Effect(plan.predictors[0], diff, float(test.pvalue),
                      diff - 1.96 * abs(se), diff + 1.96 * abs(se))
    if plan.analysis == "correlation":
        r, p = stats.pearsonr(rows[plan.predictors[0]], rows[plan.target])
        z, se = math.atanh(float(r)), 1.0 / math.sqrt(len(rows) - 3)
        return Effect(plan.predictors[0], float(r), float(p),
                      math.tanh(z - 1.96 * se), math.tanh(z + 1.96 * se))
    if plan.analysis == "proportion":
        share = float(rows[plan.target].mean())
        se = math.sqrt(share * (1 - share) / len(rows))
        return Effect(plan.target, share, None, share - 1.96 * se, share + 1.96 * se)
    raise ValueError(f"no generator fit for analysis {plan.analysis!r}")


def differs(right: Effect, other: Effect, analysis: str) -> bool:
    """Whether ``other`` gives another answer than ``right``: another direction, another
    significance at 5 %, or (same direction and significance) a number off by more than a
    third (a proportion: by more than 8 points)."""
    if analysis == "proportion":
        return abs(right.estimate - other.estimate) > 0.08
    if right.direction != other.direction or right.significant() != other.significant():
        return True
    return abs(right.estimate - other.estimate) > abs(right.estimate) / 3
