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


def _t(e: Effect) -> float:
    """|estimate| over its standard error (from the 95 % interval; 0 without one)."""
    if e.ci_low is None or e.ci_high is None or e.ci_high <= e.ci_low:
        return 0.0
    return abs(e.estimate) / ((e.ci_high - e.ci_low) / 3.92)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _effect_clause(e: Effect, phrases: Mapping[str, str] | None, scale: str) -> str:
    return (f"{column_phrase(e.variable, phrases)} ({e.direction}, coefficient{scale} "
            f"{_num(e.estimate)}, {p_text(e.p_value)})")


def _compare(result: StatResult, phrases: Mapping[str, str] | None, ctx: str,
             asks: frozenset[str], focus: str) -> str:
    """Several predictors compared: the strongest (largest |t|) first, or the named one."""
    target = column_phrase(result.target, phrases)
    scale = " (log-odds)" if result.analysis == "logit" else ""
    sig = sorted((e for e in result.effects if e.significant(ALPHA)), key=lambda e: -_t(e))
    if "negative" in asks and "positive" not in asks:
        chosen = [e for e in sig if e.estimate < 0]
        if chosen:
            return (f"Among the factors considered{ctx}, "
                    + " and ".join(column_phrase(e.variable, phrases) for e in chosen[:3])
                    + f" {'has' if len(chosen) == 1 else 'have'} a significant negative "
                    f"relationship with {target}, with "
                    f"{'a coefficient' if len(chosen) == 1 else 'coefficients'}{scale} of "
                    + " and ".join(_num(e.estimate) for e in chosen[:3]) + " ("
                    + "; ".join(p_text(e.p_value) for e in chosen[:3]) + ").")
    named = next((e for e in result.effects if e.variable == focus), None)
    if named is not None:
        rank = 1 + sum(1 for e in sig if _t(e) > _t(named))
        if not named.significant(ALPHA):
            head = (f"{_cap(column_phrase(focus, phrases))} has no significant association "
                    f"with {target}{ctx} (coefficient{scale} {_num(named.estimate)}, "
                    f"{p_text(named.p_value)}).")
        elif rank == 1:
            head = (f"{_cap(column_phrase(focus, phrases))} is the most influential factor "
                    f"explaining {target}{ctx}: the relationship is {named.direction} with a "
                    f"coefficient{scale} of {_num(named.estimate)} ({p_text(named.p_value)}).")
        else:
            head = (f"{_cap(column_phrase(focus, phrases))} has a {named.direction} "
                    f"relationship with {target}{ctx} (coefficient{scale} "
                    f"{_num(named.estimate)}, {p_text(named.p_value)}), but it is not the most "
                    f"influential factor (rank {rank} of {len(result.effects)}).")
        top = [e for e in sig if e.variable != focus][:2]
        if top and rank != 1:
            head += " Stronger: " + "; ".join(_effect_clause(e, phrases, scale)
                                             for e in top) + "."
        return head
    if not sig:
        return (f"None of the factors considered has a significant association with "
                f"{target}{ctx}.")
    top = sig[0]
    text = (f"Among the factors considered{ctx}, {column_phrase(top.variable, phrases)} is the "
            f"most influential factor explaining {target}: the relationship is {top.direction} "
            f"with a coefficient{scale} of {_num(top.estimate)} ({p_text(top.p_value)}).")
    rest = [_effect_clause(e, phrases, scale) for e in sig[1:4]]
    if rest:
        text += " Other significant factors: " + "; ".join(rest) + "."
    return text


def _term_sentence(e: Effect, target: str, phrases: Mapping[str, str] | None, ctx: str,
                   scale: str) -> str:
    """The sentence of an interaction term (``a:b``) or a categorical level (``col=level``);
    empty for a plain predictor."""
    stats = f"coefficient{scale} {_num(e.estimate)}, {p_text(e.p_value)}"
    if ":" in e.variable:
        a, _, b = e.variable.partition(":")
        a_words, b_words = column_phrase(a, phrases), column_phrase(b, phrases)
        if not e.significant(ALPHA):
            return (f"The association of {a_words} with {target}{ctx} does not differ "
                    f"significantly with {b_words} (interaction {stats}).")
        more = "stronger" if e.estimate > 0 else "weaker"
        return (f"The association of {a_words} with {target}{ctx} is {more} with "
                f"{b_words} (interaction {stats}).")
    if "=" in e.variable:
        column, _, level = e.variable.partition("=")
        where = f"where {column_phrase(column, phrases)} is {level}"
        if not e.significant(ALPHA):
            return (f"{_cap(target)} does not differ significantly {where}{ctx} from the "
                    f"reference group ({stats}).")
        more = "higher" if e.estimate > 0 else "lower"
        return f"{_cap(target)} is {more} {where}{ctx} than in the reference group ({stats})."
    return ""


def _level_words(column: str, level: str, phrases: Mapping[str, str] | None) -> str:
    """"among <label>" for a coded level the reading labelled (``phrases["female=1"]``),
    else "where <column> = <level>"."""
    label = (phrases or {}).get(f"{column}={level}")
    return f"among {label}" if label else f"where {column_phrase(column, phrases)} = {level}"


