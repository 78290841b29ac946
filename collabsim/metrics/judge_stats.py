"""Deterministic judge for statistical hypotheses (DiscoveryBench's context/variables/relation).

``StatsJudge().score(hypothesis, gold, task)`` returns a
:class:`~collabsim.metrics.outcome.HypothesisScore` with
``performance = context × variable_f1 × relation``, each part read by
:mod:`collabsim.metrics.stats_vocab` (variables) and :mod:`collabsim.metrics.stats_claims`
(relation, context):

* ``variable_f1``: F1 of the task columns named by claim and gold outside their control
  phrases and their written-out row filters ("for rows with area type == 2": context,
  :func:`~collabsim.metrics.stats_claims.filter_spans`) (:meth:`~collabsim.metrics.stats_vocab.ColumnLexicon.mentions`: fuzzy phrase
  matching of column names, description heads and data-file names; controls are context,
  below); recall also counts a gold column the claim names only as a control
  (:func:`variables_f1`). A column the claim names counts as named by the gold when the gold describes it
  (golds are prose: half or more, at least two, of the column description's content words,
  :meth:`~collabsim.metrics.stats_vocab.ColumnLexicon.describes`); the other way round a
  claim must name the gold's columns. A gold naming no column -> 1.0; a claim naming none
  against a gold naming some -> 0.
* ``context``: F1 of recall R and precision P of the context items. Items are population
  words, places and data years (:func:`~collabsim.metrics.stats_claims.population_of`)
  minus the task's own frame (:func:`context_frame`: those of its query, and places its
  query, domain or domain knowledge name; a claim need not restate "in Black women" when
  the query asks about Black women, and may restate it), plus the content stems of the
  gold's controls. R = (matched gold population items + gold control stems the claim
  mentions anywhere) / (gold items + gold control stems); P = matched claim population
  items / claim population items (a claim's extra controls are not penalised: analyses
  often state more controls than golds). Empty sides count 1; ``context_recall`` = R.
* ``relation`` (DiscoveryBench: 1 very similar, 0.5 similar but more general, 0
  different): the gold's relation components are its direction set, its significance set,
  its numbers and its shape/comparison tags (each only where the gold states one).

  - 0 when the claim contradicts the gold: its direction set (or significance set) is
    non-empty and disjoint from the gold's non-empty one ("negative" vs "positive",
    "no significant association" vs "positive", p = 0.2 vs "significant");
  - 1 when the gold states no component, or the claim matches every one: the gold's
    directions (the claim may add "no association" for other variables, no other), the
    same significance set, every gold number within tolerance, every gold tag present;
  - 0.5 when some component matches (the claim is right but less specific, or a number is
    off);
  - 0 when none matches.

**Number tolerance**: a gold number g is matched by a claim number c when
``|c - g| <= max(REL_TOL·|g|, min(half a unit of c's last written digit, ROUND_CAP·|g|))``
with ``REL_TOL = 0.05`` and ``ROUND_CAP = 0.10``: 5 % relative, widened up to 10 % when the
claim's rounding explains the gap (gold -0.0038 vs claim -0.004). Signs are compared through
the direction (numbers by absolute value); percentages are compared as fractions
(``20%`` = ``0.2``); p-values and data years are not numbers here.

A gold scored against itself is 1.0. An empty hypothesis scores 0.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from collabsim.metrics.outcome import HypothesisScore
from collabsim.metrics.stats_claims import (
    StatClaim,
    control_spans,
    filter_spans,
    population_of,
    read_claim,
)
from collabsim.metrics.stats_vocab import ColumnLexicon
from collabsim.tasks.model import Task, TaskBrief

REL_TOL = 0.05
ROUND_CAP = 0.10


def number_matches(gold: float, claim: tuple[float, int]) -> bool:
    """True when a claim number ``(value, decimals)`` is within tolerance of a gold number."""
    value, decimals = claim
    half_unit = 0.5 * 10.0 ** (-decimals)
    tol = max(REL_TOL * abs(gold), min(half_unit, ROUND_CAP * abs(gold)))
    return abs(value - gold) <= tol + 1e-12


def variables_f1(claim: set[str], claim_all: set[str], gold: set[str]) -> float:
    """Variable F1: precision over the claim's columns outside its controls (``claim``),
    recall over all the columns it names (``claim_all``: a gold variable the claim holds
    constant is still named). A gold naming none -> 1; a claim naming none -> 0."""
    if not gold:
        return 1.0
    recall = len(gold & claim_all) / len(gold)
    precision = len(claim & gold) / len(claim) if claim else float(recall > 0)
    return _f1(recall, precision)


def _f1(recall: float, precision: float) -> float:
    return 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


def context_frame(task: Task | TaskBrief | None, items: frozenset[str]) -> frozenset[str]:
    """The task's own context: the population items of its query, and the places among
    ``items`` its query, domain or domain knowledge name ("ancient Mesopotamian cities" in
    the query frames "in ancient Mesopotamia"). Data descriptions are not a frame: they
    list the strata a hypothesis may be about ("for Sub-Saharan Africa and Lower Middle
    Income Countries")."""
    if task is None:
        return frozenset()
    frame = set(population_of(task.query))
    text = " ".join([task.query, task.domain, task.domain_knowledge]).lower()
    words = set(re.findall(r"[a-z][a-z-]+", text))
    for item in items:
        if not item.startswith("place:"):
            continue
        if all(any(len(w) >= 5 and (t.startswith(w) or w.startswith(t)) and len(t) >= 5
                   for t in words) for w in item.removeprefix("place:").split()):
            frame.add(item)
    return frozenset(frame)


def context_parts(claim: StatClaim, gold: StatClaim, frame: frozenset[str]) -> tuple[float, float]:
    """Context recall and precision of a claim against the gold (see the module docstring)."""
    g_pop, c_pop = gold.population - frame, claim.population - frame
    matched = len(g_pop & c_pop) + len(gold.controls & claim.words)
    total = len(g_pop) + len(gold.controls)
    recall = matched / total if total else 1.0
    precision = len(c_pop & g_pop) / len(c_pop) if c_pop else 1.0
    return recall, precision


def relation_parts(claim: StatClaim, gold: StatClaim) -> tuple[float, str]:
    """Relation score and reason (see the module docstring)."""
    for name, g_set, c_set in (("direction", gold.direction, claim.direction),
                               ("significance", gold.significance, claim.significance)):
        if g_set and c_set and not (g_set & c_set):
            return 0.0, f"{name} {sorted(c_set)} contradicts the gold's {sorted(g_set)}"
    parts: dict[str, bool] = {}
    if gold.direction:
        parts["direction"] = (gold.direction <= claim.direction
                              and claim.direction - gold.direction <= {"null"})
    if gold.significance:
        parts["significance"] = claim.significance == gold.significance
    if gold.numbers:
        parts["numbers"] = all(any(number_matches(g, c) for c in claim.numbers)
                               for g, _ in gold.numbers)
    if gold.shapes:
        parts["form"] = gold.shapes <= claim.shapes
    if not parts:
        return 1.0, "gold states no relation"
    missing = sorted(k for k, ok in parts.items() if not ok)
    if not missing:
        return 1.0, "relation matches (" + ", ".join(sorted(parts)) + ")"
    if len(missing) < len(parts):
        return 0.5, "relation partly matches (missing or off: " + ", ".join(missing) + ")"
    return 0.0, "relation missing (" + ", ".join(missing) + ")"


class StatsJudge:
    """Deterministic judge for statistical hypotheses (no model calls)."""

    name = "stats"

    #: How many scores a judge keeps (least recently used dropped first).
    SCORE_CACHE_SIZE = 4096

    def __init__(self) -> None:
        self._lexicons: dict[tuple[object, ...], ColumnLexicon] = {}
        self._scores: OrderedDict[tuple[object, ...], HypothesisScore] = OrderedDict()

    @staticmethod
    def _tables_key(task: Task | TaskBrief | None) -> tuple[object, ...]:
        datasets = task.datasets if task is not None else ()
        return tuple((d.name, d.description, tuple((c.name, c.description) for c in d.columns))
                     for d in datasets)

    def lexicon(self, task: Task | TaskBrief | None) -> ColumnLexicon:
        """The column lexicon of a task (cached by its data files' names, descriptions and
        columns, so tasks of different folders sharing an id never share one)."""
        datasets = task.datasets if task is not None else ()
        key = self._tables_key(task)
        if key not in self._lexicons:
            if len(self._lexicons) >= 1024:
                self._lexicons.clear()
            self._lexicons[key] = ColumnLexicon.build(datasets)
        return self._lexicons[key]

    def variables(self, text: str, task: Task | TaskBrief | None = None) -> set[str]:
        """Columns a text names outside its control phrases."""
        spans = control_spans(text) + filter_spans(text)
        return {m.column for m in self.lexicon(task).mentions(text)
                if not any(a <= m.start and m.end <= b for a, b in spans)}

    def extract(self, text: str, task: Task | TaskBrief | None = None) -> dict[str, object]:
        """What the judge reads from a text (for inspection and tests)."""
        claim = read_claim(text)
        return {
            "variables": sorted(self.variables(text, task)),
            "direction": sorted(claim.direction),
            "significance": sorted(claim.significance),
            "numbers": [v for v, _ in claim.numbers],
            "shapes": sorted(claim.shapes),
            "population": sorted(claim.population),
            "controls": sorted(claim.controls),
        }

    def score(
        self, hypothesis: str, gold: str, task: Task | TaskBrief | None = None
    ) -> HypothesisScore:
        """Score a hypothesis against the gold.

        Args:
            hypothesis: The submitted hypothesis text.
            gold: The gold hypothesis.
            task: The task (its columns name the variables; its query is the context frame).

        Returns:
            The score; ``performance = context * variable_f1 * relation``.
        """
        if not hypothesis or not hypothesis.strip():
            return HypothesisScore.zero(self.name, "empty hypothesis")
        # a pure function of the texts and of what it reads of the task: the sessions of a
        # task often submit the same hypothesis, so it is scored once
        key = (hypothesis, gold, self._tables_key(task)) + ((
            task.query, task.domain, task.domain_knowledge) if task is not None else ())
        cached = self._scores.get(key)
        if cached is not None:
            self._scores.move_to_end(key)
            return cached
        score = self._score(hypothesis, gold, task)
        self._scores[key] = score
        if len(self._scores) > self.SCORE_CACHE_SIZE:
            self._scores.popitem(last=False)
        return score

    def _score(self, hypothesis: str, gold: str, task: Task | TaskBrief | None
               ) -> HypothesisScore:
        c_claim, g_claim = read_claim(hypothesis), read_claim(gold)
        frame = context_frame(task, c_claim.population | g_claim.population)
        recall, precision = context_parts(c_claim, g_claim, frame)
        context = _f1(recall, precision)
        lex = self.lexicon(task)
        c_vars, g_named = self.variables(hypothesis, task), self.variables(gold, task)
        c_all = lex.variables(hypothesis)
        g_vars = g_named | {v for v in c_vars - g_named if lex.describes(v, gold)}
        f1 = variables_f1(c_vars, c_all, g_vars)
        rel, why = relation_parts(c_claim, g_claim)
        rationale = (
            f"context: claim {sorted(c_claim.population - frame)} vs gold "
            f"{sorted(g_claim.population - frame)}, controls {sorted(g_claim.controls)} "
            f"(recall {recall:.2f}, precision {precision:.2f}); variables: claim "
            f"{sorted(c_vars)} vs gold {sorted(g_vars)} (F1 {f1:.2f}); relation: {why}"
        )
        return HypothesisScore.combine(context, f1, rel, recall, self.name, rationale)
