"""Wording generated statistical tasks: the query, the gold hypothesis and the decisive fact.

Every task has exactly one decisive :class:`~collabsim.core.knowledge.Fact` whose topic is
a parameter of :meth:`~collabsim.domain.stats.model.StatPlan.with_fix` and whose setting
uses that syntax:

* ``controls`` (a data convention, D): the query names exposure and outcome only; the fact
  says which covariate the study controls for (the others are plain covariates). Without it
  the plain fit gives the opposite sign;
* ``target`` / ``predictors`` (readings, R): the query names a pair of similar-sounding
  columns by their shared term ("hypertension", "screen time"); the fact says which column
  the term means (one in two);
* ``filters`` (a reading, R): the query names a population by name ("rural respondents");
  the coded column's levels are in the codebook only, and the fact gives the code (one in
  three, and the whole table answers otherwise);
* ``analysis`` (a convention, D): "how strongly" is reported as a Pearson correlation or as
  a regression slope by the study's convention, drawn per task (one in two).

Golds follow DiscoveryBench's style: variables, direction, magnitude, significance,
population and controls ("Controlling for age, higher weekly exercise is associated with
lower systolic blood pressure among respondents (coefficient -2.41, p < 0.001).").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from collabsim.core.knowledge import STAT_TOPIC_KIND, Fact
from collabsim.domain.stats.model import Effect, format_filters
from collabsim.tasks.stats_generator_tables import FACT_TOPIC, PlantedStat
from collabsim.tasks.stats_vocabulary import Measure

QUESTION_TYPE: dict[str, str] = {"proportion": "general", "subgroup": "context"}
WORKFLOW_TAGS: dict[str, str] = {
    "confounded": "regression analysis, data cleaning",
    "binary": "logistic regression, data cleaning",
    "subgroup": "regression analysis, data selection",
    "null": "regression analysis, significance testing",
    "group_difference": "group comparison, t-test",
    "interaction": "regression analysis, interaction terms",
    "proportion": "descriptive statistics, confidence intervals",
    "correlation": "correlation analysis, regression analysis",
    "binary_confounded": "logistic regression, data cleaning",
}


def word_stat_task(rng: np.random.Generator, task: PlantedStat) -> tuple[str, str, Fact]:
    """(query, gold hypothesis, decisive fact) of a planted task; ``rng`` draws the
    query's phrasing."""
    pick = int(rng.integers(0, 3))
    return _query(task, pick), gold_of(task), _fact(task)


def number(value: float) -> str:
    """A coefficient as golds write it: two decimals, three significant digits below 0.1."""
    if value != 0 and abs(value) < 0.1:
        return f"{value:.2g}" if abs(value) >= 0.01 else f"{value:.1e}"
    return f"{value:.2f}"


def p_text(p: float | None) -> str:
    """``p < 0.001`` or ``p = 0.042``."""
    if p is None:
        return ""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _more(e: Effect) -> str:
    return "higher" if e.estimate > 0 else "lower"


def _bare(m: Measure) -> str:
    """A column description without its coding note (``(1 = yes, 0 = no)``)."""
    text = m.description.split(" (1 = ")[0].split(" (code ")[0]
    return text[:1].lower() + text[1:]


# ---------------------------------------------------------------------------------- golds


def gold_of(task: PlantedStat) -> str:
    """The gold hypothesis: the right plan's effect worded in DiscoveryBench style."""
    return _GOLDS[task.shape](task.roles, task.effect, task.domain.unit)


def _stats(e: Effect, label: str = "coefficient") -> str:
    return f"{label} {number(e.estimate)}, {p_text(e.p_value)}"


def _gold_confounded(r: dict[str, Any], e: Effect, unit: str) -> str:
    return (f"Controlling for {r['c'].term}, higher {r['x'].term} is associated with "
            f"{_more(e)} {r['y'].term} among {unit} ({_stats(e)}).")


def _gold_binary_confounded(r: dict[str, Any], e: Effect, unit: str) -> str:
    return (f"Controlling for {r['c'].term}, higher {r['x'].term} is associated with "
            f"{_more(e)} odds of {r['y'].term} among {unit} "
            f"({_stats(e, 'logistic regression coefficient')}).")


def _gold_binary(r: dict[str, Any], e: Effect, unit: str) -> str:
    return (f"Higher {r['x'].term} is associated with {_more(e)} odds of {r['y'].term} "
            f"among {unit} ({_stats(e, 'logistic regression coefficient')}).")


def _gold_subgroup(r: dict[str, Any], e: Effect, unit: str) -> str:
    return (f"Among {r['level']} {unit}, higher {r['x'].term} is associated with "
            f"{_more(e)} {r['y'].term} ({_stats(e)}).")


def _gold_null(r: dict[str, Any], e: Effect, unit: str) -> str:
    return (f"There is no significant association between {r['x'].term} and "
            f"{r['y'].term} among {unit} ({_stats(e)}).")


def _gold_group_difference(r: dict[str, Any], e: Effect, unit: str) -> str:
    g = r["group"]
    return (f"{_cap(r['y'].term)} is {_more(e)} among {g.yes} than among {g.no} "
            f"(difference in means {number(abs(e.estimate))}, {p_text(e.p_value)}).")


def _gold_interaction(r: dict[str, Any], e: Effect, unit: str) -> str:
    z, x, y = r["moderator"], r["x"].term, r["y"].term
    stats = _stats(e, "interaction coefficient")
    if e.estimate > 0:
        return (f"Higher {x} is associated with higher {y}, and more strongly among "
                f"{z.yes} than among {z.no} ({stats}).")
    return (f"Higher {x} is associated with higher {y} among {z.no} but with lower {y} "
            f"among {z.yes} ({stats}).")


