"""A scripted collaborator's review of a teammate's gated code (``review_code``).

D gates the agent's cells in some structures; :func:`decide_code` approves or rejects one by
what it computes, with the issue tags a rejection's reason carries (the agent applies their
fixes as it applies a chat objection's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collabsim.core.actions import format_action
from collabsim.core.task import TaskBrief
from collabsim.domain.stats.model import StatPlan
from collabsim.domain.variables import is_gap_filled, raw_column
from collabsim.participants.asking import fact_sentence, variants
from collabsim.participants.cells import compute_cell_columns, variants_agree
from collabsim.participants.claims import Issue
from collabsim.participants.stat_collaborator import stat_code_issues

__all__ = ["column_fact_issue", "decide_code"]


def decide_code(collab: Any, request_id: str, code: str, plan: Any,
                brief: TaskBrief | None = None,
                missing_bins: Mapping[str, int] | None = None) -> str:
    """A reviewing collaborator's decision on gated code: a statistical cell whose plan
    leaves out a control or uses another model than mine is rejected
    (:func:`~collabsim.participants.stat_collaborator.stat_code_issues`); a time-series cell
    using a column variant a convention fact I hold rules out, or the raw column where my
    plan uses the gap-filled one, too - unless an inspect cell showed that raw column
    without a missing bin (``missing_bins``: then it is the gap-filled series); anything
    else is approved."""
    if not collab.params.review_code:
        return format_action("APPROVE", request_id=request_id)
    if isinstance(plan, StatPlan):
        issues = stat_code_issues(plan, code)
        if issues:
            return format_action("REJECT", request_id=request_id, reason=" ".join(
                [i.message for i in issues] + [i.tag() for i in issues]))
        return format_action("APPROVE", request_id=request_id)
    used = compute_cell_columns(code)
    known = column_fact_issue(collab, brief, used) if brief is not None else None
    if known is not None:
        return format_action("REJECT", request_id=request_id,
                             reason=f"{known.message} {known.tag()}")
    if used is not None:
        gaps = missing_bins or {}
        raw = sorted(raw_column(c) for c in plan.columns if is_gap_filled(c)
                     and raw_column(c) in used
                     and not variants_agree((raw_column(c),), (c,), gaps))
        if raw:
            issue = Issue("wrong_column_variant",
                          f"The cell uses the raw column(s) {', '.join(raw)}, which have "
                          f"gaps; use {'+'.join(plan.columns)}.",
                          (("column", "+".join(plan.columns)),))
            return format_action("REJECT", request_id=request_id,
                                 reason=f"{issue.message} {issue.tag()}")
    return format_action("APPROVE", request_id=request_id)


def column_fact_issue(collab: Any, brief: TaskBrief, used: Any) -> Issue | None:
    """A column-convention fact I hold (as I believe it) that the cell's columns break:
    it uses another variant of a column the fact names as the valid one."""
    if used is None or not brief.facts:
        return None
    names = [c.name for d in brief.datasets for c in d.columns]
    for fact, setting in collab.believed_facts(brief):
        valid = [c for c in dict(setting).get("column", "").split("+") if c]
        wrong = sorted(u for u in used if u not in valid
                       and any(u in variants(c, names) for c in valid))
        if wrong:
            said = (fact.text if setting == fact.setting
                    else fact_sentence(fact.topic, setting))
            return Issue("wrong_column_variant",
                         f"The cell uses {', '.join(wrong)}; use {'+'.join(valid)}. "
                         f"What I know: {said}", (("column", "+".join(valid)),))
    return None
