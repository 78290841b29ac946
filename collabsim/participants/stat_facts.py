"""Reading a statistical task with the facts one holds, and finding what its query leaves open.

The statistical family's facts (:mod:`collabsim.core.knowledge`, topics ``target``,
``predictors``, ``controls``, ``filters``, ``analysis``) carry a setting in
:meth:`~collabsim.domain.stats.model.StatPlan.with_fix` syntax. A holder's plan applies
them (:func:`apply_stat_facts`); a value that names no column of the plan's table (or no
known analysis) is ignored, as a time-series ``column`` fact naming no column is.

:func:`stat_open_topics` lists what the query leaves open for this reader and no held fact
settles - found from the query text and the table's columns, never from a gold answer:

* ``target`` / ``predictors``: the chosen column has a similar-sounding other column in the
  table (:func:`~collabsim.participants.stat_mistakes.similar_columns`) - the reader cannot
  tell from the names which one the query means;
* ``controls``: the query asks for something to be held constant ("controlling for",
  "adjusting for", "when ... are considered") and the plan has no control;
* ``filters``: the query names a population or subgroup ("among", "within", "only",
  "for the 1989 data") and the plan has no filter;
* ``analysis``: the target's description says it is binary while the plan is linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from collabsim.core.knowledge import STAT_TOPICS, Fact
from collabsim.core.task import TaskBrief
from collabsim.domain.stats.model import ANALYSES, FIX_KEYS, StatPlan, parse_filters
from collabsim.participants.stat_mistakes import similar_columns

__all__ = ["apply_stat_facts", "held_fix", "normalize_filters", "stat_open_topics",
           "usable_fix"]

_OP = re.compile(r"\s*(==|!=|>=|<=|>|<)\s*")

_CONTROL_WORDS = re.compile(
    r"\b(?:control(?:ling|led)?\s+for|adjust(?:ing|ed)?\s+for|account(?:ing)?\s+for|"
    r"holding\b.*\bconstant|when\b.*\b(?:are|is)\s+(?:considered|controlled|included|"
    r"taken\s+into\s+account)|net\s+of)", re.IGNORECASE)
_POPULATION_WORDS = re.compile(
    r"\b(?:among|within|only|subgroup|subset|sub-population|restricted\s+to)\b"
    r"|\b(?:for|in)\s+(?:the\s+)?(?:1[89]|20)\d\d\b", re.IGNORECASE)
_BINARY_WORDS = re.compile(
    r"\b(?:binary|dummy|indicator|whether|yes/no|0/1|1\s*=|1\s+if|true/false)\b",
    re.IGNORECASE)


def _names(brief: TaskBrief, dataset: str) -> set[str]:
    return {c.name for d in brief.datasets if d.name == dataset for c in d.columns}


def normalize_filters(text: str) -> str:
    """Filters written compactly (``sex==2;age>=18``, as a tag without spaces may carry
    them) in the spaced form :func:`~collabsim.domain.stats.model.parse_filters` reads."""
    if text.strip() in ("", "none"):
        return "none"
    return "; ".join(_OP.sub(lambda m: f" {m.group(1)} ", c.strip(), count=1)
                     for c in text.split(";") if c.strip())


def held_fix(fix: Mapping[str, str], brief: TaskBrief, dataset: str) -> dict[str, str]:
    """The parts of a fact's (or a teammate's) setting that apply to the plan's table: the
    statistical keys whose columns exist there and a known analysis (others dropped;
    compact filters are spaced). A fix from chat - possibly an LLM's - never breaks the
    plan: a part that cannot be read is left out."""
    names = _names(brief, dataset)
    out: dict[str, str] = {}
    for key in FIX_KEYS:
        if key not in fix:
            continue
        value = fix[key]
        if key == "target" and value not in names:
            continue
        if key in ("predictors", "controls") and any(
                c not in names for c in value.split("+") if c and c != "none"):
            continue
        if key == "filters":
            value = normalize_filters(value)
            try:
                if any(c not in names for c, _, _ in parse_filters(value)):
                    continue
            except ValueError:
                continue
        if key == "analysis" and value not in ANALYSES:
            continue
        out[key] = value
    return out


def usable_fix(plan: Any, fix: Mapping[str, str], brief: TaskBrief) -> Mapping[str, str]:
    """A teammate's fix as a participant can apply it: on a statistical plan the parts
    :func:`held_fix` keeps, a time-series fix as it is."""
    return held_fix(fix, brief, plan.dataset) if isinstance(plan, StatPlan) else fix


def apply_stat_facts(plan: StatPlan, facts: Iterable[Fact], brief: TaskBrief) -> StatPlan:
    """The plan of a holder of ``facts``: each statistical fact's setting applied (in task
    order; parts naming no column of the plan's table are ignored)."""
    for fact in facts:
        if fact.topic in STAT_TOPICS:
            fix = held_fix(fact.fix, brief, plan.dataset)
            if fix:
                plan = plan.with_fix(fix)
    return plan


def _description(brief: TaskBrief, dataset: str, column: str) -> str:
    return next((c.description for d in brief.datasets if d.name == dataset
                 for c in d.columns if c.name == column), "")


def stat_open_topics(brief: TaskBrief, plan: StatPlan) -> tuple[str, ...]:
    """The statistical topics the query leaves open for this reader and no fact of
    ``brief`` settles, in the order target, predictors, controls, filters, analysis.

    Args:
        brief: What the reader sees (query, columns, held facts).
        plan: The reader's plan (after its facts).
    """
    settled = {name for fact in brief.facts for name, _ in fact.setting}
    text = brief.query
    used = (plan.target, *plan.predictors, *plan.controls)
    found: list[str] = []
    if plan.target and similar_columns(plan.target, brief, plan.dataset, used):
        found.append("target")
    if any(similar_columns(p, brief, plan.dataset, used) for p in plan.predictors):
        found.append("predictors")
    if not plan.controls and _CONTROL_WORDS.search(text):
        found.append("controls")
    if not plan.filters and _POPULATION_WORDS.search(text):
        found.append("filters")
    if plan.analysis == "ols" and _BINARY_WORDS.search(
            _description(brief, plan.dataset, plan.target)):
        found.append("analysis")
    return tuple(t for t in found if t not in settled)
