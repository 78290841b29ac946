"""The sandbox cells of the statistical family, and reading their output back.

API (stable names):

* :data:`STATS_MARK` - the first line of a statistical compute cell
  (``# collabsim analysis: compute-stats``);
* :data:`CELL_MODULES` - the modules a stats cell imports (pre-imported by the sandbox);
* :data:`STATS_INSPECT_MARK` - the first line of the cell that looks at the data;
* :func:`stats_cell(plan)` - a self-contained pandas + statsmodels / scipy cell computing a
  :class:`~collabsim.domain.stats.model.StatPlan` and printing one
  ``RESULT-STATS {json}`` line (:meth:`StatResult.to_json` layout). It never raises: a
  missing column, an all-NaN target, a constant column, too few rows or a failed fit print
  a result with a ``note`` (and no effects);
* :func:`stats_inspect_cell(plan)` - rows, missing values and kinds of the plan's columns;
* :func:`parse_stats_result(output)` - the last ``RESULT-STATS`` line as a
  :class:`~collabsim.domain.stats.model.StatResult` (None when there is none);
* :func:`plan_of_cell(code)` - the plan a (possibly edited) stats cell computes, read from
  its ``PLAN = {...}`` line (None for another cell).

The cell states its plan in one ``PLAN = {...}`` line, so a teammate reviewing it sees the
target, predictors, controls, filters and analysis. When the data contradict the planned
analysis (a logistic regression of a target with more than two values, a regression of a
text target), the cell runs the analysis that fits and says so in the result's
``analysis`` field; a logistic fit that fails (perfect separation) falls back to a linear
probability model. Bootstrap intervals use ``numpy.random.default_rng(0)``.
"""

from __future__ import annotations

import ast
import json
import re

from collabsim.domain.stats.columns import WIDE_MIN_YEARS, YEAR_COLUMN_RE
from collabsim.domain.stats.model import RESULT_MARK, TABLE_SEPARATOR, StatPlan, StatResult

STATS_MARK = "# collabsim analysis: compute-stats"
#: The modules a stats cell imports beyond pandas/numpy (the sandbox's fork server imports
#: them before forking workers when a statistical task runs).
CELL_MODULES: tuple[str, ...] = ("scipy.stats", "statsmodels.formula.api")
STATS_INSPECT_MARK = "# collabsim analysis: inspect-stats"
#: The longest ``RESULT-STATS`` JSON a cell prints (the sandbox keeps 4000 characters of
#: output per cell by default).
MAX_RESULT_CHARS = 3000
_PLAN_RE = re.compile(r"^PLAN = (\{.*\})$", re.MULTILINE)


def _constants() -> str:
    return (f"YEAR_RE = {YEAR_COLUMN_RE.pattern!r}\nWIDE_MIN_YEARS = {WIDE_MIN_YEARS}\n"
            f"SEPARATOR = {TABLE_SEPARATOR!r}\n")


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


_LOAD = '''\
import json
import re
import warnings
import numpy as np
import pandas as pd
from collabsim.domain.analysis_helpers import read_table

def load(plan):
    """The plan's table (tables joined on their shared columns), filtered."""
    df = None
    for name in plan["dataset"].split(SEPARATOR):
        t = read_table(name)
        years = [c for c in t.columns if re.match(YEAR_RE, str(c))]
        if len(years) >= WIDE_MIN_YEARS:  # one indicator, a column per year: melt it
            # (by hand: DataFrame.melt costs ~10 ms even on a two-row table)
            ids = [c for c in t.columns if c not in years]
            n = len(t)
            long = pd.DataFrame({c: np.tile(t[c].to_numpy(), len(years)) for c in ids})
            long["year"] = np.repeat(np.array([int(str(y).strip()[:4]) for y in years]), n)
            long[name.rsplit(".", 1)[0]] = t[years].to_numpy().T.reshape(-1)
            t = long
        if df is None:
            df = t
        else:
            keys = [c for c in df.columns if c in t.columns]
            df = df.merge(t, on=keys, how="inner") if keys else df.join(t, rsuffix="_2")
    used = [plan["target"], *plan["predictors"], *plan["controls"],
            *(f[0] for f in plan["filters"]), plan["interaction"]]
    missing = [c for c in dict.fromkeys(used) if c and c not in df.columns]
    if missing:
        raise LookupError("not in the data: " + ", ".join(missing))
    for col, op, value in plan["filters"]:
        s = df[col]
        num = pd.to_numeric(s, errors="coerce")
        try:
            v = float(value)
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

def column(s):
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
'''

