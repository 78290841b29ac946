"""Wording a statistical result as a hypothesis in DiscoveryBench's gold style.

Golds of the statistical domains name the variables, the direction, the magnitude ("with a
coefficient of 0.3596"), the significance ("p < 0.001", "no significant association"), the
population ("in Black women", "for 1989 data") and the controls. :func:`word_hypothesis`
writes such a sentence from a parsed :class:`~collabsim.domain.stats.model.StatResult`.

API (stable names):

* :func:`word_hypothesis(result, phrases=None, population="")` - the hypothesis sentence;
  ``phrases`` maps columns to the words used for them (the query's words, see
  :class:`~collabsim.domain.stats.reading.StatQuery.phrases`; else the column name made
  readable);
* :func:`column_phrase(column, phrases)` - the words for one column;
* :func:`p_text(p)` - ``p < 0.001`` / ``p = 0.038``;
* :func:`unanswered_hypothesis(plan_or_result, phrases, note)` - the cautious sentence
  when nothing could be estimated (it names the variables and why; never the time-series
  fallback).
"""

from __future__ import annotations

from collections.abc import Mapping

from collabsim.domain.stats.model import Effect, StatPlan, StatResult

ALPHA = 0.05


def column_phrase(column: str, phrases: Mapping[str, str] | None = None) -> str:
    """Words for a column: the query's words for it, else its name made readable."""
    if "=" in column:
        name, _, level = column.partition("=")
        return f"{column_phrase(name, phrases)} = {level}"
    if phrases and phrases.get(column):
        return phrases[column].strip(" ,.?").replace("\n", " ")
    return column.replace("_", " ")


def p_text(p: float | None) -> str:
    """``p < 0.001`` or ``p = 0.038`` (empty without a p-value)."""
    if p is None:
        return ""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _num(x: float) -> str:
    """A number the way golds write them: 4 significant digits, no exponent for the usual
    range."""
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 0.001:
        return f"{x:.4g}"
    return f"{x:.3g}"


def _context(result: StatResult, phrases: Mapping[str, str] | None, population: str) -> str:
    parts = []
    if population:
        parts.append(population.strip())
    elif result.filters:
        parts.append("for rows with " + ", ".join(
            f"{column_phrase(c, phrases)} {op} {v}" for c, op, v in result.filters))
    if result.controls:
        parts.append("controlling for " + ", ".join(
            column_phrase(c, phrases) for c in result.controls))
    return (" " + ", ".join(parts)) if parts else ""


def _regression(result: StatResult, phrases: Mapping[str, str] | None, ctx: str) -> str:
    target = column_phrase(result.target, phrases)
    scale = " (log-odds)" if result.analysis == "logit" else ""
    sig = [e for e in result.effects if e.significant(ALPHA)]
    non = [e for e in result.effects if not e.significant(ALPHA)]
    sentences = []
    if len(result.effects) > 3 and sig:
        ranked = sorted(sig, key=lambda e: (e.p_value or 0.0, -abs(e.estimate)))
        top = ranked[0]
        sentences.append(
            f"Among the factors considered{ctx}, {column_phrase(top.variable, phrases)} is the "
            f"most significant predictor of {target}: the relationship is {top.direction} "
            f"with a coefficient{scale} of {_num(top.estimate)} ({p_text(top.p_value)}).")
        rest = [f"{column_phrase(e.variable, phrases)} ({e.direction}, coefficient "
                f"{_num(e.estimate)}, {p_text(e.p_value)})" for e in ranked[1:4]]
        if rest:
            sentences.append("Other significant factors: " + "; ".join(rest) + ".")
        return " ".join(sentences)
    for e in sig:
        likely = (" the likelihood of" if result.analysis == "logit" else "")
        sentences.append(
            f"{column_phrase(e.variable, phrases)[:1].upper()}"
            f"{column_phrase(e.variable, phrases)[1:]} is {e.direction}ly associated with"
            f"{likely} {target}{ctx}, with a coefficient{scale} of {_num(e.estimate)} "
            f"({p_text(e.p_value)}).")
    for e in non:
        sentences.append(
            f"{column_phrase(e.variable, phrases)[:1].upper()}"
            f"{column_phrase(e.variable, phrases)[1:]} has no significant association with "
            f"{target}{ctx} (coefficient {_num(e.estimate)}, {p_text(e.p_value)}).")
    return " ".join(sentences)


def _correlation(result: StatResult, phrases: Mapping[str, str] | None, ctx: str) -> str:
    e = result.effects[0]
    x, y = column_phrase(e.variable, phrases), column_phrase(result.target, phrases)
    if not e.significant(ALPHA):
        return (f"There is no significant correlation between {x} and {y}{ctx} "
                f"(r = {e.estimate:.2f}, {p_text(e.p_value)}).")
    strength = "weak" if abs(e.estimate) < 0.3 else "moderate" if abs(e.estimate) < 0.6 else \
        "strong"
    return (f"{x[:1].upper()}{x[1:]} and {y} are {strength}ly {e.direction}ly correlated{ctx} "
            f"(r = {e.estimate:.2f}, {p_text(e.p_value)}).")


