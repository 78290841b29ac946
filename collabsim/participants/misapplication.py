"""Misapplied suggestions: the agent's revision after a teammate's chat suggestion loses part
of the query (a coordination cost, :mod:`collabsim.core.coordination`).

When the agent follows a suggestion it took from free chat (not a gate owner's binding
decision, not the answer to its own question), the revision lands wrong with probability
:meth:`~collabsim.core.coordination.CoordinationSpec.misapplication_rate`: it redoes the
analysis and its statement under a distorted reading of the query - one setting the
suggestion did not touch is lost on the way (the ordinal, peak vs sustained values, the
bounded period, the relation asked; on statistical tasks the variable, the population or the
direction). This is what multi-turn instructions do to language models (Laban et al. 2025:
models answer a version of the request assembled wrongly from its pieces) and what Steiner
(1972) calls coordination loss: it happens whoever was right.

The distortion is drawn once per (seed, agent, task, message, issue kind), so the agent's
decision stays a function of its observation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.records import ChatMessage
from collabsim.domain.stats.model import StatPlan
from collabsim.participants.plan import apply_mistakes, misread_semantics, seeded_rng
from collabsim.participants.stat_mistakes import (
    PLAN_KINDS,
    WORDING_KINDS,
    apply_stat_mistakes,
)
from collabsim.tasks.model import TaskBrief

__all__ = ["SEMANTIC_KINDS", "STAT_KINDS", "Misapplier", "competing_messages",
           "distorted_plan", "misapplier"]

#: What a misapplied revision can lose of a time-series query.
SEMANTIC_KINDS: tuple[str, ...] = ("wrong_ordinal", "peak_vs_plateau", "wrong_window",
                                   "misread_query")
#: ... and of a statistical one (plan kinds change the fit, wording kinds the statement).
STAT_KINDS: tuple[str, ...] = ("wrong_variable", "wrong_subgroup", "direction_misread")

#: ``(message, issue kind, plan after the fix) -> the distortion kind, or None``.
Misapplier = Callable[[ChatMessage, str, Any], "str | None"]


def competing_messages(chat: Sequence[ChatMessage], message: ChatMessage, me: str) -> int:
    """How many other teammate messages compete with ``message`` for the agent's attention:
    those that landed after the agent's last message before it and before it (the
    teammates' messages it had not answered yet when this one came in)."""
    count = 0
    for other in reversed(chat):
        if other.time > message.time or other.seq == message.seq:
            continue
        if other.sender == me:
            break
        count += 1
    return count


def distorted_plan(plan: Any, kind: str, brief: TaskBrief) -> Any:
    """``plan`` after losing ``kind`` (a wording kind leaves a statistical plan as it is:
    it distorts what the agent states)."""
    if isinstance(plan, StatPlan):
        return plan if kind in WORDING_KINDS else apply_stat_mistakes(plan, {kind}, brief)
    return apply_mistakes(plan, {kind})


def _candidates(plan: Any, semantics: Any, brief: TaskBrief, exclude: Iterable[str]
                ) -> list[str]:
    """The distortions that would change something in this plan / reading."""
    skip = set(exclude)
    if isinstance(plan, StatPlan):
        return [k for k in STAT_KINDS if k not in skip and (
            k in WORDING_KINDS or (k in PLAN_KINDS
                                   and apply_stat_mistakes(plan, {k}, brief) != plan))]
    return [k for k in SEMANTIC_KINDS
            if k not in skip and misread_semantics(semantics, {k}) != semantics]


def misapplier(spec: CoordinationSpec, seed: int, name: str, brief: TaskBrief,
               semantics: Any, mistakes: frozenset[str], chat: Sequence[ChatMessage],
               criteria: bool) -> Misapplier:
    """The agent's misapplication rule for one decision.

    Args:
        spec: The coordination spec in force.
        seed: The agent's seed.
        name: The agent's name.
        brief: The task.
        semantics: The agent's reading of the query.
        mistakes: The agent's own mistakes this session (never drawn again as a distortion).
        chat: The chat as the agent took it in (for the competing messages).
        criteria: Whether the team memory records evidence criteria.
    """

    def misapplies(message: ChatMessage, kind: str, plan: Any) -> str | None:
        rate = spec.misapplication_rate(competing_messages(chat, message, name), criteria)
        if rate <= 0.0:
            return None
        rng = seeded_rng(seed, name, brief.task_id, message.sender, message.text, kind,
                         "misapply")
        if rng.random() >= rate:
            return None
        options = _candidates(plan, semantics, brief, mistakes | {kind})
        if not options:
            return None
        return options[int(rng.integers(len(options)))]

    return misapplies
