"""The statistical family's plan and result: what a participant computes and what it printed.

A :class:`StatPlan` names a concrete computation on one table - the target (outcome) column,
the predictor columns, the control columns, the row filters that define the population and
the analysis. A :class:`StatResult` is what the computation printed (one ``RESULT-STATS``
line of JSON, see :data:`RESULT_MARK`): per predictor an :class:`Effect` with its estimate,
p-value and interval, and the rows used.

Both are plain frozen values; the code that chooses a plan from a query, renders the analysis
cell, words the hypothesis and corrupts a plan with a participant's mistakes lives in the
modules beside this one. A teammate's suggested fix (:meth:`StatPlan.with_fix`) and a task's
fact (``collabsim.core.knowledge.Fact.setting``) use the same parameter names,
:data:`FIX_KEYS`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace

#: The analyses of the family. ``ols``: linear regression of the target on the predictors
#: and controls; ``logit``: logistic regression (binary target); ``correlation``: Pearson
#: correlation of target and predictor; ``ttest``: difference of the target's means between
#: two groups of the predictor; ``chi2``: association of two categorical columns; ``anova``:
#: differences of the target's means across the predictor's groups; ``proportion``: share of
#: rows where the target holds, with a bootstrap interval; ``summary``: descriptive
#: statistics of the target (per predictor group if any).
ANALYSES: tuple[str, ...] = ("ols", "logit", "correlation", "ttest", "chi2", "anova",
                             "proportion", "summary")
#: Comparison operators of a row filter.
FILTER_OPS: tuple[str, ...] = ("==", "!=", ">", ">=", "<", "<=")
#: Parameter names of a fix (a teammate's suggestion or a task fact's setting).
#: ``target``: one column; ``predictors`` / ``controls``: columns joined by ``+`` (``none``
#: for no controls); ``filters``: ``column op value`` clauses joined by ``;`` (``none`` for
#: the whole table); ``analysis``: one of :data:`ANALYSES`.
FIX_KEYS: tuple[str, ...] = ("target", "predictors", "controls", "filters", "analysis")
#: Joins the file names of a plan whose columns spread over several tables
#: (``StatPlan.dataset``; the cell merges them on their shared columns).
TABLE_SEPARATOR = "|"
#: The first word of the line a statistical cell prints; the rest of the line is JSON.
RESULT_MARK = "RESULT-STATS"

Filter = tuple[str, str, str]


def format_filters(filters: tuple[Filter, ...]) -> str:
    """Filters as text: ``"sex == 1; age >= 18"`` (``none`` for no filter)."""
    return "; ".join(f"{c} {op} {v}" for c, op, v in filters) or "none"


def parse_filters(text: str) -> tuple[Filter, ...]:
    """Inverse of :func:`format_filters` (ValueError naming the clause it cannot read)."""
    if text.strip() in ("", "none"):
        return ()
    out: list[Filter] = []
    for clause in text.split(";"):
        clause = clause.strip()
        for op in sorted(FILTER_OPS, key=len, reverse=True):
            column, sep, value = clause.partition(f" {op} ")
            if sep:
                out.append((column.strip(), op, value.strip()))
                break
        else:
            raise ValueError(f"cannot read the filter {clause!r} (expected 'column op value')")
    return tuple(out)


def _columns(text: str) -> tuple[str, ...]:
    return () if text.strip() in ("", "none") else tuple(c for c in text.split("+") if c)


@dataclass(frozen=True)
class StatPlan:
    """A concrete statistical computation on one table.

    Attributes:
        dataset: The table's file name (as in the task's datasets; several joined by
            :data:`TABLE_SEPARATOR` when the columns spread over tables).
        target: The outcome column.
        predictors: The columns whose relation to the target is asked.
        controls: Further columns held constant (regressions only).
        filters: Row filters ``(column, op, value)`` defining the population.
        analysis: One of :data:`ANALYSES`.
        interaction: A column whose interaction with the first predictor is tested, or "".
    """

    dataset: str
    target: str
    predictors: tuple[str, ...]
    controls: tuple[str, ...] = ()
    filters: tuple[Filter, ...] = ()
    analysis: str = "ols"
    interaction: str = ""

    def __post_init__(self) -> None:
        if self.analysis not in ANALYSES:
            raise ValueError(f"analysis {self.analysis!r} is not one of {list(ANALYSES)}")

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the plan uses: target, predictors, controls."""
        return tuple(dict.fromkeys(c for c in (self.target, *self.predictors, *self.controls)
                                   if c))

    def key(self) -> str:
        """Compact text identifying the computation (printed in ``RESULT-STATS`` lines)."""
        return plan_key(self.analysis, self.target, self.predictors, self.controls,
                        self.filters, self.interaction)

    def with_fix(self, fix: Mapping[str, str]) -> StatPlan:
        """The plan with a teammate's suggestion / a fact's setting applied (keys of
        :data:`FIX_KEYS`; others are ignored, an unknown analysis is ignored)."""
        changes: dict[str, object] = {}
        if fix.get("target"):
            changes["target"] = fix["target"]
        if "predictors" in fix:
            changes["predictors"] = _columns(fix["predictors"]) or self.predictors
        if "controls" in fix:
            changes["controls"] = _columns(fix["controls"])
        if "filters" in fix:
            changes["filters"] = parse_filters(fix["filters"])
        if fix.get("analysis") in ANALYSES:
            changes["analysis"] = fix["analysis"]
        return replace(self, **changes)  # type: ignore[arg-type]

    def fix(self) -> dict[str, str]:
        """The plan's parameters in the shape of a fix (inverse of :meth:`with_fix`)."""
        return {"target": self.target, "predictors": "+".join(self.predictors) or "none",
                "controls": "+".join(self.controls) or "none",
                "filters": format_filters(self.filters), "analysis": self.analysis}