def _groups(result: StatResult, phrases: Mapping[str, str] | None, ctx: str) -> str:
    e = result.effects[0]
    y = column_phrase(result.target, phrases)
    if result.analysis == "ttest":
        group = column_phrase(e.variable, phrases)
        if not e.significant(ALPHA):
            return (f"{y[:1].upper()}{y[1:]} does not differ significantly by "
                    f"{column_phrase(e.variable.split('=')[0], phrases)}{ctx} (difference "
                    f"{_num(e.estimate)}, {p_text(e.p_value)}).")
        more = "higher" if e.estimate > 0 else "lower"
        return (f"{y[:1].upper()}{y[1:]} is {more} where {group}{ctx} (difference of means "
                f"{_num(e.estimate)}, {p_text(e.p_value)}).")
    x = column_phrase(e.variable, phrases)
    size = ("Cramér's V" if result.analysis == "chi2" else "eta squared")
    if not e.significant(ALPHA):
        return (f"There is no significant association between {x} and {y}{ctx} "
                f"({size} {_num(e.estimate)}, {p_text(e.p_value)}).")
    text = (f"{y[:1].upper()}{y[1:]} is significantly associated with {x}{ctx} "
            f"({size} {_num(e.estimate)}, {p_text(e.p_value)}).")
    levels = sorted((m for m in result.effects[1:] if "=" in m.variable),
                    key=lambda m: -m.estimate)
    if len(levels) >= 2:
        hi, lo = levels[0], levels[-1]
        text += (f" Its mean is highest for {column_phrase(hi.variable, phrases)} "
                 f"({_num(hi.estimate)}) and lowest for {column_phrase(lo.variable, phrases)} "
                 f"({_num(lo.estimate)}).")
    return text


def _proportion(result: StatResult, phrases: Mapping[str, str] | None, ctx: str) -> str:
    y = column_phrase(result.target, phrases)
    parts = []
    for e in result.effects[:4]:
        ci = (f" (95% CI {e.ci_low * 100:.1f}-{e.ci_high * 100:.1f}%)"
              if e.ci_low is not None and e.ci_high is not None else "")
        who = "" if e.variable == "all" else f" where {column_phrase(e.variable, phrases)}"
        parts.append(f"{e.estimate * 100:.1f}%{ci}{who}")
    return f"The share with {y}{ctx} is " + "; ".join(parts) + "."


def _summary(result: StatResult, phrases: Mapping[str, str] | None, ctx: str) -> str:
    y = column_phrase(result.target, phrases)
    first = result.effects[0]
    if first.variable == "mean":
        text = f"The mean of {y}{ctx} is {_num(first.estimate)} (n = {result.n})"
        if first.ci_low is not None and first.ci_high is not None:
            text += f", ranging from {_num(first.ci_low)} to {_num(first.ci_high)}"
        groups = result.effects[1:]
        if len(groups) >= 2:
            hi = max(groups, key=lambda e: e.estimate)
            lo = min(groups, key=lambda e: e.estimate)
            text += (f"; it is highest where {column_phrase(hi.variable, phrases)} "
                     f"({_num(hi.estimate)}) and lowest where "
                     f"{column_phrase(lo.variable, phrases)} ({_num(lo.estimate)})")
        return text + "."
    shares = ", ".join(f"{column_phrase(e.variable, phrases)} ({e.estimate * 100:.0f}%)"
                       for e in result.effects[:4])
    return f"The most common values of {y}{ctx} are {shares}."


def unanswered_hypothesis(plan: StatPlan | StatResult | None,
                          phrases: Mapping[str, str] | None = None, note: str = "") -> str:
    """The cautious answer when nothing could be estimated: the variables and why."""
    if plan is None or not plan.target:
        return ("The data do not identify the variables the question asks about, so no "
                "statistical relationship can be stated.")
    y = column_phrase(plan.target, phrases)
    xs = ", ".join(column_phrase(p, phrases) for p in plan.predictors) or "the other columns"
    why = f" ({note})" if note else ""
    if "constant" in note:
        return (f"{y[:1].upper()}{y[1:]} does not vary in the data analysed{why}, so it shows "
                f"no association with {xs}.")
    return (f"No statistical relationship between {xs} and {y} can be established from the "
            f"data{why}.")


def word_hypothesis(result: StatResult | None, phrases: Mapping[str, str] | None = None,
                    population: str = "") -> str:
    """A result worded in DiscoveryBench gold style (see module docstring)."""
    if result is None:
        return unanswered_hypothesis(None, phrases)
    if not result.effects:
        return unanswered_hypothesis(result, phrases, result.note)
    ctx = _context(result, phrases, population)
    if result.note.startswith("target constant"):
        e: Effect = result.effects[0]
        y = column_phrase(result.target, phrases)
        return (f"{y[:1].upper()}{y[1:]} is {_num(e.estimate)} for all {result.n} rows{ctx}; "
                f"it does not vary with "
                f"{', '.join(column_phrase(p, phrases) for p in result.predictors)}.")
    if result.analysis in ("ols", "logit"):
        return _regression(result, phrases, ctx)
    if result.analysis == "correlation":
        return _correlation(result, phrases, ctx)
    if result.analysis in ("ttest", "anova", "chi2"):
        return _groups(result, phrases, ctx)
    if result.analysis == "proportion":
        return _proportion(result, phrases, ctx)
    return _summary(result, phrases, ctx)
