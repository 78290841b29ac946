"""Collaborator checks of a statistical draft: the plan behind it and what it states.

A statistical draft rests on the agent's visible computation, a ``RESULT-STATS`` line
(:class:`~collabsim.domain.stats.model.StatResult`). A collaborator checks it two ways:

* **the plan** (:func:`check_plan`): the computation behind the draft against the
  collaborator's own plan - target, predictors, controls, filters and analysis. D (data
  analysis, ``recompute_claims``) compares every part; R (researcher, ``check_wording``)
  the parts that say what the query means: target, predictors and filters
  (:data:`READING_TOPICS`). Each difference is an :class:`~collabsim.participants.claims.
  Issue` whose fix is the collaborator's value of that part, with the keys of
  :data:`~collabsim.domain.stats.model.FIX_KEYS` (``[issue kind=omitted_control
  fix=controls:age+sex]``): the agent applies it with :meth:`StatPlan.with_fix`;
* **the statement** (:func:`check_statement`): the direction and significance the draft
  states (:func:`stated_direction`, :func:`stated_significance`) against the result it
  rests on - R checks the direction (``direction_misread``), D the significance
  (``significance_ignored``). These issues carry no plan fix (the computation is right,
  its wording is not): a collaborator's own version of the hypothesis corrects them.

The kinds are the family's mistake kinds (:mod:`collabsim.participants.stat_mistakes`),
so an issue's area - and with it the raiser's confidence and the agent's deference - is
that of the mistake it diagnoses; ``wrong_analysis`` (another analysis than logit vs ols)
is the computation's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from collabsim.domain.stats.model import Effect, StatPlan, StatResult, format_filters
from collabsim.domain.stats.reading import SIGNED_DIRECTION_RE
from collabsim.participants.claims import Issue

__all__ = [
    "ALL_TOPICS", "READING_TOPICS", "check_plan", "check_statement", "describe_plan",
    "plan_of", "stated_direction", "stated_significance",
]

#: The parts of a plan R checks: what the query means.
READING_TOPICS: frozenset[str] = frozenset({"target", "predictors", "filters"})
#: Every part of a plan (D checks them all).
ALL_TOPICS: frozenset[str] = frozenset({"target", "predictors", "controls", "filters",
                                        "analysis"})
# analyses whose estimate is a size (no direction to state)
_UNDIRECTED = frozenset({"chi2", "anova", "proportion", "summary"})

_NOT_SIGNIFICANT = re.compile(
    r"\b(?:not|no|non-?|in)\s*(?:an?\s+)?(?:statistically\s+)?significant|\bno\s+(?:clear|"
    r"reliable|detectable|evidence|association|relationship|effect|difference|correlation)"
    r"|\bnot\s+(?:associated|related|correlated)\b|\bdoes\s+not\s+(?:predict|affect|differ)",
    re.IGNORECASE)
_SIGNIFICANT = re.compile(r"\bsignificant(?:ly)?\b", re.IGNORECASE)
# a stated p-value: "p < 0.001", "p = 0.038"
_P_VALUE = re.compile(r"\bp\s*(<|=|<=|≤)\s*(\d*\.?\d+(?:e-?\d+)?)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# an explicit statement of the relation's sign
_EXPLICIT = re.compile(r"\b(positive|negative)(?:ly)?\b|\b(inverse)(?:ly)?\b", re.IGNORECASE)


def plan_of(result: StatResult, dataset: str = "") -> StatPlan:
    """The plan a result was computed with (the dataset is not part of a result)."""
    return StatPlan(dataset, result.target, result.predictors, result.controls,
                    result.filters, result.analysis, result.interaction)


def _columns(values: Iterable[str]) -> str:
    return "+".join(values) or "none"


def _listed(columns: tuple[str, ...]) -> str:
    """Columns in words: ``a``, ``a and b``, ``a, b and c``; past three the first two and
    how many more."""
    if len(columns) > 3:
        return f"{columns[0]}, {columns[1]} and {len(columns) - 2} others"
    return " and ".join(columns) if len(columns) < 3 else (
        f"{columns[0]}, {columns[1]} and {columns[2]}")


def describe_plan(plan: StatPlan | StatResult) -> str:
    """A short restatement of a computation: ``ols of y on x, controlling for a and b,
    in rows where sex == 1``."""
    text = f"{plan.analysis} of {plan.target} on {_listed(plan.predictors) or 'nothing'}"
    if plan.controls:
        text += f", controlling for {_listed(plan.controls)}"
    if plan.filters:
        text += f", in rows where {format_filters(plan.filters)}"
    return text


def check_plan(own: StatPlan | StatResult, shown: StatPlan | StatResult,
               topics: frozenset[str] = ALL_TOPICS) -> tuple[Issue, ...]:
    """Differences between my plan and the one behind the shown result, as issues.

    Args:
        own: My own plan (with my own mistakes) or my own result.
        shown: The agent's result the draft rests on (its ``RESULT-STATS`` line).
        topics: The parts I check (:data:`ALL_TOPICS` for D, :data:`READING_TOPICS` for R).

    Returns:
        One issue per differing part, in the order target, predictors, controls, filters,
        analysis (empty when the plans agree on ``topics``).
    """
    lead = f"I would compute {describe_plan(own)}; the draft rests on {describe_plan(shown)}."
    issues: list[Issue] = []
    if "target" in topics and own.target != shown.target:
        issues.append(Issue(
            "wrong_variable", f"{lead} The outcome the question asks about is {own.target}, "
            f"not {shown.target}.", (("target", own.target),)))
    if "predictors" in topics and own.predictors != shown.predictors:
        mine = tuple(p for p in own.predictors if p not in shown.predictors)
        theirs = tuple(p for p in shown.predictors if p not in own.predictors)
        what = (f"The variable asked about is {_listed(mine)}, not {_listed(theirs)}."
                if mine and theirs else
                f"The predictors should be {_listed(own.predictors) or 'none'}.")
        issues.append(Issue("wrong_variable", f"{lead} {what}",
                            (("predictors", _columns(own.predictors)),)))
    if "controls" in topics and set(own.controls) != set(shown.controls):
        missing = [c for c in own.controls if c not in shown.controls]
        why = (f"it leaves out the control(s) {', '.join(missing)}" if missing
               else f"it controls for {', '.join(c for c in shown.controls)}, "
               "which the question does not ask for")
        issues.append(Issue("omitted_control", f"{lead} The model is wrong: {why}.",
                            (("controls", _columns(own.controls)),)))
    if "filters" in topics and set(own.filters) != set(shown.filters):
        issues.append(Issue(
            "wrong_subgroup", f"{lead} The population is "
            f"{_population(own.filters)}, not {_population(shown.filters)}.",
            (("filters", format_filters(own.filters)),)))
    if "analysis" in topics and own.analysis != shown.analysis:
        kind = ("linear_for_binary" if {own.analysis, shown.analysis} == {"ols", "logit"}
                else "wrong_analysis")
        why = (" The outcome is binary: a logistic regression, not a linear one."
               if own.analysis == "logit" and shown.analysis == "ols" else "")
        issues.append(Issue(kind, f"{lead} The analysis should be {own.analysis}, not "
                            f"{shown.analysis}.{why}", (("analysis", own.analysis),)))
    return tuple(issues)


def _population(filters: tuple[tuple[str, str, str], ...]) -> str:
    return "the whole table" if not filters else f"the rows where {format_filters(filters)}"


def stated_direction(text: str) -> str | None:
    """The direction of the relation a draft states: ``positive``, ``negative`` or None.

    An explicit word decides ("positively associated", "an inverse relation"); otherwise
    the first two words saying a side goes up or down: "higher X goes with lower Y" is
    negative, "higher X goes with higher Y" positive, "X reduces Y" (one word) negative.
    """
    explicit = _EXPLICIT.search(text)
    if explicit is not None:
        return "positive" if (explicit.group(1) or "").lower() == "positive" else "negative"
    signs = [1 if m.group(1) else -1 for m in SIGNED_DIRECTION_RE.finditer(text)][:2]
    if not signs:
        return None
    product = signs[0] * (signs[1] if len(signs) > 1 else 1)
    return "positive" if product > 0 else "negative"


def stated_significance(text: str, alpha: float = 0.05) -> bool | None:
    """Whether a draft states a significant effect (True), none (False) or says nothing
    about significance (None): words first ("no significant association",
    "significantly"), else the first stated p-value ("p < 0.001" is significant, "p = 0.3"
    is not)."""
    if _NOT_SIGNIFICANT.search(text):
        return False
    if _SIGNIFICANT.search(text):
        return True
    match = _P_VALUE.search(text)
    if match is None:
        return None
    value = float(match.group(2))
    return value <= alpha if match.group(1) != "=" else value < alpha


def _names(variable: str, phrases: Mapping[str, str] | None) -> list[str]:
    """The words a draft may use for a variable: the query's phrase for it, its name."""
    column, _, level = variable.partition("=")
    words = [column.replace("_", " ").lower(), column.lower()]
    if phrases and phrases.get(column):
        words.insert(0, phrases[column].strip(" ,.?").lower())
    if level:  # a level of a categorical column: named with its level ("rating = low")
        words = [f"{w} = {level.lower()}" for w in words] + [f"{w}={level.lower()}"
                                                             for w in words]
    return [n for n in dict.fromkeys(words) if n]


