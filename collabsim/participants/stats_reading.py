"""The scripted participants' side of the statistical family: reading a task, the cells,
the draft.

The time-series pipeline (:mod:`collabsim.participants.analysis`) stays as it is for the
archaeology tasks and the generated suite; a task whose tables are not time series
(:func:`~collabsim.domain.stats.family.family_of`) goes through the statistical family of
:mod:`collabsim.domain.stats` instead. The dispatchers in
:mod:`~collabsim.participants.scripted_common` (``task_context``),
:mod:`~collabsim.participants.cells` (``compute_cell``, ``inspect_cell``,
``parse_cell_result``) and :mod:`~collabsim.participants.wording` (``draft_hypothesis``)
call the functions here when the plan / semantics / result are of the statistical family.

API (stable names):

* :func:`is_statistical(brief)` - whether a task goes through this family;
* :func:`read_stat_brief(brief)` - ``(StatQuery, StatPlan)``: the query read with the
  brief's columns and domain knowledge, and its plan (a plan with an empty target when the
  query names no column: its cell prints a noted result);
* :func:`stat_draft(result, query)` - the hypothesis for a parsed result.
"""

from __future__ import annotations

from collabsim.domain.stats.choice import plan_from_query
from collabsim.domain.stats.family import STATISTICAL, family_of
from collabsim.domain.stats.model import StatPlan, StatResult
from collabsim.domain.stats.reading import StatQuery, read_query
from collabsim.domain.stats.wording import unanswered_hypothesis, word_hypothesis
from collabsim.tasks.model import TaskBrief

__all__ = ["is_statistical", "read_stat_brief", "stat_draft"]


def is_statistical(brief: TaskBrief) -> bool:
    """Whether the task goes through the statistical family (its tables are no time
    series)."""
    return family_of(brief) == STATISTICAL


def read_stat_brief(brief: TaskBrief) -> tuple[StatQuery, StatPlan]:
    """The reading and plan of a statistical task; held facts (``Fact.fix`` with
    :data:`~collabsim.domain.stats.model.FIX_KEYS`) are applied to the plan."""
    query = read_query(brief)
    plan = plan_from_query(brief, query)
    if plan is None:
        first = brief.datasets[0].name if brief.datasets else ""
        plan = StatPlan(dataset=first, target="", predictors=(), analysis="summary")
    for fact in brief.facts:
        plan = plan.with_fix(fact.fix)
    return query, plan


def stat_draft(result: StatResult | None, query: StatQuery) -> str:
    """The hypothesis for a parsed stats result (a noted result and no result give the
    cautious statistical sentence naming the variables, never the time-series
    fallback)."""
    if result is None:
        return unanswered_hypothesis(None, query.phrases) if not query.target else (
            unanswered_hypothesis(StatPlan("", query.target, query.predictors), query.phrases,
                                  "not computed yet"))
    focus = query.predictors[0] if "compare" in query.asks and query.predictors else ""
    return word_hypothesis(result, query.phrases, query.population, query.asks, focus)
