"""Chance baselines: what the judge gives texts that know nothing of the answer.

Performance means little without the score of a text that cannot be right. For each task
with a gold, the judge scores three such texts against the task's gold:

* ``chance_query``: the task's query pasted in as the hypothesis (it names the variables
  and often the relation asked about, but states no finding);
* ``chance_other_gold``: another gold of the same dataset (a true claim about the same data,
  but another claim), the mean over the run's tasks of that dataset with a different gold;
  NaN when the run has none;
* ``chance_non_answer``: the analyst's canned non-answer
  (:func:`collabsim.domain.stats.wording.unanswered_hypothesis`).

A run's baseline is the mean over its tasks with a gold (:func:`baseline_means`), the same
averaging as Performance's (mean over tasks), so the two can be read side by side. A judge
that cannot be gamed scores all three near 0 (docs/metrics.md, "Chance baselines").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from collabsim.domain.stats.wording import unanswered_hypothesis
from collabsim.metrics.outcome import HypothesisJudge
from collabsim.tasks.model import Task

BASELINE_COLUMNS: tuple[str, ...] = ("chance_query", "chance_other_gold", "chance_non_answer")
#: How each baseline is named in the reports.
BASELINE_LABELS: Mapping[str, str] = {
    "chance_query": "query as hypothesis",
    "chance_other_gold": "another gold of the dataset",
    "chance_non_answer": "canned non-answer",
}
NON_ANSWER = unanswered_hypothesis(None)


def task_baselines(task: Task, tasks: Iterable[Task], judge: HypothesisJudge
                   ) -> dict[str, float]:
    """The three baselines of one task (all NaN when it has no gold).

    Args:
        task: The task.
        tasks: The run's tasks (those of the task's dataset give the other golds).
        judge: The run's hypothesis judge.
    """
    gold = (task.gold_hypothesis or "").strip()
    if not gold:
        return dict.fromkeys(BASELINE_COLUMNS, math.nan)
    others = {o.gold_hypothesis.strip() for o in tasks
              if o.dataset == task.dataset and o.gold_hypothesis
              and o.gold_hypothesis.strip() != gold}
    other = [judge.score(text, gold, task).performance for text in sorted(others)]
    return {
        "chance_query": judge.score(task.query, gold, task).performance,
        "chance_other_gold": sum(other) / len(other) if other else math.nan,
        "chance_non_answer": judge.score(NON_ANSWER, gold, task).performance,
    }


def baseline_means(per_task: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Per baseline, the mean over the tasks that have it (NaN when none has)."""
    out: dict[str, float] = {}
    for column in BASELINE_COLUMNS:
        values = [v[column] for v in per_task.values()
                  if column in v and not math.isnan(v[column])]
        out[column] = sum(values) / len(values) if values else math.nan
    return out


def baseline_line(per_task: Mapping[str, Mapping[str, float]]) -> str | None:
    """The reports' one line of chance baselines (None when no task has a gold)."""
    means = baseline_means(per_task)
    scored = sum(1 for v in per_task.values()
                 if not math.isnan(v.get("chance_query", math.nan)))
    if not scored:
        return None
    parts = [f"{BASELINE_LABELS[c]} {_fmt(means[c])}" for c in BASELINE_COLUMNS]
    return (f"Chance baselines (the judge's Performance of texts that know no answer, mean "
            f"over {scored} task(s) with a gold): " + ", ".join(parts))


def baselines_of_rows(rows: Sequence[Mapping[str, object]]) -> dict[str, dict[str, float]]:
    """Task id -> baselines, read from metrics rows that carry the baseline columns."""
    out: dict[str, dict[str, float]] = {}
    for row in rows:
        if not all(c in row for c in BASELINE_COLUMNS):
            continue
        values = {c: _float(row[c]) for c in BASELINE_COLUMNS}
        out.setdefault(str(row.get("task_id")), values)
    return out


def _float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def _fmt(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.2f}"