def plan_key(analysis: str, target: str, predictors: tuple[str, ...],
             controls: tuple[str, ...], filters: tuple[Filter, ...], interaction: str = "") -> str:
    """Compact text identifying a statistical computation."""
    text = (f"analysis={analysis} target={target} predictors={'+'.join(predictors) or 'none'} "
            f"controls={'+'.join(controls) or 'none'} filters={format_filters(filters)}")
    return f"{text} interaction={interaction}" if interaction else text


@dataclass(frozen=True)
class Effect:
    """One estimated relation: a predictor's (or a group contrast's) effect on the target.

    Attributes:
        variable: The predictor column (or ``column=level`` for a categorical level).
        estimate: Coefficient (ols/logit: on the log-odds scale), correlation, difference of
            means, Cramér's V or eta squared (chi2/anova), or the proportion itself.
        p_value: Two-sided p-value (None where the analysis gives none).
        ci_low: Lower end of the 95 % interval (None when not computed).
        ci_high: Upper end of the 95 % interval.
    """

    variable: str
    estimate: float
    p_value: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None

    @property
    def direction(self) -> str:
        """``positive``, ``negative`` or ``none`` (estimate 0)."""
        return "positive" if self.estimate > 0 else "negative" if self.estimate < 0 else "none"

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether the p-value is below ``alpha`` (False without a p-value)."""
        return self.p_value is not None and self.p_value < alpha


@dataclass(frozen=True)
class StatResult:
    """A parsed ``RESULT-STATS`` line.

    Attributes:
        analysis, target, predictors, controls, filters, interaction: The computation, as
            in :class:`StatPlan`.
        n: Rows used after filters and dropping missing values.
        effects: One :class:`Effect` per predictor (or level / contrast), in plan order.
        note: Why nothing could be estimated (empty when effects were estimated).
    """

    analysis: str
    target: str
    predictors: tuple[str, ...]
    controls: tuple[str, ...] = ()
    filters: tuple[Filter, ...] = ()
    interaction: str = ""
    n: int = 0
    effects: tuple[Effect, ...] = ()
    note: str = ""

    def key(self) -> str:
        """Same format as :meth:`StatPlan.key`."""
        return plan_key(self.analysis, self.target, self.predictors, self.controls,
                        self.filters, self.interaction)

    def to_json(self) -> str:
        """The JSON a cell prints after :data:`RESULT_MARK` (inverse of :meth:`from_json`)."""
        return json.dumps({
            "analysis": self.analysis, "target": self.target,
            "predictors": list(self.predictors), "controls": list(self.controls),
            "filters": [list(f) for f in self.filters], "interaction": self.interaction,
            "n": self.n, "note": self.note,
            "effects": [[e.variable, e.estimate, e.p_value, e.ci_low, e.ci_high]
                        for e in self.effects],
        }, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> StatResult:
        """Read the JSON of a ``RESULT-STATS`` line (ValueError / KeyError when malformed)."""
        data = json.loads(text)
        return cls(
            analysis=str(data["analysis"]), target=str(data["target"]),
            predictors=tuple(data["predictors"]), controls=tuple(data.get("controls", ())),
            filters=tuple((str(c), str(o), str(v)) for c, o, v in data.get("filters", ())),
            interaction=str(data.get("interaction", "")), n=int(data.get("n", 0)),
            effects=tuple(Effect(str(v), float(e), _opt(p), _opt(lo), _opt(hi))
                          for v, e, p, lo, hi in data.get("effects", ())),
            note=str(data.get("note", "")),
        )


def _opt(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]
