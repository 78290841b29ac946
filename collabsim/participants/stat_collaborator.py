"""The scripted collaborators on statistical tasks: their own plan, checks, versions, review.

:class:`~collabsim.participants.scripted_collaborator.ScriptedCollaborator` keeps one
decision table for both families; where a step depends on the family it asks this module
when its reading's plan is a :class:`~collabsim.domain.stats.model.StatPlan`:

* **its own reading** (:func:`stat_reading`): the query read into a plan
  (:func:`~collabsim.participants.stats_reading.read_stat_brief`) with the facts of its brief
  as it believes them, then corrupted by its own mistakes of the family, drawn once per
  session at ``error_in_area`` for the kinds of its area and ``error_outside`` for the others
  (:meth:`~collabsim.participants.human.HumanModel.draw_stat_mistakes`). A fact it holds
  settles its topic: the mistakes of that topic's kind do not apply;
* **its checks of a draft** (:func:`stat_issues`): the plan behind the draft - the agent's
  latest ``RESULT-STATS`` cell, its ``PLAN`` line - against its own (D: every part, once it
  has recomputed; R: target, predictors and filters) and the draft's stated direction (R)
  and significance (D) against that result as it reads it (with its own wording mistakes:
  a mistaken collaborator is confidently wrong), :mod:`collabsim.participants.stat_claims`;
* **its own version** (:func:`stat_own_version`): D words its own result, R the shown
  result as it reads it; :func:`stat_restatement` and :func:`stat_confirmation` say the same
  in its own terms;
* **its review of gated code** (:func:`stat_code_issues`): D rejects a stats cell whose plan
  (its ``PLAN`` line) leaves out a control or uses another model than its own.

Reactions, timing, gates, insisting and edits are the family-independent rules of the
collaborator; the issues carry fixes with the keys of
:data:`~collabsim.domain.stats.model.FIX_KEYS` in the usual tags.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from collabsim.core.observation import Observation
from collabsim.core.task import TaskBrief
from collabsim.domain.stats.cell import (
    STATS_MARK,
    parse_stats_result,
    plan_of_cell,
    stats_cell,
    stats_inspect_cell,
)
from collabsim.domain.stats.model import StatPlan, StatResult
from collabsim.participants.asking import settled_kinds
from collabsim.participants.claims import Issue
from collabsim.participants.scripted_common import Reading
from collabsim.participants.session_log import CellState
from collabsim.participants.stat_claims import (
    ALL_TOPICS,
    READING_TOPICS,
    check_plan,
    check_statement,
    describe_plan,
    plan_of,
)
from collabsim.participants.stat_facts import apply_stat_facts, rechoose_after_facts
from collabsim.participants.stat_mistakes import apply_stat_mistakes, misread_result
from collabsim.participants.stats_reading import is_statistical, read_stat_brief, stat_draft

__all__ = [
    "cell_of", "has_data", "inspect_of", "own_stat_result", "shown_stat", "shown_stat_result",
    "stat_code_issues", "stat_confirmation", "stat_issues", "stat_own_version",
    "stat_reading", "stat_restatement",
]

# The parts of a gated cell's plan D reviews: the model's, its area.
_REVIEWED = frozenset({"controls", "analysis"})


def stat_reading(collab: Any, brief: TaskBrief) -> Reading | None:
    """A collaborator's own reading of a statistical task (None: the task is not one).

    Args:
        collab: The :class:`~collabsim.participants.scripted_collaborator.
            ScriptedCollaborator` (its seed, name, human model and believed facts).
        brief: What it sees of the task.
    """
    if not is_statistical(brief):
        return None
    query, plan = read_stat_brief(brief)
    believed = tuple(replace(f, setting=s) for f, s in collab.believed_facts(brief))
    plan = rechoose_after_facts(apply_stat_facts(plan, believed, brief), brief, query)
    settled = settled_kinds(brief.facts)
    mistakes = frozenset(m for m in collab.human.draw_stat_mistakes(
        collab.seed, collab.name, brief.task_id) if m not in settled)
    # the reading's semantics is the read query (its phrases word my versions)
    return Reading(query, apply_stat_mistakes(plan, mistakes, brief), mistakes)  # type: ignore[arg-type]


def has_data(plan: Any) -> bool:
    """Whether a plan of either family names something to compute."""
    return bool(plan.target) if isinstance(plan, StatPlan) else bool(plan.columns)


def cell_of(plan: Any, compute: Any) -> str:
    """The compute cell of a plan of either family (``compute``: the time-series one)."""
    return stats_cell(plan) if isinstance(plan, StatPlan) else compute(plan)


def inspect_of(plan: Any, inspect: Any) -> str:
    """The inspect cell of a plan of either family (``inspect``: the time-series one)."""
    return stats_inspect_cell(plan) if isinstance(plan, StatPlan) else inspect(plan)


def own_stat_result(cells: CellState, plan: StatPlan) -> StatResult | None:
    """The result of my own computation of ``plan`` in the code cells (as read into
    ``cells``; None: not run, failed or no line)."""
    cell = cells.my_last.get(stats_cell(plan))
    if cell is None:
        return None
    return parse_stats_result(cell.output) if cell.ok else None


def shown_stat(cells: CellState) -> tuple[StatPlan, StatResult] | None:
    """A teammate's latest statistical computation in the code cells (as read into
    ``cells``): the plan its cell states (its ``PLAN`` line) and its result. The plan, not
    the result, says what was asked for: a cell that finds the data unfit for the planned
    analysis runs another and says so in the result."""
    if not cells.others_stats:
        return None
    code, result = cells.others_stats[-1]
    return plan_of_cell(code) or plan_of(result), result


def shown_stat_result(cells: CellState) -> StatResult | None:
    """A teammate's latest statistical result (see :func:`shown_stat`)."""
    shown = shown_stat(cells)
    return None if shown is None else shown[1]


