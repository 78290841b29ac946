"""The scripted agent's plan after teammates' fixes, folded objection by objection, on
hand-built objections (no session is run)."""

from __future__ import annotations

from typing import Any

from helpers.observations import sample_observation

from collabsim.core.records import ChatMessage
from collabsim.participants.agent_plan import (
    FixRules,
    PlanFold,
    PlanKeeper,
    fold_all,
    fold_objection,
)
from collabsim.participants.plan import AnalysisPlan
from collabsim.participants.session_log import ANSWER

PLAN = AnalysisPlan("first_rise", "finds.csv", ("Dagger",))
SECOND = ("wrong_ordinal", {"ordinal": "2"})
THIRD = ("wrong_ordinal", {"ordinal": "3"})


def _rules(binding: frozenset[str] = frozenset(), mistakes: frozenset[str] = frozenset(),
           defers: bool = False) -> FixRules:
    return FixRules(sample_observation().task, None, mistakes, binding,
                    lambda message, kind: defers)


def _said(seq: int, sender: str, *issues: tuple[str, dict[str, str]]
          ) -> tuple[ChatMessage, tuple[tuple[str, dict[str, str]], ...]]:
    return ChatMessage(seq, float(seq), sender, "..."), issues


def test_a_gate_owners_fix_binds_and_anothers_is_followed_only_when_deferring() -> None:
    start = PlanFold(PLAN)
    assert fold_objection(start, _said(1, "R", SECOND), _rules(frozenset({"R"}))) == PlanFold(
        PLAN.with_fix({"ordinal": "2"}), applied=("wrong_ordinal",))
    assert fold_objection(start, _said(1, "D", SECOND), _rules(frozenset({"R"}))) == PlanFold(
        PLAN, ignored=("wrong_ordinal",))
    assert fold_objection(start, _said(1, "D", SECOND), _rules(defers=True)).plan.ordinal == 2
    stubborn = _rules(mistakes=frozenset({"ignore_teammate"}), defers=True)
    assert fold_objection(start, _said(1, "D", SECOND), stubborn).ignored == ("wrong_ordinal",)
    # an answer to my own question is applied as asked for, and is no issue of mine
    answer = fold_objection(start, _said(1, "D", (ANSWER, {"ordinal": "2"})), stubborn)
    assert answer == PlanFold(PLAN.with_fix({"ordinal": "2"}))


def test_objections_are_folded_in_time_order() -> None:
    rules = _rules(frozenset({"R"}))
    later, earlier = _said(5, "R", THIRD), _said(2, "R", SECOND)
    assert fold_all(PlanFold(PLAN), [later, earlier], rules).plan.ordinal == 3


def test_the_keeper_folds_only_new_objections_and_all_again_when_one_sorts_earlier() -> None:
    rules = _rules(frozenset({"R"}))
    keeper = PlanKeeper()
    chat = [_said(1, "R", SECOND)]

    def plain(entry: Any) -> Any:  # the chat entries here are objections already
        return entry

    assert keeper.fold("s", PlanFold(PLAN), chat, (), plain, rules).plan.ordinal == 2
    chat.append(_said(4, "R", THIRD))
    assert keeper.fold("s", PlanFold(PLAN), chat, (), plain, rules).applied == (
        "wrong_ordinal", "wrong_ordinal")
    # a gate rejection decided before the last chat objection: all are folded again
    message, issues = _said(3, "R", SECOND)
    rejects = ((3, message, issues),)
    fold = keeper.fold("s", PlanFold(PLAN), chat, rejects, plain, rules)
    assert fold == fold_all(PlanFold(PLAN), [*chat, (message, issues)], rules)
    assert fold.plan.ordinal == 3
    # another key (say, another session): from its own start
    assert keeper.fold("t", PlanFold(PLAN), [], (), plain, rules) == PlanFold(PLAN)