def _gold_proportion(r: dict[str, Any], e: Effect, unit: str) -> str:
    # the interval is in the reference graph only: a bootstrap interval and the normal
    # approximation differ in their last digit, the share itself does not
    return f"About {100 * e.estimate:.1f}% of {r['level']} {unit} report {r['y'].term}."


def _gold_correlation(r: dict[str, Any], e: Effect, unit: str) -> str:
    if r["analysis"] == "correlation":
        sign = "positively" if e.estimate > 0 else "negatively"
        return (f"{_cap(r['x'].term)} is {sign} correlated with {r['y'].term} among "
                f"{unit} (Pearson r = {e.estimate:.2f}, {p_text(e.p_value)}).")
    return (f"Higher {r['x'].term} is associated with {_more(e)} {r['y'].term} among "
            f"{unit} ({_stats(e, 'regression coefficient')}).")


_GOLDS: dict[str, Callable[[dict[str, Any], Effect, str], str]] = {
    "confounded": _gold_confounded, "binary": _gold_binary, "subgroup": _gold_subgroup,
    "null": _gold_null, "group_difference": _gold_group_difference,
    "interaction": _gold_interaction, "proportion": _gold_proportion,
    "correlation": _gold_correlation, "binary_confounded": _gold_binary_confounded,
}


# -------------------------------------------------------------------------------- queries


def _query(task: PlantedStat, pick: int) -> str:
    """The query of a task, phrasing ``pick`` of three (DiscoveryBench style)."""
    r, unit = task.roles, task.domain.unit
    term = r.get("term", "")
    x = r["x"].term if "x" in r else ""
    y = r["y"].term
    who = f"{r.get('level', '')} {unit}"
    z = r.get("moderator")
    options: dict[str, tuple[str, str, str]] = {
        "confounded": (f"What is the relationship between {x} and {y} among {unit}?",
                       f"How does {x} relate to {y}?",
                       f"Is {x} associated with {y} among {unit}?"),
        "binary_confounded": (f"Is {x} associated with {y} among {unit}?",
                              f"How does {x} relate to the odds of {y}?",
                              f"What is the relationship between {x} and {y} among {unit}?"),
        "correlation": (f"How strongly is {x} associated with {y} among {unit}?",
                        f"What is the strength of the association between {x} and {y}?",
                        f"How strong is the relationship between {x} and {y} among {unit}?"),
        "binary": (f"Is {x} associated with {term} among {unit}?",
                   f"How does {x} relate to the odds of {term}?",
                   f"What is the relationship between {x} and {term} among {unit}?"),
        "subgroup": (f"Is {x} associated with {y} among {who}?",
                     f"How does {x} relate to {y} for {who}?",
                     f"What is the relationship between {x} and {y} in {who}?"),
        "null": (f"Does {term} affect {y} among {unit}?",
                 f"Is {term} significantly associated with {y}?",
                 f"What is the relationship between {term} and {y} among {unit}?"),
        "group_difference": (f"Do {term} differ from the other {unit} in {y}?",
                             f"Is {y} different for {term}?",
                             f"How does {y} of {term} compare with that of the other {unit}?"),
        "proportion": (f"What share of {who} report {y}?",
                       f"What proportion of {who} report {y}?",
                       f"How common is {y} among {who}?"),
    }
    if z is not None:
        options["interaction"] = (
            f"Does the relationship between {x} and {term} differ between {z.yes} and {z.no}?",
            f"Is the association of {x} with {term} moderated by {z.measure.term}?",
            f"How does {z.measure.term} change the relationship between {x} and {term}?")
    return options[task.shape][pick]


# ---------------------------------------------------------------------------------- facts


def _fact(task: PlantedStat) -> Fact:
    topic = FACT_TOPIC[task.shape]
    kind = STAT_TOPIC_KIND[topic]
    r, plan = task.roles, task.plan
    if topic == "controls":
        c = r["c"]
        text = (f"In this study, effects on {r['y'].term} are estimated controlling for "
                f"{c.term} ({c.name}) only; the other covariates are not used as controls.")
        return Fact(kind, topic, text, (("controls", c.name),))  # type: ignore[arg-type]
    if topic in ("target", "predictors"):
        measure = r["group"].measure if task.shape == "group_difference" else (
            r["y"] if topic == "target" else r["x"])
        text = (f"In this study, '{r['term']}' means the column {measure.name} "
                f"({_bare(measure)}).")
        value = plan.target if topic == "target" else "+".join(plan.predictors)
        return Fact(kind, topic, text, ((topic, value),))  # type: ignore[arg-type]
    if topic == "filters":
        coded = r["coded"]
        text = (f"In the codebook of this study, {r['level']} {task.domain.unit} are those "
                f"with {coded.measure.name} == {r['code']}.")
        return Fact(kind, topic, text,  # type: ignore[arg-type]
                    (("filters", format_filters(plan.filters)),))
    if topic == "analysis":
        way = ("the Pearson correlation of the two measures" if plan.analysis == "correlation"
               else "the slope of an ordinary least-squares regression of the outcome on the "
                    "exposure, in the outcome's units")
        text = f"In this study, the strength of an association is reported as {way}."
        return Fact(kind, topic, text, (("analysis", plan.analysis),))  # type: ignore[arg-type]
    raise ValueError(f"unknown topic {topic!r}")
