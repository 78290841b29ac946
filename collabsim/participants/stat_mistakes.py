"""The statistical family's mistakes: how a participant's plan or reading of a result goes wrong.

Six kinds (:data:`STAT_MISTAKE_KINDS`), in two areas
(:data:`collabsim.participants.human.AREAS`):

* computation (D's area) - ``omitted_control``: a control the question asks for is left
  out; ``linear_for_binary``: a linear model (ols) for a binary outcome where a logistic one
  is needed; ``significance_ignored``: a non-significant effect stated as an effect (or a
  significant one stated as none);
* semantics (R's area) - ``wrong_variable``: a similar-sounding wrong column for the asked
  variable; ``wrong_subgroup``: the population's filter missing (or the wrong group);
  ``direction_misread``: the effect's direction read the wrong way round.

:func:`apply_stat_mistakes` corrupts a :class:`~collabsim.domain.stats.model.StatPlan`
(the plan kinds) and :func:`misread_result` the result a participant words (the wording
kinds ``direction_misread`` and ``significance_ignored``): the participant then states what
it read, not what the data say.

The draws (:func:`draw_stat_mistakes`) come from their own seeded stream, separate from the
time-series kinds' (:meth:`collabsim.participants.plan.MistakeModel.draw`): adding this
family leaves every earlier draw, and so every time-series session, unchanged.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace

from collabsim.core.task import TaskBrief
from collabsim.domain.stats.model import Effect, StatPlan, StatResult
from collabsim.domain.words import STOPWORDS
from collabsim.participants.plan import MistakeModel, seeded_rng

__all__ = [
    "PLAN_KINDS", "STAT_MISTAKE_KINDS", "WORDING_KINDS", "apply_stat_mistakes",
    "draw_stat_mistakes", "misread_result", "similar_columns",
]

# Order matters: new kinds go at the end so that earlier kinds' draws stay unchanged.
STAT_MISTAKE_KINDS: tuple[str, ...] = ("wrong_variable", "omitted_control", "wrong_subgroup",
                                       "linear_for_binary", "direction_misread",
                                       "significance_ignored")
#: Kinds that corrupt the plan (what is computed).
PLAN_KINDS: frozenset[str] = frozenset({"wrong_variable", "omitted_control", "wrong_subgroup",
                                        "linear_for_binary"})
#: Kinds that corrupt the reading of the result (what is stated).
WORDING_KINDS: frozenset[str] = frozenset({"direction_misread", "significance_ignored"})
#: The p-values a misreader states: a non-significant effect as significant, and back.
_STATED_SIGNIFICANT = 0.01
_STATED_NOT_SIGNIFICANT = 0.5
_WORD = re.compile(r"[a-z0-9]+")


def agent_stat_mistakes(model: MistakeModel, seed: int, task_id: str) -> frozenset[str]:
    """The scripted agent's statistical mistakes in the session of ``task_id`` with ``seed``
    (deterministic, from a stream separate from :meth:`MistakeModel.draw`'s)."""
    return draw_stat_mistakes({k: getattr(model, k) for k in STAT_MISTAKE_KINDS},
                              seed, task_id)


def draw_stat_mistakes(rates: Mapping[str, float], seed: int, *stream: object
                       ) -> frozenset[str]:
    """The statistical mistakes active in one session (deterministic).

    Args:
        rates: Probability per kind of :data:`STAT_MISTAKE_KINDS` (missing kinds: 0).
        seed: Session seed.
        stream: What identifies the drawer and session (e.g. ``(task_id,)`` for the agent,
            ``(name, task_id)`` for a collaborator); ``"stat-mistakes"`` is appended, so
            the stream is never that of a time-series draw.
    """
    rng = seeded_rng(seed, *stream, "stat-mistakes")
    draws = rng.random(len(STAT_MISTAKE_KINDS))
    return frozenset(k for k, u in zip(STAT_MISTAKE_KINDS, draws, strict=True)
                     if u < float(rates.get(k, 0.0)))


#: Words that never make two columns sound alike: function words and the codes and answers
#: descriptions spell out ("1 = yes, 0 = no").
_STOP = STOPWORDS | frozenset(("0", "1", "2", "yes"))


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.replace("_", " ").lower())) - _STOP


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def similar_columns(column: str, brief: TaskBrief, dataset: str,
                    exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """Columns of ``dataset`` that sound like ``column``, most similar first.

    Similarity is the largest of: the overlap (Jaccard) of the two names' words
    (``ses`` / ``ses_parent``), the overlap of the two descriptions' content words, and the
    names' character similarity (difflib ratio) where it is at least 0.8
    (``income`` / ``incomes``). A column counts as similar-sounding from 0.5; ``exclude``
    (and ``column`` itself) never count.
    """
    info = next((d for d in brief.datasets if d.name == dataset), None)
    if info is None:
        return ()
    described = {c.name: c.description for c in info.columns}
    name_words, desc_words = _words(column), _words(described.get(column, ""))
    skip = {column, *exclude}
    scored: list[tuple[float, str]] = []
    for other in info.columns:
        if other.name in skip:
            continue
        ratio = difflib.SequenceMatcher(None, column.lower(), other.name.lower()).ratio()
        score = max(_jaccard(name_words, _words(other.name)),
                    _jaccard(desc_words, _words(other.description)),
                    ratio if ratio >= 0.8 else 0.0)
        if score >= 0.5:
            scored.append((score, other.name))
    return tuple(name for _, name in sorted(scored, key=lambda p: (-p[0], p[1])))


def apply_stat_mistakes(plan: StatPlan, mistakes: Iterable[str], brief: TaskBrief
                        ) -> StatPlan:
    """Corrupt a plan with the drawn plan mistakes that apply to it.

    * ``wrong_variable``: the first predictor (else the target) replaced by its most
      similar-sounding other column (:func:`similar_columns`); no effect without one;
    * ``omitted_control``: the last control dropped (no effect without controls);
    * ``wrong_subgroup``: the filters dropped - the whole table instead of the population
      (no effect without filters);
    * ``linear_for_binary``: a logistic regression done as a linear one (ols).
    """
    active = set(mistakes)
    if "wrong_variable" in active:
        used = (plan.target, *plan.predictors, *plan.controls)
        for i, column in enumerate(plan.predictors):
            others = similar_columns(column, brief, plan.dataset, used)
            if others:
                predictors = (*plan.predictors[:i], others[0], *plan.predictors[i + 1:])
                plan = replace(plan, predictors=predictors)
                break
        else:
            others = similar_columns(plan.target, brief, plan.dataset, used)
            if others:
                plan = replace(plan, target=others[0])
    if "omitted_control" in active and plan.controls:
        plan = replace(plan, controls=plan.controls[:-1])
    if "wrong_subgroup" in active and plan.filters:
        plan = replace(plan, filters=())
    if "linear_for_binary" in active and plan.analysis == "logit":
        plan = replace(plan, analysis="ols")
    return plan


def _misread_effect(effect: Effect, active: set[str], first: bool) -> Effect:
    if "direction_misread" in active:
        low, high = effect.ci_low, effect.ci_high
        effect = replace(effect, estimate=-effect.estimate,
                         ci_low=None if high is None else -high,
                         ci_high=None if low is None else -low)
    if "significance_ignored" in active and first and effect.p_value is not None:
        p = _STATED_NOT_SIGNIFICANT if effect.significant() else _STATED_SIGNIFICANT
        effect = replace(effect, p_value=p)
    return effect


def misread_result(result: StatResult, mistakes: Iterable[str]) -> StatResult:
    """The result as a participant with wording mistakes reads it (what it then states).

    * ``direction_misread``: every effect's sign (and interval) reversed - a correlation
      read as positive where it is negative;
    * ``significance_ignored``: the first (asked) effect's significance reversed - a
      non-significant effect stated as an effect, a significant one as none.

    Analyses without a direction (chi2, anova, proportion, summary) keep their sign: the
    estimate is a size there, not a direction.
    """
    active = set(mistakes) & WORDING_KINDS
    if not active or not result.effects:
        return result
    if result.analysis in ("chi2", "anova", "proportion", "summary"):
        active.discard("direction_misread")
    effects = tuple(_misread_effect(e, active, i == 0) for i, e in enumerate(result.effects))
    return replace(result, effects=effects)
