"""The default hypothesis judge: the time-series rules or the statistical judge, per task.

DiscoveryBench tasks come in two families here. Time-series tasks (the archaeology data and
the built-in generated suite: a table with a time axis column ``CE``, ``BCE`` or ``calBP``,
the participants' switch :func:`~collabsim.domain.stats.family.family_of`)
are judged by :class:`~collabsim.metrics.judge_rules.RuleJudge` exactly as before (years,
periods, rises and peaks); every other task (statistical questions about tables) by
:class:`~collabsim.metrics.judge_stats.StatsJudge`. Without a task the rule judge applies
(what every caller got before the statistical family existed).

The choice depends on the task only, never on the submitted text, so every hypothesis on
one task is judged by the same judge. The model-based judge
(:class:`~collabsim.metrics.judge_llm.LLMJudge`) stays available by passing it instead.
"""

from __future__ import annotations

from collabsim.domain.stats.family import TIME_SERIES, family_of
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.metrics.judge_stats import StatsJudge
from collabsim.metrics.outcome import HypothesisScore
from collabsim.tasks.model import Task, TaskBrief


def is_time_series_task(task: Task | TaskBrief | None) -> bool:
    """True when the task is of the time-series family (the participants' own switch,
    :func:`~collabsim.domain.stats.family.family_of`), or there is no task."""
    return task is None or family_of(task) == TIME_SERIES


class FamilyJudge:
    """Judge each task with its family's judge (see the module docstring).

    Args:
        rules: The time-series judge (default :class:`RuleJudge`).
        stats: The statistical judge (default :class:`StatsJudge`).
    """

    name = "family"

    def __init__(self, rules: RuleJudge | None = None, stats: StatsJudge | None = None) -> None:
        self.rules = rules or RuleJudge()
        self.stats = stats or StatsJudge()

    def judge_for(self, task: Task | TaskBrief | None) -> RuleJudge | StatsJudge:
        """The judge a task's hypotheses get."""
        return self.rules if is_time_series_task(task) else self.stats

    def score(
        self, hypothesis: str, gold: str, task: Task | TaskBrief | None = None
    ) -> HypothesisScore:
        """Score ``hypothesis`` against ``gold`` with the task's family judge."""
        return self.judge_for(task).score(hypothesis, gold, task)