_FIT = '''\
warnings.filterwarnings("ignore")
out = {"analysis": PLAN["analysis"], "target": PLAN["target"],
       "predictors": PLAN["predictors"], "controls": PLAN["controls"],
       "filters": PLAN["filters"], "interaction": PLAN["interaction"], "n": 0, "note": "",
       "effects": []}

def num(x):
    if x is None or x != x or x in (float("inf"), float("-inf")):
        return None
    return float(f"{float(x):.6g}")

def effect(name, est, p=None, lo=None, hi=None):
    if num(est) is None:
        return
    out["effects"].append([name, num(est), num(p), num(lo), num(hi)])

def regression(d, kinds, analysis):
    import statsmodels.formula.api as smf
    names = {c: f"x{i}" for i, c in enumerate(d.columns) if c != "y"}
    terms = [f"C({names[c]})" if kinds[c] == "text" else names[c] for c in names]
    if PLAN["interaction"] and PLAN["predictors"]:
        a, b = PLAN["predictors"][0], PLAN["interaction"]
        if a in names and b in names:
            terms.append(f"{terms[list(names).index(a)]}:{terms[list(names).index(b)]}")
    data = d.rename(columns=names)
    formula = "y ~ " + " + ".join(terms)
    if any(":" in t and "C(" in t for t in terms):
        def model(kind):
            return getattr(smf, kind)(formula, data)
    else:
        # no interaction with a text column: the formula's design matrix built directly
        # (patsy costs ~7-20 ms a fit) with the same columns in the same order - an
        # intercept, treatment dummies "C(x)[T.level]" for the sorted levels but the first,
        # then numeric terms and products for interactions - so the same fit. The model
        # classes are those smf already loaded (statsmodels.api costs ~0.5 s to import in a
        # fresh sandbox worker).
        from statsmodels.discrete.discrete_model import Logit
        from statsmodels.regression.linear_model import OLS
        cols = {"Intercept": np.ones(len(data))}
        # patsy's order: terms without a numeric factor first, then the numeric ones
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
        X = pd.DataFrame(cols, index=data.index)
        def model(kind):
            y = data["y"].astype(float)
            return Logit(y, X) if kind == "logit" else OLS(y, X)
    if analysis == "logit":
        try:
            fit = model("logit").fit(disp=0, maxiter=200)
        except Exception:
            analysis = "ols"
    if analysis == "ols":
        fit = model("ols").fit()
    out["analysis"] = analysis
    ci = fit.conf_int()
    back = {v: k for k, v in names.items()}
    wanted = set(PLAN["predictors"]) | ({PLAN["interaction"]} if PLAN["interaction"] else set())
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
            effect(":".join(parts), fit.params[term], fit.pvalues[term], ci.loc[term, 0],
                   ci.loc[term, 1])

def groups(values, by):
    levels = by.value_counts().index.tolist()
    return [(lv, values[by == lv]) for lv in sorted(levels, key=str)]

try:
    df = load(PLAN)
    cols = list(dict.fromkeys([PLAN["target"], *PLAN["predictors"], *PLAN["controls"],
                               *([PLAN["interaction"]] if PLAN["interaction"] else [])]))
    d, kinds = pd.DataFrame(index=df.index), {}
    for c in cols:
        d[c], kinds[c] = column(df[c])
    d = d.replace([np.inf, -np.inf], np.nan)
    if d[PLAN["target"]].isna().all():
        raise ValueError(f"the target {PLAN['target']} has no values")
    d = d.dropna()
    out["n"] = int(len(d))
    if len(d) < 3:
        raise ValueError(f"only {len(d)} complete rows")
    constant = [c for c in cols if d[c].nunique() < 2]
    if PLAN["target"] in constant:
        value = d[PLAN["target"]].iloc[0]
        out["analysis"] = "summary"
        out["note"] = f"target constant: {PLAN['target']} is {value} in all {len(d)} rows"
        effect("mean", value if kinds[PLAN["target"]] != "text" else 1.0)
        raise SystemExit
    d = d.drop(columns=[c for c in constant])
    preds = [c for c in PLAN["predictors"] if c in d.columns]
    if constant:
        out["note"] = "constant, left out: " + ", ".join(constant)
    y, ykind = d[PLAN["target"]], kinds[PLAN["target"]]
    analysis = PLAN["analysis"]
    if analysis in ("ols", "logit") and ykind == "text" or analysis == "logit" and (
            ykind == "numeric"):
        analysis = "chi2" if preds and kinds[preds[0]] != "numeric" and ykind == "text" else (
            "anova" if ykind == "text" else "ols")
    if analysis in ("ols", "logit"):
        if not preds:
            raise ValueError("no predictor varies")
        yy = y
        if analysis == "logit":
            yy = (y == sorted(y.unique(), key=str)[-1]).astype(float)
        rest = d.drop(columns=[PLAN["target"]])
        rest.insert(0, "y", yy.astype(float))
        regression(rest, kinds, analysis)
    elif analysis == "correlation":
        from scipy import stats
        x = d[preds[0]].astype(float)
        r, p = stats.pearsonr(x, y.astype(float))
        z, se = np.arctanh(max(min(r, 0.999999), -0.999999)), 1 / np.sqrt(max(len(d) - 3, 1))
        effect(preds[0], r, p, np.tanh(z - 1.96 * se), np.tanh(z + 1.96 * se))
        out["analysis"] = analysis
    elif analysis in ("ttest", "anova", "chi2"):
        from scipy import stats
        if not preds:
            raise ValueError("no predictor varies")
        x, xkind = d[preds[0]], kinds[preds[0]]
        if analysis == "chi2" or (ykind == "text" and xkind != "numeric"):
            table = pd.crosstab(x, y)
            chi2, p, dof, _ = stats.chi2_contingency(table)
            v = np.sqrt(chi2 / (table.values.sum() * max(min(table.shape) - 1, 1)))
            effect(preds[0], v, p)
            analysis = "chi2"
        else:
            values, by = (x.astype(float), y) if ykind == "text" else (y.astype(float), x)
            parts = groups(values, by)
            if analysis == "ttest" and len(parts) >= 2:
                (a, va), (b, vb) = parts[0], parts[-1]
                t, p = stats.ttest_ind(vb, va, equal_var=False)
                diff = vb.mean() - va.mean()
                se = np.sqrt(vb.var() / len(vb) + va.var() / len(va))
                effect(f"{by.name}={b}", diff, p, diff - 1.96 * se, diff + 1.96 * se)
            else:
                f, p = stats.f_oneway(*[v for _, v in parts])
                grand = values.mean()
                between = sum(len(v) * (v.mean() - grand) ** 2 for _, v in parts)
                total = ((values - grand) ** 2).sum()
                effect(preds[0], between / total if total else 0.0, p)
                for lv, v in parts:
                    effect(f"{by.name}={lv}", v.mean())
                analysis = "anova"
        out["analysis"] = analysis
    elif analysis == "proportion":
        rng = np.random.default_rng(0)
        hit = (y == sorted(y.unique(), key=str)[-1]).astype(float) if ykind != "numeric" or (
            y.nunique() == 2) else (y > y.median()).astype(float)
        sets = [("all", hit)] if not preds else [
            (f"{preds[0]}={lv}", hit[d[preds[0]] == lv]) for lv in sorted(d[preds[0]].unique(),
                                                                           key=str)]
        for name, h in sets:
            boot = [rng.choice(h.values, len(h)).mean() for _ in range(1000)]
            effect(name, h.mean(), None, np.percentile(boot, 2.5), np.percentile(boot, 97.5))
    else:
        out["analysis"] = "summary"
        if ykind == "text":
            for lv, share in y.value_counts(normalize=True).head(5).items():
                effect(f"{PLAN['target']}={lv}", share)
        else:
            effect("mean", y.astype(float).mean(), None, y.astype(float).min(),
                   y.astype(float).max())
            for c in preds[:1]:
                for lv, v in groups(y.astype(float), d[c]):
                    effect(f"{c}={lv}", v.mean())
    if not out["effects"]:
        out["note"] = out["note"] or "nothing could be estimated"
except SystemExit:
    pass
except Exception as err:
    out["effects"] = []
    out["note"] = f"{type(err).__name__}: {err}"[:300]
line = json.dumps(out, sort_keys=True)
while len(line) > MAX_CHARS and out["effects"]:
    out["effects"] = out["effects"][:-1]
    out["note"] = "effects cut to fit the output"
    line = json.dumps(out, sort_keys=True)
print("RESULT-STATS " + line)
'''


