"""The metrics pipeline: every per-session metric from a session's result, trace and task.

One place computes what a session scored, for every consumer: the results tables
(:mod:`collabsim.reporting.tables`, ``collabsim run``), a report over a finished store and a
gym environment's reward. Steps, each a pure function of its inputs:

1. **members** (:func:`session_members`): the team spec's members when given, else the
   members the trace's ``SESSION_START`` event records; actors with an ``ai``/``human``
   event are added (never ``env``);
2. **activity** W_human, W_total, M_team (:mod:`~collabsim.metrics.activity`);
3. **initiative entropy** over the members (:mod:`~collabsim.metrics.initiative`), over all
   events (``H_init_norm``) and over the work phase only (``H_init_work``: the group-memory
   build phase left out; equal to ``H_init_norm`` in a session without one); which events are
   candidates is ``initiative_events`` (``actions`` or the study's ``messages``);
4. **process** C_wf, S_hyp and A_profile against the task's reference workflow
   (:mod:`~collabsim.metrics.process`); NaN without a reference, A_profile NaN in
   ``single``;
5. **outcome** Performance and its parts from a hypothesis judge (:func:`outcome_score`;
   default :class:`~collabsim.metrics.judge_family.FamilyJudge`); NaN without a gold
   hypothesis;
6. **objections** the collaborators raised and how many were wrong, judged against the gold,
   the task's facts and the columns its reference analysis reads
   (:mod:`~collabsim.metrics.objections`); NaN without a gold hypothesis.

:class:`MetricsRows` (a job's rows) adds the task's **chance baselines**
(:mod:`~collabsim.metrics.baselines`: the judge's Performance of the query, of another gold
of the dataset among the job's tasks and of the canned non-answer), computed once per task.

A session with an unscored status (:data:`~collabsim.session.results.UNSCORED_STATUSES`:
``infra_error``, its sandbox failed; ``provider_error``, a model call failed after its
retries; ``budget_exceeded``, its LLM budget ran out) measured nothing about its team: every
metric is NaN, so no mean, delta, figure or summary counts it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from collabsim.core.events import TraceEvent
from collabsim.metrics.activity import activity_counts, as_events
from collabsim.metrics.baselines import task_baselines
from collabsim.metrics.initiative import (
    DEFAULT_INITIATIVE_EVENTS,
    InitiativeEvents,
    count_in_phase,
    initiative_entropy,
    initiative_events,
    is_initiative,
)
from collabsim.metrics.judge_family import FamilyJudge
from collabsim.metrics.objections import objection_counts
from collabsim.metrics.outcome import HypothesisJudge, HypothesisScore
from collabsim.metrics.process import (
    PROFILE_KINDS,
    hypothesis_support,
    profile_alignment,
    trace_view,
    workflow_coverage,
)
from collabsim.metrics.reference import ReferenceWorkflow
from collabsim.session.results import UNSCORED_STATUSES
from collabsim.tasks.model import Task

METRIC_COLUMNS: tuple[str, ...] = (
    "W_human", "W_total", "M_team", "H_init_norm", "H_init_work", "A_profile", "C_wf", "S_hyp",
    "Performance",
)
EXTRA_METRICS: tuple[str, ...] = ("context_recall", "context", "variable_f1", "relation",
                                  "objections", "objections_wrong")
ID_COLUMNS: tuple[str, ...] = ("task_id", "team", "structure", "seed", "policy", "status")
_OUTCOME_KEYS = ("Performance", "context_recall", "context", "variable_f1", "relation")
_UNSCORED = ("W_human", "W_total", "M_team", "H_init_norm", "H_init_work", "C_wf", "S_hyp",
             "A_profile", *_OUTCOME_KEYS)


class TeamLike(Protocol):
    """What the pipeline reads from a team spec (``TeamSpec`` has it)."""

    @property
    def members(self) -> tuple[str, ...]:
        """Participant names, the agent first."""
        ...


def _get(result: Any, key: str, default: Any = None) -> Any:
    if isinstance(result, Mapping):
        return result.get(key, default)
    return getattr(result, key, default)


def session_members(events: Sequence[TraceEvent], team: TeamLike | None = None) -> list[str]:
    """Team members of a session, the agent first.

    Args:
        events: The session's trace events.
        team: The session's team spec; without one, the members listed by the trace's
            ``SESSION_START`` event (``["agent"]`` when it lists none).

    Returns:
        The members, then any other actor with an ``ai``/``human`` event, without repeats.
    """
    if team is not None:
        members = list(team.members)
    else:
        start = next((e for e in events if e.action_type == "SESSION_START"), None)
        listed = start.args.get("members") if start is not None else None
        members = [str(m) for m in listed] if listed else ["agent"]
    members += [e.actor for e in events if e.actor_type in ("ai", "human")]
    return list(dict.fromkeys(members))


def outcome_score(
    hypothesis: str, task: Task | None, judge: HypothesisJudge | None = None
) -> HypothesisScore | None:
    """The judge's score of a submitted hypothesis (None when the task has no gold).

    A gym environment's end-of-episode reward is ``score.performance`` (0 without a gold).

    Args:
        hypothesis: The submitted hypothesis.
        task: The task (gold hypothesis, columns).
        judge: Hypothesis judge (default :class:`~collabsim.metrics.judge_family.FamilyJudge`:
            the rule judge on time-series tasks, the statistical judge on the others).
    """
    gold = task.gold_hypothesis if task is not None else None
    if not gold:
        return None
    return (judge or FamilyJudge()).score(hypothesis, gold, task)


def session_metrics(
    result: Any,
    events: Iterable[TraceEvent | Mapping[str, Any]],
    task: Task | None = None,
    reference: ReferenceWorkflow | None = None,
    *,
    judge: HypothesisJudge | None = None,
    team: TeamLike | None = None,
    members: Sequence[str] | None = None,
    profiles: Mapping[str, str] | None = None,
    initiative_classifier: Callable[[TraceEvent, Sequence[TraceEvent]], bool] = is_initiative,
    initiative_counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS,
) -> dict[str, Any]:
    """Compute every metric of one session (see the module docstring for the steps).

    Args:
        result: A ``SessionResult`` or a dict with its fields (task_id, team, structure,
            seed, policy, status, submitted_hypothesis).
        events: The session's trace events (TraceEvent or decoded dicts).
        task: The task (gold hypothesis, columns); without a gold, outcome metrics are NaN.
        reference: The task's reference workflow; without one, C_wf, S_hyp and A_profile
            are NaN.
        judge: Hypothesis judge (default :class:`~collabsim.metrics.judge_family.FamilyJudge`:
            the rule judge on time-series tasks, the statistical judge on the others).
        team: The session's team spec (members); default: the trace's ``SESSION_START``.
        members: Explicit member list (overrides ``team``).
        profiles: Member -> profile key (default: members other than the agent named ``D``
            or ``R`` have that profile). A_profile is NaN without profiles and in ``single``.
        initiative_classifier: Initiative classifier (rules by default).
        initiative_counted: Which events are initiative candidates: ``actions`` (every team
            action) or ``messages`` (the study's: chat messages by their act); the setting
            ``metrics.initiative_events``.

    Returns:
        A flat dict: identifiers, the metrics of :data:`METRIC_COLUMNS` and
        :data:`EXTRA_METRICS`, and ``judge``.
    """
    evs = as_events(events)
    structure = str(_get(result, "structure", ""))
    hypothesis = str(_get(result, "submitted_hypothesis", "") or "")
    row: dict[str, Any] = {
        "task_id": _get(result, "task_id"), "team": str(_get(result, "team", "")),
        "structure": structure, "seed": _get(result, "seed"), "policy": _get(result, "policy"),
        "status": _get(result, "status"),
    }
    if row["status"] in UNSCORED_STATUSES:
        row.update(dict.fromkeys(_UNSCORED, math.nan), judge=None)
        row.update(objections=math.nan, objections_wrong=math.nan)
        return row
    act = activity_counts(evs)
    row.update(W_human=act.w_human, W_total=act.w_total, M_team=act.m_team)
    team_list = list(members) if members is not None else session_members(evs, team)
    labelled = initiative_events(evs, team_list, initiative_classifier,
                                 counted=initiative_counted)
    row["H_init_norm"] = initiative_entropy(count_in_phase(labelled, evs, "all"), team_list)
    row["H_init_work"] = initiative_entropy(count_in_phase(labelled, evs, "work"), team_list)
    humans = {e.actor for e in evs if e.actor_type == "human"} | set(team_list[1:])
    prof = dict(profiles) if profiles is not None else {
        m: m for m in team_list if m in PROFILE_KINDS and m in humans
    }
    if reference is not None:
        view = trace_view(evs)
        row["C_wf"] = workflow_coverage(view, reference)
        row["S_hyp"] = hypothesis_support(hypothesis, view, reference, task)
        row["A_profile"] = (
            math.nan if structure == "single" else profile_alignment(view, prof, reference)
        )
    else:
        row.update(C_wf=math.nan, S_hyp=math.nan, A_profile=math.nan)
    score = outcome_score(hypothesis, task, judge)
    if score is not None:
        row.update(Performance=score.performance, context_recall=score.context_recall,
                   context=score.context, variable_f1=score.variable_f1,
                   relation=score.relation, judge=score.judge)
    else:
        row.update(dict.fromkeys(_OUTCOME_KEYS, math.nan), judge=None)
    if task is not None and task.gold_hypothesis:
        judged = judge or FamilyJudge()
        scores: dict[str, HypothesisScore] = {}

        def _score(text: str) -> HypothesisScore:
            if text not in scores:
                scores[text] = judged.score(text, task.gold_hypothesis, task)
            return scores[text]

        read = (reference.used_columns(c.name for d in task.datasets for c in d.columns)
                if reference is not None else frozenset())
        counts = objection_counts(evs, _score, task.facts, task.gold_hypothesis, read)
        row.update(objections=counts.objections, objections_wrong=counts.wrong)
    else:
        row.update(objections=math.nan, objections_wrong=math.nan)
    return row


class MetricsRows:
    """Metrics rows computed one session at a time, sharing the judge and references.

    ``rows.row(result)`` gives what :func:`metrics_table` gives for that result, so a job can
    compute each session's row as soon as the session ends and build the table at the end.

    Args:
        tasks: Task id -> task (gold, columns, ``reference_workflow_path``).
        judge: Hypothesis judge (default :class:`FamilyJudge`, shared across sessions).
        teams: Team label -> team spec; labels not in it take their members from the trace.
        initiative_counted: Which events are initiative candidates (``actions`` or
            ``messages``; :func:`session_metrics`).
    """

    def __init__(
        self,
        tasks: Mapping[str, Task],
        *,
        judge: HypothesisJudge | None = None,
        teams: Mapping[str, TeamLike] | None = None,
        initiative_counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS,
    ) -> None:
        self.tasks = tasks
        self.judge = judge or FamilyJudge()
        self.teams = teams or {}
        self.initiative_counted = initiative_counted
        self._references: dict[str, ReferenceWorkflow | None] = {}
        self._baselines: dict[str, dict[str, float]] = {}

    def baselines(self, task: Task) -> dict[str, float]:
        """The task's chance baselines among this job's tasks (computed once per task)."""
        if task.task_id not in self._baselines:
            self._baselines[task.task_id] = task_baselines(task, self.tasks.values(),
                                                           self.judge)
        return self._baselines[task.task_id]

    def row(self, result: Any) -> dict[str, Any]:
        """One session's metrics row, reading its trace and its task's reference workflow.

        Raises:
            KeyError: The result's task is not in ``tasks``.
            ValueError: The result has no trace path.
        """
        from collabsim.metrics.reference import load_reference
        from collabsim.session.trace import read_trace

        task = self.tasks[str(_get(result, "task_id"))]
        trace_path = _get(result, "trace_path")
        if not trace_path:
            raise ValueError(f"session {_get(result, 'task_id')} seed {_get(result, 'seed')} "
                             "has no trace_path")
        if task.task_id not in self._references:
            path = task.reference_workflow_path
            self._references[task.task_id] = load_reference(path) if path is not None else None
        events = read_trace(Path(trace_path), allow_truncated_tail=True)
        team = self.teams.get(str(_get(result, "team", "")))
        row = session_metrics(result, events, task, self._references[task.task_id],
                              judge=self.judge, team=team,
                              initiative_counted=self.initiative_counted)
        row.update(self.baselines(task))
        return row


def metrics_table(
    results: Iterable[Any],
    tasks: Mapping[str, Task],
    *,
    judge: HypothesisJudge | None = None,
    teams: Mapping[str, TeamLike] | None = None,
    initiative_counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS,
) -> pd.DataFrame:
    """One metrics row per session, reading each session's trace and reference workflow.

    Args:
        results: ``SessionResult`` records (or dicts) with a ``trace_path``.
        tasks: Task id -> task (gold, columns, ``reference_workflow_path``).
        judge: Hypothesis judge (default :class:`FamilyJudge`, shared across sessions).
        teams: Team label -> team spec; labels not in it take their members from the trace.
        initiative_counted: Which events are initiative candidates (``actions`` or
            ``messages``; :func:`session_metrics`).

    Returns:
        A DataFrame of :func:`session_metrics` rows.

    Raises:
        KeyError: A result's task is not in ``tasks``.
        ValueError: A result has no trace path.
    """
    rows = MetricsRows(tasks, judge=judge, teams=teams, initiative_counted=initiative_counted)
    return pd.DataFrame([rows.row(result) for result in results])
