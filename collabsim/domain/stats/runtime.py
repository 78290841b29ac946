"""What a statistical cell runs inside the sandbox: load a plan's table, fit, print one line.

The cells of :mod:`collabsim.domain.stats.cell` state their plan in a ``PLAN = {...}`` line
and call these functions, as the time-series cells call
:mod:`collabsim.domain.analysis_helpers`:

* :func:`compute_stats(plan)` - the ``RESULT-STATS {json}`` line of the plan
  (:meth:`~collabsim.domain.stats.model.StatResult.to_json` layout). It never raises: a
  missing column, an all-NaN target, a constant column, too few rows or a failed fit give a
  result with a ``note`` and no effects;
* :func:`inspect_stats(plan)` - rows, and per column of the plan its kind, missing and
  distinct values;
* :func:`load(plan)` - the plan's tables joined on their shared columns (a wide table with
  a column per year melted to one row per year), filtered.

When the data contradict the planned analysis (a logistic regression of a target with more
than two values, a regression of a text target), the analysis that fits is run and named in
the result's ``analysis`` field; a logistic fit that fails (perfect separation) falls back
to a linear probability model. Bootstrap intervals use ``numpy.random.default_rng(0)``.

**Memo.** A sandbox worker serves many sessions (:mod:`collabsim.sandbox.pool`) and the
sessions of a grid compute the same plans on the same files again and again. Both functions
are pure functions of the plan and the bytes of the files it reads, so a worker keeps the
text each (plan, file digests) gave (bounded, :data:`MAX_MEMO`) and prints it again instead
of refitting - the same characters, as the tests check. A file whose bytes change is a new
key.

scipy and statsmodels are imported on first use (the sandbox's fork server pre-imports them
for jobs with statistical tasks: :data:`collabsim.domain.stats.cell.CELL_MODULES`).
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from collabsim.domain.stats.columns import WIDE_MIN_YEARS, YEAR_COLUMN_RE
from collabsim.domain.stats.model import RESULT_MARK, TABLE_SEPARATOR
from collabsim.domain.tables import read_table, table_from_bytes

__all__ = ["MAX_MEMO", "MAX_RESULT_CHARS", "compute_stats", "inspect_stats", "load"]

#: The longest ``RESULT-STATS`` JSON :func:`compute_stats` gives (the sandbox keeps 4000
#: characters of output per cell by default); the last effects are cut to fit.
MAX_RESULT_CHARS = 3000
#: How many (plan, files) results one worker remembers.
MAX_MEMO = 512

_MEMO: OrderedDict[tuple[str, str, tuple[str, ...]], str] = OrderedDict()


class _Done(Exception):
    """The result is final before a fit (a constant target)."""


Raws = dict[str, bytes]


def _memoised(kind: str, plan: dict[str, Any], compute: Callable[[Raws | None], str]) -> str:
    """``compute(raws)``, remembered under the plan and the digests of the files it reads;
    ``raws`` are those files' bytes, read once for the digest and the table (None when a
    file cannot be read: the computation reads it again and reports it)."""
    try:
        raws = {name: Path(name).read_bytes()
                for name in str(plan["dataset"]).split(TABLE_SEPARATOR)}
        digests = tuple(hashlib.blake2b(raw, digest_size=16).hexdigest()
                        for raw in raws.values())
        key = (kind, json.dumps(plan, sort_keys=True, default=repr), digests)
    except (OSError, KeyError, TypeError, ValueError):
        return compute(None)
    text = _MEMO.get(key)
    if text is None:
        text = compute(raws)
        _MEMO[key] = text
        while len(_MEMO) > MAX_MEMO:
            _MEMO.popitem(last=False)
    else:
        _MEMO.move_to_end(key)
    return text


def _melted(name: str, t: pd.DataFrame, years: list[Any]) -> pd.DataFrame:
    """One indicator with a column per year as one row per (id, year), by hand
    (``DataFrame.melt`` costs ~10 ms even on a two-row table)."""
    ids = [c for c in t.columns if c not in years]
    n = len(t)
    long = pd.DataFrame({c: np.tile(t[c].to_numpy(), len(years)) for c in ids})
    long["year"] = np.repeat(np.array([int(str(y).strip()[:4]) for y in years]), n)
    long[name.rsplit(".", 1)[0]] = t[years].to_numpy().T.reshape(-1)
    return long


def _filtered(df: pd.DataFrame, col: str, op: str, value: Any) -> pd.DataFrame:
    s = df[col]
    num = pd.to_numeric(s, errors="coerce")
    try:
        v: Any = float(value)
    except ValueError:
        v = None
    if v is not None and num.notna().any():
        s = num
    else:
        s, v = s.astype(str).str.strip().str.lower(), str(value).strip().lower()
    keep = {"==": s == v, "!=": s != v, ">": s > v, ">=": s >= v, "<": s < v,
            "<=": s <= v}[op]
    df = df[keep]
    if df.empty:
        raise ValueError(f"no rows where {col} {op} {value}")
    return df


def load(plan: dict[str, Any], raws: Raws | None = None) -> pd.DataFrame:
    """The plan's table (tables joined on their shared columns), filtered; ``raws``: the
    files' bytes when already read (by file name), else each file is read.

    Raises:
        LookupError: A column the plan uses is not in the data.
        ValueError: A filter leaves no rows, or a table shares no column with the tables
            before it (rows are never paired by position).
        TableReadError: A file cannot be read.
    """
    df: pd.DataFrame | None = None
    for name in plan["dataset"].split(TABLE_SEPARATOR):
        t = table_from_bytes(name, raws[name]) if raws is not None else read_table(name)
        years = [c for c in t.columns if YEAR_COLUMN_RE.match(str(c))]
        if len(years) >= WIDE_MIN_YEARS:
            t = _melted(name, t, years)
        if df is None:
            df = t
        else:
            keys = [c for c in df.columns if c in t.columns]
            if not keys:  # pairing the rows of unrelated tables by position is no join
                raise ValueError(f"{name} shares no column with the tables before it: "
                                 "not joined")
            df = df.merge(t, on=keys, how="inner")
    assert df is not None
    used = [plan["target"], *plan["predictors"], *plan["controls"],
            *(f[0] for f in plan["filters"]), plan["interaction"]]
    missing = [c for c in dict.fromkeys(used) if c and c not in df.columns]
    if missing:
        raise LookupError("not in the data: " + ", ".join(missing))
    for col, op, value in plan["filters"]:
        df = _filtered(df, col, op, value)
    return df


def column(s: pd.Series) -> tuple[pd.Series, str]:
    """(values, kind): booleans and yes/no as 0/1, numbers as floats, else text."""
    if pd.api.types.is_bool_dtype(s):
        return s.astype(float), "binary"
    text = s.astype(str).str.strip().str.lower()
    flags = {"true": 1.0, "false": 0.0, "yes": 1.0, "no": 0.0}
    if (not pd.api.types.is_numeric_dtype(s) and s.notna().any()
            and text[s.notna()].isin(list(flags)).all()):
        return text.map(flags).where(s.notna()), "binary"
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().sum() >= 0.9 * s.notna().sum() and num.notna().any():
        return num, "binary" if num.dropna().nunique() == 2 else "numeric"
    return s.where(s.isna(), s.astype(str)), "text"


def _num(x: Any) -> float | None:
    if x is None or x != x or x in (float("inf"), float("-inf")):
        return None
    return float(f"{float(x):.6g}")


class _Result:
    """The result being built: the JSON fields of a ``RESULT-STATS`` line."""

    def __init__(self, plan: dict[str, Any], raws: Raws | None = None) -> None:
        self.plan = plan
        self.raws = raws
        self.out: dict[str, Any] = {
            "analysis": plan["analysis"], "target": plan["target"],
            "predictors": plan["predictors"], "controls": plan["controls"],
            "filters": plan["filters"], "interaction": plan["interaction"], "n": 0,
            "note": "", "effects": []}

    def effect(self, name: str, est: Any, p: Any = None, lo: Any = None,
               hi: Any = None) -> None:
        if _num(est) is None:
            return
        self.out["effects"].append([name, _num(est), _num(p), _num(lo), _num(hi)])

    def line(self) -> str:
        out = self.out
        line = json.dumps(out, sort_keys=True)
        while len(line) > MAX_RESULT_CHARS and out["effects"]:
            out["effects"] = out["effects"][:-1]
            out["note"] = "effects cut to fit the output"
            line = json.dumps(out, sort_keys=True)
        return line


def _design(data: pd.DataFrame, terms: list[str]) -> pd.DataFrame:
    """The design matrix of ``y ~ terms`` in patsy's column order (patsy costs ~7-20 ms a
    fit): an intercept, treatment dummies ``C(x)[T.level]`` for the sorted levels but the
    first, then numeric terms and products for interactions - so the same fit."""
    cols = {"Intercept": np.ones(len(data))}
    for term in sorted(terms, key=lambda t: not t.startswith("C(")):
        if term.startswith("C("):
            base = term[2:-1]
            for level in sorted(data[base].unique())[1:]:
                cols[f"{term}[T.{level}]"] = (data[base] == level).to_numpy(dtype=float)
            continue
        parts = term.split(":")
        value = data[parts[0]].to_numpy(dtype=float)
        for part in parts[1:]:
            value = value * data[part].to_numpy(dtype=float)
        cols[term] = value
    return pd.DataFrame(cols, index=data.index)


def _model(data: pd.DataFrame, terms: list[str]) -> Callable[[str], Any]:
    """kind ("ols" / "logit") -> the unfitted model of ``y ~ terms``: through the formula
    when a text column interacts, else on :func:`_design` (the same fit, without patsy)."""
    if any(":" in t and "C(" in t for t in terms):
        import statsmodels.formula.api as smf

        formula = "y ~ " + " + ".join(terms)
        return lambda kind: getattr(smf, kind)(formula, data)
    from statsmodels.discrete.discrete_model import Logit
    from statsmodels.regression.linear_model import OLS

    design = _design(data, terms)
    y = data["y"].astype(float)
    return lambda kind: Logit(y, design) if kind == "logit" else OLS(y, design)


def _effects_of(res: _Result, fit: Any, back: dict[str, str]) -> None:
    """The fitted terms of the plan's predictors and interaction as effects, named by column
    (``col=level`` for a dummy, ``a:b`` for an interaction)."""
    plan = res.plan
    ci = fit.conf_int()
    wanted = set(plan["predictors"]) | ({plan["interaction"]} if plan["interaction"] else set())
    for term in fit.params.index:
        if term == "Intercept":
            continue
        parts = []
        for piece in term.split(":"):
            base = piece[2:].split(")")[0] if piece.startswith("C(") else piece
            level = piece.split("[T.", 1)[1].rstrip("]") if "[T." in piece else None
            col = back.get(base, base)
            parts.append(col if level is None else f"{col}={level}")
        cols = {p.split("=")[0] for p in parts}
        if ":" in term or cols & wanted:
            res.effect(":".join(parts), fit.params[term], fit.pvalues[term], ci.loc[term, 0],
                       ci.loc[term, 1])


def _regression(res: _Result, d: pd.DataFrame, kinds: dict[str, str], analysis: str) -> None:
    plan = res.plan
    names = {c: f"x{i}" for i, c in enumerate(d.columns) if c != "y"}
    terms = [f"C({names[c]})" if kinds[c] == "text" else names[c] for c in names]
    if plan["interaction"] and plan["predictors"]:
        a, b = plan["predictors"][0], plan["interaction"]
        if a in names and b in names:
            terms.append(f"{terms[list(names).index(a)]}:{terms[list(names).index(b)]}")
    model = _model(d.rename(columns=names), terms)
    if analysis == "logit":
        try:
            fit = model("logit").fit(disp=0, maxiter=200)
        except Exception:  # noqa: BLE001 - perfect separation and the like: a linear model
            analysis = "ols"
    if analysis == "ols":
        fit = model("ols").fit()
    res.out["analysis"] = analysis
    _effects_of(res, fit, {v: k for k, v in names.items()})


def _groups(values: pd.Series, by: pd.Series) -> list[tuple[Any, pd.Series]]:
    levels = by.value_counts().index.tolist()
    return [(lv, values[by == lv]) for lv in sorted(levels, key=str)]


def _prepared(res: _Result) -> tuple[pd.DataFrame, dict[str, str], list[str]]:
    """The plan's complete rows as 0/1, floats or text, the kind of each column, and the
    predictors that vary (constant columns left out, with a note)."""
    plan = res.plan
    df = load(plan, res.raws)
    cols = list(dict.fromkeys([plan["target"], *plan["predictors"], *plan["controls"],
                               *([plan["interaction"]] if plan["interaction"] else [])]))
    d, kinds = pd.DataFrame(index=df.index), {}
    for c in cols:
        d[c], kinds[c] = column(df[c])
    d = d.replace([np.inf, -np.inf], np.nan)
    if d[plan["target"]].isna().all():
        raise ValueError(f"the target {plan['target']} has no values")
    d = d.dropna()
    res.out["n"] = int(len(d))
    if len(d) < 3:
        raise ValueError(f"only {len(d)} complete rows")
    constant = [c for c in cols if d[c].nunique() < 2]
    if plan["target"] in constant:
        value = d[plan["target"]].iloc[0]
        res.out["analysis"] = "summary"
        res.out["note"] = f"target constant: {plan['target']} is {value} in all {len(d)} rows"
        res.effect("mean", value if kinds[plan["target"]] != "text" else 1.0)
        raise _Done
    d = d.drop(columns=list(constant))
    preds = [c for c in plan["predictors"] if c in d.columns]
    if constant:
        res.out["note"] = "constant, left out: " + ", ".join(constant)
    return d, kinds, preds


def _chosen(analysis: str, ykind: str, preds: list[str], kinds: dict[str, str]) -> str:
    """The analysis the data allow: a text target gets chi2 / ANOVA, a numeric one no logit."""
    if analysis in ("ols", "logit") and ykind == "text" or analysis == "logit" and (
            ykind == "numeric"):
        return "chi2" if preds and kinds[preds[0]] != "numeric" and ykind == "text" else (
            "anova" if ykind == "text" else "ols")
    return analysis


def _fit_regression(res: _Result, d: pd.DataFrame, kinds: dict[str, str],
                    preds: list[str], analysis: str) -> None:
    plan = res.plan
    if not preds:
        raise ValueError("no predictor varies")
    y = d[plan["target"]]
    yy = y
    if analysis == "logit":
        yy = (y == sorted(y.unique(), key=str)[-1]).astype(float)
    rest = d.drop(columns=[plan["target"]])
    rest.insert(0, "y", yy.astype(float))
    _regression(res, rest, kinds, analysis)


def _fit_correlation(res: _Result, d: pd.DataFrame, preds: list[str], analysis: str) -> None:
    from scipy import stats
    y = d[res.plan["target"]]
    x = d[preds[0]].astype(float)
    r, p = stats.pearsonr(x, y.astype(float))
    z, se = np.arctanh(max(min(r, 0.999999), -0.999999)), 1 / np.sqrt(max(len(d) - 3, 1))
    res.effect(preds[0], r, p, np.tanh(z - 1.96 * se), np.tanh(z + 1.96 * se))
    res.out["analysis"] = analysis


def _fit_groups(res: _Result, d: pd.DataFrame, kinds: dict[str, str], preds: list[str],
                analysis: str) -> None:
    from scipy import stats
    if not preds:
        raise ValueError("no predictor varies")
    y, ykind = d[res.plan["target"]], kinds[res.plan["target"]]
    x, xkind = d[preds[0]], kinds[preds[0]]
    if analysis == "chi2" or (ykind == "text" and xkind != "numeric"):
        table = pd.crosstab(x, y)
        chi2, p, dof, _ = stats.chi2_contingency(table)
        v = np.sqrt(chi2 / (table.values.sum() * max(min(table.shape) - 1, 1)))
        res.effect(preds[0], v, p)
        analysis = "chi2"
    else:
        values, by = (x.astype(float), y) if ykind == "text" else (y.astype(float), x)
        parts = _groups(values, by)
        if analysis == "ttest" and len(parts) >= 2:
            (_, va), (b, vb) = parts[0], parts[-1]
            _, p = stats.ttest_ind(vb, va, equal_var=False)
            diff = vb.mean() - va.mean()
            se = np.sqrt(vb.var() / len(vb) + va.var() / len(va))
            res.effect(f"{by.name}={b}", diff, p, diff - 1.96 * se, diff + 1.96 * se)
        else:
            f, p = stats.f_oneway(*[v for _, v in parts])
            grand = values.mean()
            between = sum(len(v) * (v.mean() - grand) ** 2 for _, v in parts)
            total = ((values - grand) ** 2).sum()
            res.effect(preds[0], between / total if total else 0.0, p)
            for lv, v in parts:
                res.effect(f"{by.name}={lv}", v.mean())
            analysis = "anova"
    res.out["analysis"] = analysis


def _fit_proportion(res: _Result, d: pd.DataFrame, kinds: dict[str, str],
                    preds: list[str]) -> None:
    y, ykind = d[res.plan["target"]], kinds[res.plan["target"]]
    rng = np.random.default_rng(0)
    hit = (y == sorted(y.unique(), key=str)[-1]).astype(float) if ykind != "numeric" or (
        y.nunique() == 2) else (y > y.median()).astype(float)
    sets = [("all", hit)] if not preds else [
        (f"{preds[0]}={lv}", hit[d[preds[0]] == lv]) for lv in sorted(d[preds[0]].unique(),
                                                                       key=str)]
    for name, h in sets:
        boot = [rng.choice(h.values, len(h)).mean() for _ in range(1000)]
        res.effect(name, h.mean(), None, np.percentile(boot, 2.5), np.percentile(boot, 97.5))


def _fit_summary(res: _Result, d: pd.DataFrame, kinds: dict[str, str],
                 preds: list[str]) -> None:
    plan = res.plan
    y, ykind = d[plan["target"]], kinds[plan["target"]]
    res.out["analysis"] = "summary"
    if ykind == "text":
        for lv, share in y.value_counts(normalize=True).head(5).items():
            res.effect(f"{plan['target']}={lv}", share)
    else:
        res.effect("mean", y.astype(float).mean(), None, y.astype(float).min(),
                   y.astype(float).max())
        for c in preds[:1]:
            for lv, v in _groups(y.astype(float), d[c]):
                res.effect(f"{c}={lv}", v.mean())


def _fit(res: _Result) -> None:
    d, kinds, preds = _prepared(res)
    analysis = _chosen(res.plan["analysis"], kinds[res.plan["target"]], preds, kinds)
    if analysis in ("ols", "logit"):
        _fit_regression(res, d, kinds, preds, analysis)
    elif analysis == "correlation":
        _fit_correlation(res, d, preds, analysis)
    elif analysis in ("ttest", "anova", "chi2"):
        _fit_groups(res, d, kinds, preds, analysis)
    elif analysis == "proportion":
        _fit_proportion(res, d, kinds, preds)
    else:
        _fit_summary(res, d, kinds, preds)
    if not res.out["effects"]:
        res.out["note"] = res.out["note"] or "nothing could be estimated"


def _compute(plan: dict[str, Any], raws: Raws | None = None) -> str:
    res = _Result(plan, raws)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _fit(res)
        except _Done:
            pass
        except Exception as err:  # noqa: BLE001 - bad data is a result with a note
            res.out["effects"] = []
            res.out["note"] = f"{type(err).__name__}: {err}"[:300]
    return f"{RESULT_MARK} {res.line()}"


def compute_stats(plan: dict[str, Any]) -> str:
    """The ``RESULT-STATS {json}`` line of ``plan`` (see the module docstring)."""
    return _memoised("compute", plan, lambda raws: _compute(plan, raws))


def _inspect(plan: dict[str, Any], raws: Raws | None = None) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _inspect_lines(plan, raws)


def _inspect_lines(plan: dict[str, Any], raws: Raws | None) -> str:
    lines = []
    try:
        df = load(dict(plan, filters=[]), raws)
        lines.append(f"rows {len(df)} columns {len(df.columns)}")
        cols = [plan["target"], *plan["predictors"], *plan["controls"],
                *(f[0] for f in plan["filters"])]
        for c in dict.fromkeys(cols):
            values, kind = column(df[c])
            lines.append(f"{c} {kind} missing {int(values.isna().sum())} distinct "
                         f"{int(values.nunique())}")
    except Exception as err:  # noqa: BLE001 - what cannot be inspected is said so
        lines.append(f"cannot inspect: {type(err).__name__} {err}")
    return "\n".join(lines)


def inspect_stats(plan: dict[str, Any]) -> str:
    """Rows and columns of the plan's table (unfiltered) and, per column of the plan, its
    kind, missing values and distinct values - one line each."""
    return _memoised("inspect", plan, lambda raws: _inspect(plan, raws))
