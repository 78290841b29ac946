"""The scripted agent's plan after its teammates' fixes, folded objection by objection.

:func:`fold_objection` is the reducer (``(fold, objection) -> fold``): an objection's fixes
are applied or ignored by the agent's :class:`FixRules` (gate owners bind; otherwise the
agent defers or, with the ``ignore_teammate`` mistake, ignores). The objections are folded
in time order. :class:`PlanKeeper` keeps the fold of a session's objections up to date:
objections that come in after the last folded one are folded onto it, so a decision costs
O(new objections); anything else (another session, other gates, trust or memory facts, an
objection that sorts among those folded) folds them all again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from collabsim.core.records import ChatMessage
from collabsim.participants.misapplication import Misapplier, distorted_plan
from collabsim.participants.session_log import ANSWER, Issues
from collabsim.participants.stat_facts import fixed_plan
from collabsim.participants.stat_mistakes import WORDING_KINDS
from collabsim.tasks.model import TaskBrief

__all__ = ["FixRules", "Objection", "PlanFold", "PlanKeeper", "fold_objection"]

Objection = tuple[ChatMessage, Issues]


@dataclass(frozen=True)
class FixRules:
    """What decides whether the agent applies a teammate's fix.

    Attributes:
        brief: The task (fixes are applied as the brief allows).
        semantics: The agent's reading of the query.
        mistakes: The agent's mistakes this session (``ignore_teammate``; wording kinds a
            wording fix corrects).
        binding: Gate owners: their fixes bind.
        defers: Whether the agent follows a non-binding objection of this kind.
        misapplies: Whether following a non-binding chat suggestion goes wrong, and how:
            ``(message, kind, plan after the fix) -> distortion kind or None``
            (:mod:`collabsim.participants.misapplication`; None: never).
    """

    brief: TaskBrief
    semantics: Any
    mistakes: frozenset[str]
    binding: frozenset[str]
    defers: Callable[[ChatMessage, str], bool]
    misapplies: Misapplier | None = None


@dataclass(frozen=True)
class PlanFold:
    """The plan after the objections folded so far, with the issue kinds applied / ignored
    and the distortions misapplied suggestions brought in (what the agent's revision lost of
    the query: its statement is made under that reading too)."""

    plan: Any
    applied: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    distortions: tuple[str, ...] = ()


def fold_objection(fold: PlanFold, objection: Objection, rules: FixRules) -> PlanFold:
    """The fold after one more objection: each issue's fix applied or ignored, in order (an
    :data:`~collabsim.participants.session_log.ANSWER` always applied, as asked for)."""
    message, issues = objection
    plan, applied, ignored = fold.plan, list(fold.applied), list(fold.ignored)
    distortions = list(fold.distortions)
    ignore = "ignore_teammate" in rules.mistakes
    for kind, fix in issues:
        if kind == ANSWER:
            plan = fixed_plan(plan, fix, rules.brief, rules.semantics)  # what I asked for
            continue
        binding = message.sender in rules.binding
        if not binding and (ignore or not rules.defers(message, kind)):
            ignored.append(kind)
            continue
        new = fixed_plan(plan, fix, rules.brief, rules.semantics)
        if new != plan or (kind in WORDING_KINDS and kind in rules.mistakes
                           and kind not in applied):
            applied.append(kind)  # a wording fix corrects my statement, not my plan
        # a suggestion taken from free chat can land wrong; an owner's binding decision is
        # checked again by its owner when the revision comes back, so it lands as stated
        lost = (None if binding or rules.misapplies is None
                else rules.misapplies(message, kind, new))
        if lost is not None and lost not in distortions:
            new = distorted_plan(new, lost, rules.brief)
            distortions.append(lost)
        plan = new
    return PlanFold(plan, tuple(applied), tuple(ignored), tuple(distortions))


def fold_all(start: PlanFold, objections: Sequence[Objection], rules: FixRules) -> PlanFold:
    """``start`` with ``objections`` folded in time order (a stable sort: of two at the same
    time, the one listed first)."""
    fold = start
    for objection in sorted(objections, key=lambda o: o[0].time):
        fold = fold_objection(fold, objection, rules)
    return fold


class PlanKeeper:
    """The fold of a session's objections, kept up to date (one per starting plan)."""

    def __init__(self) -> None:
        self._key: object = None
        self._fold = PlanFold(None)
        self._chat = 0  # chat objections folded
        self._rejects: set[int] = set()  # seqs of the gate rejections folded
        self._last = -float("inf")  # time of the latest objection folded

    def fold(self, key: object, start: PlanFold, chat: Sequence[Any],
             rejects: Sequence[tuple[int, ChatMessage, Issues]],
             chat_issues: Callable[[Any], Objection], rules: FixRules) -> PlanFold:
        """The fold of ``start`` with every objection: teammates' chat objections (in chat
        order, each made an objection by ``chat_issues``) and gate rejections (``(seq,
        message, issues)``). ``key`` names everything else the fold depends on (session,
        starting plan, gates, trust): another key folds them all again."""
        new_rejects = [r for r in rejects if r[0] not in self._rejects]
        if key != self._key or len(chat) < self._chat:
            new = [chat_issues(c) for c in chat] + [(m, i) for _, m, i in rejects]
            return self._refold(key, start, new, len(chat), rejects, rules)
        new = [chat_issues(c) for c in chat[self._chat:]] + [(m, i) for _, m, i in new_rejects]
        if not new:
            return self._fold
        if min(o[0].time for o in new) <= self._last:  # sorts among those folded
            every = [chat_issues(c) for c in chat] + [(m, i) for _, m, i in rejects]
            return self._refold(key, start, every, len(chat), rejects, rules)
        self._fold = fold_all(self._fold, new, rules)
        self._chat = len(chat)
        self._rejects.update(r[0] for r in new_rejects)
        self._last = max(o[0].time for o in new)
        return self._fold

    def _refold(self, key: object, start: PlanFold, objections: list[Objection], n_chat: int,
                rejects: Sequence[tuple[int, ChatMessage, Issues]], rules: FixRules
                ) -> PlanFold:
        self._key, self._chat = key, n_chat
        self._rejects = {r[0] for r in rejects}
        self._fold = fold_all(start, objections, rules)
        self._last = max((o[0].time for o in objections), default=-float("inf"))
        return self._fold
