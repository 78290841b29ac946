"""Outcome (Performance): how well a submitted hypothesis matches the gold hypothesis.

DiscoveryBench-style score (docs/design.md "Metrics"):

    Performance = context × variable_F1 × relation

* ``context``: match of the claim's time context with the gold's (F1 of temporal recall and
  precision, see :func:`collabsim.domain.time_expr.context_scores`); ``context_recall`` is
  the recall alone (what Collaborative Gym reports).
* ``variable_f1``: F1 of the variables named in claim and gold.
* ``relation``: 1 (same relation), 0.5 (partly: some relation tags or the ordinal missing),
  0 (different or contradicting relation), see :func:`relation_score`.

The judges produce the same :class:`HypothesisScore`: the deterministic
:class:`~collabsim.metrics.judge_rules.RuleJudge` (time series; the context and relation
above are its parts), the deterministic
:class:`~collabsim.metrics.judge_stats.StatsJudge` (statistical hypotheses: population,
controls, direction, significance, numbers), the per-task choice between them
:class:`~collabsim.metrics.judge_family.FamilyJudge` (the default) and the model-based
:class:`~collabsim.metrics.judge_llm.LLMJudge`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from collabsim.domain.relations import ordinal, relation_tags, variable_directions
from collabsim.domain.variables import VariableLexicon, variables_match
from collabsim.tasks.model import Task, TaskBrief

#: Tags compared by the relation score; ``high``/``low`` only count when the gold has no
#: stronger tag.
_STRONG_TAGS = frozenset({"extreme", "trough", "increase", "decrease", "sustained",
                          "simultaneous", "opposite", "positive", "negative", "outlier"})
_OPPOSITE = {"increase": "decrease", "decrease": "increase"}


def _implied(directions: Mapping[str, set[str]]) -> set[str]:
    """Tags implied by variable directions: two variables moving opposite ways -> opposite."""
    ups = {v for v, d in directions.items() if d == {"increase"}}
    downs = {v for v, d in directions.items() if d == {"decrease"}}
    return {"opposite"} if ups and downs else set()


@dataclass(frozen=True)
class HypothesisScore:
    """Result of judging one hypothesis against the gold.

    Attributes:
        context: Context match in [0, 1].
        variable_f1: Variable F1 in [0, 1].
        relation: Relation score in {0, 0.5, 1} (an LLM judge may return values between).
        performance: ``context * variable_f1 * relation``.
        context_recall: Recall part of the context match in [0, 1].
        judge: Name of the judge (``"rules"``, ``"stats"``, ``"llm:<model>"``).
        rationale: Short human-readable explanation.
    """

    context: float
    variable_f1: float
    relation: float
    performance: float
    context_recall: float
    judge: str
    rationale: str

    @classmethod
    def combine(
        cls,
        context: float,
        variable_f1: float,
        relation: float,
        context_recall: float,
        judge: str,
        rationale: str,
    ) -> HypothesisScore:
        """Build a score, clipping parts to [0, 1] and computing performance."""
        parts = [_clip(x) for x in (context, variable_f1, relation, context_recall)]
        c, v, r, cr = parts
        return cls(c, v, r, c * v * r, cr, judge, rationale)

    @classmethod
    def zero(cls, judge: str, rationale: str) -> HypothesisScore:
        """An all-zero score (empty or missing hypothesis)."""
        return cls(0.0, 0.0, 0.0, 0.0, 0.0, judge, rationale)


def _clip(x: float) -> float:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return 0.0
    return float(min(1.0, max(0.0, x)))


@runtime_checkable
class HypothesisJudge(Protocol):
    """Anything that scores a hypothesis against a gold."""

    def score(
        self, hypothesis: str, gold: str, task: Task | TaskBrief | None = None
    ) -> HypothesisScore:
        """Score ``hypothesis`` against ``gold`` (task gives column names and context)."""
        ...


def relation_score(
    claim: str, gold: str, lexicon: VariableLexicon | None = None
) -> tuple[float, str]:
    """Relation score of a claim against a gold, with a short reason.

    Let G and C be the relation tags of gold and claim (see
    :func:`collabsim.domain.relations.relation_tags`, plus ``opposite`` when one variable goes up
    and another down; ``high``/``low`` count only when the gold has no stronger tag) and
    o_G, o_C their ordinals ("first", "second").

    * 1.0 when G is empty and the gold has no ordinal (nothing to match);
    * 0.0 on a contradiction: some variable goes up in one and down in the other (clause by
      clause), or the gold has exactly one direction and the claim only the opposite one;
    * 0.5 when one side says "lowest" (trough) and the other "greatest/steepest decline"
      (extreme + decrease);
    * 1.0 when every tag of G is in C and the ordinal matches (or the gold has none);
    * 0.0 when no tag of G is in C (and the ordinal does not match either);
    * 0.5 otherwise (some tags, or tags right but ordinal wrong or missing).

    Returns:
        ``(score, reason)``.
    """
    lex = lexicon or VariableLexicon.build()
    g_dir = variable_directions(gold, lex)
    c_dir = variable_directions(claim, lex)
    g_all = relation_tags(gold) | _implied(g_dir)
    c_all = relation_tags(claim) | _implied(c_dir)
    g_tags = g_all & _STRONG_TAGS or g_all
    o_g, o_c = ordinal(gold), ordinal(claim)
    if not g_tags and o_g is None:
        return 1.0, "gold states no relation"
    contradiction = _contradiction(g_dir, c_dir, g_all, c_all)
    if contradiction is not None:
        return 0.0, contradiction
    return _tag_match(g_tags, c_all, o_g, o_c)


def _contradiction(
    g_dir: Mapping[str, set[str]],
    c_dir: Mapping[str, set[str]],
    g_all: set[str],
    c_all: set[str],
) -> str | None:
    """Why the claim's directions contradict the gold's (None: they do not).

    A variable going up in one and down in the other (clause by clause), or a gold with
    exactly one direction whose claim has only the opposite one.
    """
    for var, dirs in g_dir.items():
        cd = c_dir.get(var, set())
        if len(dirs) == 1 and cd and not (cd & dirs):
            return f"direction of {var} contradicts the gold"
    gd, cd2 = g_all & set(_OPPOSITE), c_all & set(_OPPOSITE)
    if len(gd) == 1 and cd2 == {_OPPOSITE[next(iter(gd))]}:
        return "direction contradicts the gold"
    return None


def _tag_match(
    g_tags: set[str], c_tags: set[str], o_g: int | None, o_c: int | None
) -> tuple[float, str]:
    """Score how many of the gold's relation tags (and its ordinal) the claim states.

    Returns:
        ``(score, reason)`` by the last four rules of :func:`relation_score`.
    """
    share = len(g_tags & c_tags) / len(g_tags) if g_tags else 1.0
    ordinal_ok = o_g is None or o_g == o_c
    missing = sorted(g_tags - c_tags)
    decline = frozenset({"extreme", "decrease"})
    if share < 1.0 and (
        ("trough" in c_tags and "trough" not in g_tags and decline <= g_tags)
        or ("trough" in g_tags and "trough" not in c_tags and decline <= c_tags)
    ):
        return 0.5, "lowest value vs greatest decline: partly the same relation"
    if share == 1.0 and ordinal_ok:
        return 1.0, "relation matches"
    if share == 0.0 and not (o_g is not None and ordinal_ok):
        return 0.0, f"relation missing ({', '.join(missing)})"
    why = f"missing {', '.join(missing)}" if missing else f"ordinal {o_c} vs gold {o_g}"
    return 0.5, f"relation partly matches ({why})"


def score_to_dict(score: HypothesisScore) -> Mapping[str, float | str]:
    """Flatten a score into a results-row dict."""
    return {
        "context": score.context,
        "variable_f1": score.variable_f1,
        "relation": score.relation,
        "Performance": score.performance,
        "context_recall": score.context_recall,
        "judge": score.judge,
    }


def variable_f1(claim: Iterable[str], gold: Iterable[str]) -> tuple[float, float, float]:
    """Precision, recall and F1 of claim variables against gold variables.

    Matching uses :func:`~collabsim.domain.variables.variables_match` (a capital group
    matches its members). A gold with no variables leaves the score unconstrained (1.0); a
    claim with none scores 0.

    Returns:
        ``(precision, recall, f1)``.
    """
    c, g = set(claim), set(gold)
    if not g:
        return 1.0, 1.0, 1.0
    if not c:
        return 0.0, 0.0, 0.0
    recall = sum(any(variables_match(x, y) for x in c) for y in g) / len(g)
    precision = sum(any(variables_match(x, y) for y in g) for x in c) / len(c)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1