def stat_issues(collab: Any, obs: Observation, text: str, reading: Reading
                ) -> list[Issue]:
    """The issues my (fallible) checks find in the statistical draft ``text``: none before
    a teammate's result is shown; D's only once it has recomputed (as on time series)."""
    cells = collab.log(obs).cells
    found_shown = shown_stat(cells)
    if found_shown is None:
        return []
    behind, shown = found_shown  # the plan behind the draft and its result
    read = misread_result(shown, reading.mistakes)  # what I read the result to say
    phrases = getattr(reading.semantics, "phrases", None)  # my words for the columns
    found: list[Issue] = []
    if collab.wording:
        found += check_plan(reading.plan, behind, READING_TOPICS)
        found += check_statement(text, read, direction=True, significance=False,
                                 phrases=phrases)
    if collab.numbers and own_stat_result(cells, reading.plan) is not None:  # recomputed
        found += [i for i in (*check_plan(reading.plan, behind, ALL_TOPICS),
                              *check_statement(text, read, direction=False,
                                               significance=True, phrases=phrases))
                  if all(i.kind != f.kind for f in found)]
    return found


def stat_own_version(collab: Any, obs: Observation, reading: Reading) -> str | None:
    """The draft as I would write it: D words its own result (as it reads it), R the
    shown result as it reads it; None without a result to word."""
    cells = collab.log(obs).cells
    if collab.numbers:
        own = own_stat_result(cells, reading.plan)
        if own is not None and own.effects:
            return stat_draft(misread_result(own, reading.mistakes), reading.semantics)  # type: ignore[arg-type]
    if collab.wording:
        shown = shown_stat_result(cells)
        if shown is not None and shown.effects:
            return stat_draft(misread_result(shown, reading.mistakes), reading.semantics)  # type: ignore[arg-type]
    return None


def stat_restatement(collab: Any, obs: Observation, reading: Reading, version: str) -> str:
    """``version`` in my own terms: D adds its computation and rows, R what it reads the
    question to ask."""
    body = version.strip().rstrip(".")
    own = own_stat_result(collab.log(obs).cells, reading.plan) if collab.numbers else None
    if own is not None:
        return f"{body} (recomputed: {own.analysis}, n = {own.n})."
    return f"{body}, which answers what is asked about {_in_words(reading.plan)}."


def _in_words(plan: StatPlan) -> str:
    """The plan's variables in words: ``exam score and hours studied, controlling for prior
    grade, in rows where sex == 2``."""
    def words(columns: tuple[str, ...]) -> str:
        return " and ".join(c.replace("_", " ") for c in columns)

    text = words((plan.target, *plan.predictors))
    if plan.controls:
        text += f", controlling for {words(plan.controls)}"
    if plan.filters:
        text += ", in rows where " + "; ".join(f"{c.replace('_', ' ')} {op} {v}"
                                                for c, op, v in plan.filters)
    return text


def stat_confirmation(collab: Any, obs: Observation, reading: Reading, agrees: bool) -> str:
    """What I say when I take a statistical draft without objecting (only a draft my check
    agrees with is confirmed against my computation or reading)."""
    if not agrees:
        return "Fine, go ahead with your draft."
    own = own_stat_result(collab.log(obs).cells, reading.plan) if collab.numbers else None
    if own is not None and own.effects:
        return (f"I recomputed it ({describe_plan(own)}) and get the same result. The draft "
                "is consistent with the data.")
    return f"The draft answers what is asked ({describe_plan(reading.plan)})."


def stat_code_issues(plan: StatPlan, code: str) -> tuple[Issue, ...]:
    """D's review of a gated statistical cell: the controls and model of the plan it
    computes (its ``PLAN`` line) against mine (none for another cell or a cell of mine)."""
    cell = plan_of_cell(code)
    if cell is None or not code.startswith(STATS_MARK):
        return ()
    return check_plan(plan, cell, _REVIEWED)
