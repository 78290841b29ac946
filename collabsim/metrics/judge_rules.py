"""Deterministic hypothesis judge: years/periods, variable synonyms and relation keywords.

``RuleJudge().score(hypothesis, gold, task)`` returns a
:class:`~collabsim.metrics.outcome.HypothesisScore` with

* ``context_recall``, ``context``: temporal recall and F1(recall, precision) of the claim's
  time anchors against the gold's with a ±``tolerance_years`` tolerance (default 100: several
  DiscoveryBench golds differ from a plain pandas computation by one 100-year bin). Periods
  defined in the task's query/domain knowledge ("Middle Neolithic (3400-3000 BCE)") extend
  the built-in period table. Anchors restating the query's own window ("highest growth of
  the period between 3000 and 2000 BCE") are dropped from both sides unless they are all
  the text has (:func:`~collabsim.domain.time_expr.strip_frame`). A gold without a time
  context leaves context at 1.0.
* ``variable_f1``: F1 of canonical variables (synonym table + the task's column names and
  descriptions; a capital group matches its members). A gold without variables -> 1.0.
* ``relation``: :func:`~collabsim.metrics.outcome.relation_score`.

A gold scored against itself is always 1.0. An empty hypothesis scores 0.
"""

from __future__ import annotations

from collections.abc import Mapping

from collabsim.domain.time_expr import (
    DEFAULT_PERIODS,
    DEFAULT_TOLERANCE_YEARS,
    TimeAnchor,
    context_scores,
    extract_time_anchors,
    learn_periods,
    strip_frame,
)
from collabsim.domain.variables import VariableLexicon
from collabsim.metrics.outcome import HypothesisScore, relation_score, variable_f1
from collabsim.tasks.model import Task, TaskBrief


class RuleJudge:
    """Deterministic DiscoveryBench-style judge (no model calls).

    Args:
        tolerance_years: Tolerance for matching years (default 100).
        periods: Extra named periods (lower-case name -> CE span), added to the defaults.
        default_era: Era of years written without one (``"BCE"`` for the prehistoric data).
    """

    name = "rules"

    def __init__(
        self,
        tolerance_years: int = DEFAULT_TOLERANCE_YEARS,
        periods: Mapping[str, tuple[int, int]] | None = None,
        default_era: str = "BCE",
    ) -> None:
        self.tolerance_years = tolerance_years
        self.periods = {**DEFAULT_PERIODS, **(periods or {})}
        self.default_era = default_era
        self._lexicons: dict[str, VariableLexicon] = {}

    def lexicon(self, task: Task | TaskBrief | None) -> VariableLexicon:
        """Variable lexicon for a task (cached by task id)."""
        key = task.task_id if task is not None else ""
        if key not in self._lexicons:
            self._lexicons[key] = VariableLexicon.build(task.datasets if task else ())
        return self._lexicons[key]

    def periods_for(self, task: Task | TaskBrief | None) -> dict[str, tuple[int, int]]:
        """Period table extended with periods defined in the task's text."""
        if task is None:
            return dict(self.periods)
        learnt = learn_periods(f"{task.query}\n{task.domain_knowledge}")
        return {**self.periods, **learnt}

    def query_frame(self, task: Task | TaskBrief | None) -> list[TimeAnchor]:
        """Time anchors of the task's query (the question's own frame)."""
        if task is None:
            return []
        return extract_time_anchors(task.query, self.periods_for(task), self.default_era)

    def extract(self, text: str, task: Task | TaskBrief | None = None) -> dict[str, object]:
        """What the judge reads from a text: anchors, variables (for inspection and tests)."""
        return {
            "anchors": extract_time_anchors(text, self.periods_for(task), self.default_era),
            "variables": sorted(self.lexicon(task).variables(text)),
        }

    def score(
        self, hypothesis: str, gold: str, task: Task | TaskBrief | None = None
    ) -> HypothesisScore:
        """Score a hypothesis against the gold.

        Args:
            hypothesis: The submitted hypothesis text.
            gold: The gold hypothesis.
            task: The task (its columns/descriptions feed the variable synonyms and its
                query may define named periods); optional.

        Returns:
            The score; ``performance = context * variable_f1 * relation``.
        """
        if not hypothesis or not hypothesis.strip():
            return HypothesisScore.zero(self.name, "empty hypothesis")
        periods = self.periods_for(task)
        lex = self.lexicon(task)
        frame = self.query_frame(task)
        c_anchors = strip_frame(extract_time_anchors(hypothesis, periods, self.default_era), frame)
        g_anchors = strip_frame(extract_time_anchors(gold, periods, self.default_era), frame)
        recall, precision = context_scores(c_anchors, g_anchors, self.tolerance_years)
        context = 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)
        c_vars, g_vars = lex.variables(hypothesis), lex.variables(gold)
        _, _, f1 = variable_f1(c_vars, g_vars)
        rel, why = relation_score(hypothesis, gold, lex)
        rationale = (
            f"time: claim {[a.text for a in c_anchors]} vs gold {[a.text for a in g_anchors]} "
            f"(recall {recall:.2f}, precision {precision:.2f}); variables: claim "
            f"{sorted(c_vars)} vs gold {sorted(g_vars)} (F1 {f1:.2f}); relation: {why}"
        )
        return HypothesisScore.combine(context, f1, rel, recall, self.name, rationale)
