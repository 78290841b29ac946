"""Reading a task with the facts one holds, and finding what the query leaves open.

:func:`~collabsim.participants.query.parse_query` is the pure reading of a query's text.
A participant who holds facts (:attr:`~collabsim.core.task.TaskBrief.facts`, see
:mod:`collabsim.core.knowledge`) reads the task with them: :func:`apply_facts` settles the
ordinal, relation and period the facts fix, and
:func:`~collabsim.participants.plan.resolve_plan` uses the column variant a held ``column``
fact names. :func:`read_brief` does both - the reading every scripted participant starts
from.

:func:`open_topics` lists what the query leaves open for this reader and no held fact
settles, found from the query text and the data's columns (never from a gold answer):

* ``ordinal``: a rise, fall or simultaneous-change query that names no occurrence
  ("the marked increase of amber");
* ``relation``: "highest"/"lowest" with no word pinning a single-century peak or sustained
  values ("when was amber at its highest?");
* ``window``: a period named by name only, with no years and not a period the domain knows
  ("during the site's main settlement phase");
* ``column``: an asked series that comes in several gap-filled variants
  (``Amber_inter``, ``Amber_recal_inter``).

On a statistical task (a :class:`~collabsim.domain.stats.model.StatPlan`) the open topics
are the family's (target, predictors, controls, filters, analysis), found by
:func:`~collabsim.participants.stat_facts.stat_open_topics`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from collabsim.core.knowledge import Fact
from collabsim.domain.relations import RELATION_RE, ordinal
from collabsim.domain.stats.model import StatPlan
from collabsim.domain.time_expr import extract_time_anchors, parse_window, query_window
from collabsim.domain.variables import column_stem, is_gap_filled
from collabsim.participants.plan import RELATIONS, AnalysisPlan, resolve_plan
from collabsim.participants.query import QuerySemantics, parse_query
from collabsim.participants.stat_facts import stat_open_topics
from collabsim.tasks.model import TaskBrief

__all__ = ["apply_facts", "open_topics", "read_brief"]

_EXTREME_WORD = re.compile(r"\b(?:highest|lowest)\b", re.IGNORECASE)
# words that say which reading of "highest" is meant: the single top bin or sustained values
_PINNED = re.compile(
    r"\b(?:peak\w*|maxim\w*|minim\w*|most\s+frequent|(?:highest|lowest)\s+(?:value|peak|point)s?)\b",
    re.IGNORECASE)
_SUSTAINED = RELATION_RE["sustained"]
_NAMED_PERIOD = re.compile(
    r"\bduring\s+(?:the\s+)?(?:site's\s+)?[\w' -]{0,40}?"
    r"\b(?:phase|horizon|period|era|age|stage|occupation)\b", re.IGNORECASE)
_ORDINAL_RELATIONS = ("rise", "fall", "simultaneous")


def apply_facts(semantics: QuerySemantics, facts: Iterable[Fact]) -> QuerySemantics:
    """The reading of a holder of ``facts``: ordinal, relation and period as they fix them.

    Column facts are not part of the semantics (the plan's columns honour them, see
    :func:`~collabsim.participants.plan.resolve_plan`); a value that cannot be read is
    ignored.
    """
    for fact in facts:
        fix = fact.fix
        changes: dict[str, object] = {}
        value = fix.get("ordinal", "")
        if value.isdigit() and int(value) >= 1:
            changes["ordinal"] = int(value)
        if fix.get("relation") in RELATIONS:
            changes["relation"] = fix["relation"]
        if "window" in fix:
            window = parse_window(fix["window"])
            if window is not None:
                changes["window"] = window
        if changes:
            semantics = replace(semantics, **changes)  # type: ignore[arg-type]
    return semantics


def read_brief(brief: TaskBrief) -> tuple[QuerySemantics, AnalysisPlan]:
    """A reader's semantics and plan of a task: the query read with the brief's facts."""
    semantics = apply_facts(parse_query(brief), brief.facts)
    return semantics, resolve_plan(brief, semantics)


def open_topics(brief: TaskBrief, semantics: QuerySemantics, plan: AnalysisPlan | StatPlan
                ) -> tuple[str, ...]:
    """The topics (:data:`~collabsim.core.knowledge.FACT_TOPICS`) the query leaves open for
    this reader and no fact of ``brief`` settles, in the order ordinal, relation, window,
    column (a statistical plan: the family's topics,
    :func:`~collabsim.participants.stat_facts.stat_open_topics`).

    Args:
        brief: What the reader sees (query, columns, held facts).
        semantics: The reader's semantics (after its facts).
        plan: The reader's plan (after its facts).
    """
    if isinstance(plan, StatPlan):
        return stat_open_topics(brief, plan, semantics)
    if not isinstance(semantics, QuerySemantics):
        return ()  # a statistical reading without a statistical plan: nothing to ask
    settled = {name for fact in brief.facts for name, _ in fact.setting}
    text = brief.query
    found: list[str] = []
    if semantics.relation in _ORDINAL_RELATIONS and ordinal(text) is None:
        found.append("ordinal")
    if (semantics.relation in ("peak", "plateau") and _EXTREME_WORD.search(text)
            and not _PINNED.search(text) and not _SUSTAINED.search(text)):
        found.append("relation")
    if (semantics.window is None and _NAMED_PERIOD.search(text)
            and query_window(text) is None and not extract_time_anchors(text)):
        found.append("window")
    if _has_variants(brief, plan):
        found.append("column")
    return tuple(t for t in found if t not in settled)


def _has_variants(brief: TaskBrief, plan: AnalysisPlan) -> bool:
    """Whether an asked series comes in several gap-filled variants in the plan's dataset."""
    info = next((d for d in brief.datasets if d.name == plan.dataset), None)
    if info is None:
        return False
    filled = [c.name for c in info.columns if is_gap_filled(c.name)]
    for column in plan.columns:
        stem = column_stem(column)
        if sum(column_stem(name) == stem for name in filled) > 1:
            return True
    return False