def _simple_slopes(result: StatResult, phrases: Mapping[str, str] | None, ctx: str,
                   scale: str) -> str:
    """The slope of the first predictor in each group of a 0/1 moderator, for a
    significant interaction (empty otherwise): "Higher X is associated with higher Y among
    men but with lower Y among women (interaction coefficient ...)"."""
    if not result.interaction or not result.predictors:
        return ""
    a, b = result.predictors[0], result.interaction
    main = next((e for e in result.effects if e.variable == a), None)
    term = next((e for e in result.effects if e.variable == f"{a}:{b}"), None)
    if main is None or term is None or not term.significant(ALPHA):
        return ""
    x, y = column_phrase(a, phrases), column_phrase(result.target, phrases)
    zero, one = _level_words(b, "0", phrases), _level_words(b, "1", phrases)
    slope0, slope1 = main.estimate, main.estimate + term.estimate
    stats = f"interaction coefficient{scale} {_num(term.estimate)}, {p_text(term.p_value)}"
    way0 = "higher" if slope0 > 0 else "lower"
    way1 = "higher" if slope1 > 0 else "lower"
    if (slope0 > 0) == (slope1 > 0):
        strength = "more" if abs(slope1) > abs(slope0) else "less"
        return (f"Higher {x} is associated with {way0} {y}{ctx}, and {strength} strongly "
                f"{one} than {zero} ({stats}).")
    return (f"Higher {x} is associated with {way0} {y} {zero} but with {way1} {y} "
            f"{one}{ctx} ({stats}).")


def _regression(result: StatResult, phrases: Mapping[str, str] | None, ctx: str) -> str:
    target = column_phrase(result.target, phrases)
    scale = " (log-odds)" if result.analysis == "logit" else ""
    likely = " the likelihood of" if result.analysis == "logit" else ""
    sentences = []
    slopes = _simple_slopes(result, phrases, ctx, scale)
    if slopes:
        # the interaction's groups say how the first predictor relates to the target; the
        # moderator's own main effect is not what the query asks about
        sentences.append(slopes)
        a, b = result.predictors[0], result.interaction
        skip = {a, b, f"{a}:{b}"}
    else:
        skip = set()
    for e in result.effects:
        if e.variable in skip:
            continue
        x = _cap(column_phrase(e.variable, phrases))
        special = _term_sentence(e, target, phrases, ctx, scale)
        if special:
            sentences.append(special)
        elif e.significant(ALPHA):
            sentences.append(
                f"{x} is {e.direction}ly associated with{likely} {target}{ctx}, with a "
                f"coefficient{scale} of {_num(e.estimate)} ({p_text(e.p_value)}).")
        else:
            sentences.append(
                f"{x} has no significant association with {target}{ctx} (coefficient{scale} "
                f"{_num(e.estimate)}, {p_text(e.p_value)}).")
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
    levels = sorted((m for m in result.effects[1:] if "=" in m.variable),
                    key=lambda m: -m.estimate)
    by_target = bool(levels) and levels[0].variable.startswith(result.target + "=")
    if by_target:  # a categorical outcome: the predictor's means across its groups
        text = (f"{_cap(x)} differs significantly across {y}{ctx} ({size} "
                f"{_num(e.estimate)}, {p_text(e.p_value)})")
        mean_of = x
    else:
        text = (f"{_cap(y)} is significantly associated with {x}{ctx} ({size} "
                f"{_num(e.estimate)}, {p_text(e.p_value)})")
        mean_of = y
    if len(levels) >= 2:
        hi, lo = levels[0], levels[-1]
        text += (f"; the mean of {mean_of} is highest for {column_phrase(hi.variable, phrases)}"
                 f" ({_num(hi.estimate)}) and lowest for {column_phrase(lo.variable, phrases)} "
                 f"({_num(lo.estimate)})")
    return text + "."


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
    if "no rows where" in note:
        where = note.split("no rows where", 1)[1].strip()
        return (f"No rows of the data have {where}, so the relationship between {xs} and {y} "
                f"cannot be tested in that population.")
    if "constant" in note:
        return (f"{y[:1].upper()}{y[1:]} does not vary in the data analysed{why}, so it shows "
                f"no association with {xs}.")
    return (f"No statistical relationship between {xs} and {y} can be established from the "
            f"data{why}.")


def word_hypothesis(result: StatResult | None, phrases: Mapping[str, str] | None = None,
                    population: str = "", asks: frozenset[str] = frozenset(),
                    focus: str = "") -> str:
    """A result worded in DiscoveryBench gold style (see module docstring).

    Args:
        result: The parsed result (None: nothing was computed).
        phrases: Column -> the words for it.
        population: The query's words for the population (else the filters are listed).
        asks: What the query asks (:data:`~collabsim.domain.stats.reading.ASKS`): with
            ``compare`` (or more than three effects) the predictors are ranked; with
            ``negative`` only the negative ones are named.
        focus: The predictor the query names in a comparison ("is X the most impactful
            factor?"): its effect and rank lead.
    """
    if result is None:
        return unanswered_hypothesis(None, phrases)
    if not result.effects:
        return unanswered_hypothesis(result, phrases, result.note)
    ctx = _context(result, phrases, population)
    if result.note.startswith("target constant"):
        return _constant(result, phrases, ctx)
    if result.analysis in ("ols", "logit") and ("compare" in asks or len(result.effects) > 3):
        return _compare(result, phrases, ctx, asks, focus)
    word = _BY_ANALYSIS.get(result.analysis, _summary)
    return word(result, phrases, ctx)


def _constant(result: StatResult, phrases: Mapping[str, str] | None, ctx: str) -> str:
    y = column_phrase(result.target, phrases)
    value = result.note.split(" is ", 1)[-1].split(" in all ", 1)[0]
    xs = ", ".join(column_phrase(p, phrases) for p in result.predictors)
    return (f"{_cap(y)} is {value} for all {result.n} rows{ctx}; it does not vary with "
            f"{xs or 'the other variables'}.")


_BY_ANALYSIS = {"ols": _regression, "logit": _regression, "correlation": _correlation,
                "ttest": _groups, "anova": _groups, "chi2": _groups,
                "proportion": _proportion, "summary": _summary}