def _about(text: str, effects: tuple[Effect, ...], phrases: Mapping[str, str] | None
           ) -> tuple[str, Effect] | None:
    """The first sentence of ``text`` naming one of the effects' variables, and that effect
    (None when none is named and there are several effects; the whole text and the only
    effect when there is one)."""
    for sentence in _SENTENCE.split(text.strip()):
        low = sentence.lower()
        for effect in effects:
            if any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", low)
                   for n in _names(effect.variable, phrases)):
                return sentence, effect
    return (text, effects[0]) if len(effects) == 1 else None


def check_statement(draft: str, shown: StatResult, direction: bool, significance: bool,
                    alpha: float = 0.05, phrases: Mapping[str, str] | None = None
                    ) -> tuple[Issue, ...]:
    """What the draft states against the result it rests on: the first sentence that names
    an effect's variable (by ``phrases``, the query's words for columns, or the column name)
    is checked against that effect.

    Args:
        draft: The hypothesis text under review.
        shown: The result the draft rests on.
        direction: Check the stated direction (R).
        significance: Check the stated significance (D).
        alpha: The significance level.
        phrases: The reader's words for the columns.
    """
    found = _about(draft, shown.effects, phrases) if shown.effects else None
    if found is None:
        return ()
    draft, effect = found
    issues: list[Issue] = []
    said = stated_direction(draft)
    if (direction and shown.analysis not in _UNDIRECTED and said is not None
            and effect.direction != "none" and said != effect.direction):
        issues.append(Issue(
            "direction_misread", f"The draft states a {said} relation, but the estimate for "
            f"{effect.variable} is {effect.estimate:+.3g}: the relation is {effect.direction}."))
    stated = stated_significance(draft, alpha)
    if significance and stated is not None and effect.p_value is not None:
        real = effect.significant(alpha)
        if stated and not real:
            issues.append(Issue(
                "significance_ignored", f"The draft states an effect, but for "
                f"{effect.variable} p = {effect.p_value:.3g} (not significant at {alpha}): "
                "the data do not show one."))
        elif real and not stated:
            issues.append(Issue(
                "significance_ignored", f"The draft states no effect, but for "
                f"{effect.variable} p = {effect.p_value:.3g}, significant at {alpha}."))
    return tuple(issues)