def stats_cell(plan: StatPlan) -> str:
    """A self-contained cell computing ``plan`` and printing one ``RESULT-STATS`` line
    (at most :data:`MAX_RESULT_CHARS` characters: the last effects are cut to fit)."""
    return (f"{STATS_MARK}\n{_LOAD}\n{_constants()}PLAN = {_plan_literal(plan)}\n"
            f"MAX_CHARS = {MAX_RESULT_CHARS}\n\n{_FIT}")


def stats_inspect_cell(plan: StatPlan) -> str:
    """A cell printing the table's rows and, per column of the plan, its missing values,
    distinct values and kind."""
    return (
        f"{STATS_INSPECT_MARK}\n{_LOAD}\n{_constants()}PLAN = {_plan_literal(plan)}\n\n"
        "try:\n"
        "    df = load(dict(PLAN, filters=[]))\n"
        "    print('rows', len(df), 'columns', len(df.columns))\n"
        "    cols = [PLAN['target'], *PLAN['predictors'], *PLAN['controls'],\n"
        "            *(f[0] for f in PLAN['filters'])]\n"
        "    for c in dict.fromkeys(cols):\n"
        "        values, kind = column(df[c])\n"
        "        print(c, kind, 'missing', int(values.isna().sum()), 'distinct',"
        " int(values.nunique()))\n"
        "except Exception as err:\n"
        "    print('cannot inspect:', type(err).__name__, err)\n"
    )


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
