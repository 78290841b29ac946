"""Objection correctness: an objection is wrong when it contradicts a task fact, its proposal
is worse than the draft, or the draft was already right in what it raises."""

from __future__ import annotations

import dataclasses

import pytest

from collabsim.core.events import TraceEvent
from collabsim.core.knowledge import Fact
from collabsim.metrics.objections import contradicts_gold, contradicts_reference, objection_counts
from collabsim.metrics.outcome import HypothesisScore
from collabsim.participants.claims import Issue, format_check_message, format_proposal_message

RIGHT = "Around 3600 BCE, house size peaked."
WRONG = "Around 3000 BCE, house size peaked."


def _ev(seq: int, actor: str, kind: str, action: str, **args: str) -> TraceEvent:
    return TraceEvent(seq=seq, t_start=float(seq), t_end=float(seq) + 1, actor=actor,
                      actor_type=kind, action_type=action, args=args)  # type: ignore[arg-type]


def _score(text: str) -> HypothesisScore:
    full = float(text == RIGHT)
    return HypothesisScore.combine(full, full, full, full, "rules", "")


def test_objections_to_a_right_draft_are_wrong_and_to_a_wrong_draft_right() -> None:
    issue = Issue("wrong_year", "I get another century.")
    events = [
        _ev(0, "agent", "ai", "EDITOR_UPDATE", text=RIGHT),
        # D proposes a worse version of a right draft: wrong objection
        _ev(1, "D", "human", "SEND_TEAMMATE_MESSAGE",
            message=format_proposal_message((issue,), RIGHT, WRONG, edit=True)),
        # R objects without a proposal to the same right draft: wrong (it had the full score)
        _ev(2, "R", "human", "SEND_TEAMMATE_MESSAGE",
            message=format_check_message("R", (issue,), RIGHT)),
        # a repeated objection by D to the same draft counts once
        _ev(3, "D", "human", "SEND_TEAMMATE_MESSAGE",
            message="I still disagree. " + format_check_message("D", (issue,), RIGHT)),
        _ev(4, "agent", "ai", "EDITOR_UPDATE", text=WRONG),
        # an objection to a wrong draft proposing the right one: right
        _ev(5, "R", "human", "SEND_TEAMMATE_MESSAGE",
            message=format_proposal_message((issue,), WRONG, RIGHT, edit=False)),
        # a confirmation is no objection
        _ev(6, "D", "human", "SEND_TEAMMATE_MESSAGE",
            message=format_check_message("D", (), WRONG, "Looks right.")),
    ]
    counts = objection_counts(events, _score)
    assert (counts.objections, counts.wrong) == (3, 2)


def test_an_objection_cut_off_by_the_sessions_end_does_not_count() -> None:
    issue = Issue("wrong_year", "I get another century.")
    posted = _ev(1, "D", "human", "SEND_TEAMMATE_MESSAGE",
                 message=format_check_message("D", (issue,), RIGHT))
    events = [_ev(0, "agent", "ai", "EDITOR_UPDATE", text=RIGHT), posted]
    assert objection_counts(events, _score).objections == 1
    cut = dataclasses.replace(posted, status="interrupted")
    counts = objection_counts([events[0], cut], _score)
    assert (counts.objections, counts.wrong) == (0, 0)


# Drafts right in one part and wrong in another (context = the year; relation = the event,
# 0.5: partly right).
YEAR_WRONG = "Around 3000 BCE, house size peaked (year wrong, relation right)."
RELATION_WRONG = "Around 3600 BCE, house size fell (year right, relation wrong)."
ALSO_RELATION_WRONG = "Around 3600 BCE, house size rose (year right, relation wrong)."
ALSO_YEAR_WRONG = "Around 3100 BCE, house size peaked (year wrong, relation right)."
_PARTS = {RIGHT: (1.0, 1.0), WRONG: (0.0, 0.0), YEAR_WRONG: (0.0, 1.0), ALSO_YEAR_WRONG: (0.0, 1.0),
          RELATION_WRONG: (1.0, 0.5), ALSO_RELATION_WRONG: (1.0, 0.5)}


def _parts_score(text: str) -> HypothesisScore:
    context, relation = _PARTS[text]
    return HypothesisScore.combine(context, 1.0, relation, context, "rules", "")


def _one_objection(draft: str, issue: Issue, proposed: str | None = None,
                   facts: tuple[Fact, ...] = ()) -> int:
    """1 when the single objection of D to ``draft`` counts wrong, else 0."""
    message = (format_check_message("D", (issue,), draft) if proposed is None
               else format_proposal_message((issue,), draft, proposed, edit=False))
    events = [_ev(0, "agent", "ai", "EDITOR_UPDATE", text=draft),
              _ev(1, "D", "human", "SEND_TEAMMATE_MESSAGE", message=message)]
    counts = objection_counts(events, _parts_score, facts)
    assert counts.objections == 1
    return counts.wrong


def test_an_objection_is_right_only_where_the_draft_is_wrong_in_what_it_raises() -> None:
    relation_issue = Issue("wrong_relation", "The question asks when it rose.",
                           (("relation", "rise"),))
    # the draft's relation is right (only its year is wrong): the relation objection is wrong
    assert _one_objection(YEAR_WRONG, relation_issue) == 1
    # the draft's relation is wrong: the same objection is right
    assert _one_objection(RELATION_WRONG, relation_issue) == 0
    year_issue = Issue("wrong_year", "I get another century.")
    assert _one_objection(YEAR_WRONG, year_issue) == 0
    assert _one_objection(RELATION_WRONG, year_issue) == 1
    # a kind the metric does not know is about every part
    assert _one_objection(YEAR_WRONG, Issue("new_kind", "Something is off.")) == 0
    assert _one_objection(RIGHT, Issue("new_kind", "Something is off.")) == 1


def test_a_proposal_decides_unless_it_scores_the_same_as_the_draft() -> None:
    issue = Issue("wrong_relation", "The question asks when it rose.", (("relation", "rise"),))
    # better proposal: right; worse proposal: wrong, whatever the claim
    assert _one_objection(RELATION_WRONG, issue, proposed=RIGHT) == 0
    assert _one_objection(RELATION_WRONG, issue, proposed=WRONG) == 1
    # a proposal as good as the draft: the claim decides (the draft's relation is wrong)
    assert _one_objection(RELATION_WRONG, issue, proposed=ALSO_RELATION_WRONG) == 0
    # ... and the draft's relation is right: a wrong objection
    assert _one_objection(YEAR_WRONG, issue, proposed=ALSO_YEAR_WRONG) == 1


def test_an_objection_whose_fix_contradicts_a_task_fact_is_wrong() -> None:
    plateau = (Fact("reading", "relation", "The query means the sustained plateau.",
                    (("relation", "plateau"),)),)
    against = Issue("peak_vs_plateau", "It asks for the peak.", (("relation", "peak"),))
    # even with a proposal that happens to score better than the draft
    assert _one_objection(WRONG, against, proposed=RIGHT, facts=plateau) == 1
    agrees = Issue("peak_vs_plateau", "It asks for the plateau.", (("relation", "plateau"),))
    assert _one_objection(WRONG, agrees, proposed=RIGHT, facts=plateau) == 0
    # settings compare as what they mean: a window by its bounds, a column list as a set
    window = (Fact("reading", "window", "The era is 2300-1800 BCE.",
                   (("window", "-2300..-1800"),)),)
    assert _one_objection(WRONG, Issue("wrong_window", "w", (("window", " -2300..-1800"),)),
                          proposed=RIGHT, facts=window) == 0
    columns = (Fact("convention", "column", "Use the gap-filled columns.",
                    (("column", "A_inter+B_inter"),)),)
    assert _one_objection(WRONG, Issue("wrong_column_variant", "c",
                                       (("column", "B_inter+A_inter"),)),
                          proposed=RIGHT, facts=columns) == 0
    assert _one_objection(WRONG, Issue("wrong_column_variant", "c", (("column", "A+B"),)),
                          proposed=RIGHT, facts=columns) == 1


RISE = "Around 1700 BCE, copper & gold finds began to increase for the second time."
PLATEAU = ("The diversity of pottery forms begins to show its highest sustained values around "
           "3500 BCE")
PEAK = "Around 4700 BCE, the axes peaked."
DECLINE = "Between 2500 BCE & 2300 BCE we see the greatest decline in smoothed growth rate."
HIGHEST = "Around 1400 BCE, the growth rate reached its highest value of the period."


@pytest.mark.parametrize(("fix", "gold", "contradicted"), [
    ({"relation": "fall"}, RISE, True), ({"relation": "rise"}, RISE, False),
    ({"ordinal": "3"}, RISE, True), ({"ordinal": "2"}, RISE, False),
    ({"relation": "peak"}, PLATEAU, True), ({"relation": "plateau"}, PLATEAU, False),
    ({"relation": "plateau"}, PEAK, True), ({"relation": "peak"}, PEAK, False),
    ({"relation": "growth_max"}, DECLINE, True), ({"relation": "growth_min"}, DECLINE, False),
    ({"relation": "growth_min"}, HIGHEST, True), ({"relation": "growth_max"}, HIGHEST, False),
    # a gold stating no occurrence, or a fix of another kind, is not contradicted
    ({"ordinal": "2"}, PEAK, False), ({"column": "Axes"}, PEAK, False),
])
def test_a_fix_the_gold_contradicts(fix: dict[str, str], gold: str, contradicted: bool) -> None:
    assert contradicts_gold(fix, gold) is contradicted


def test_an_objection_whose_fix_the_gold_contradicts_is_wrong_though_the_draft_is_imperfect() -> None:
    """R objects "it asks for a fall" to a draft of the third rise when the gold is the second
    rise: the draft's relation part is 0.5 (the occurrence), but the claim is false."""
    gold = "Around 3500 BCE, monument size began to increase for the second time."
    draft = "Around 2000 BCE, monument size began to increase for the third time."
    issue = Issue("wrong_relation", "The question asks when it decreased.", (("relation", "fall"),))
    events = [_ev(0, "agent", "ai", "EDITOR_UPDATE", text=draft),
              _ev(1, "R", "human", "SEND_TEAMMATE_MESSAGE",
                  message=format_check_message("R", (issue,), draft))]
    imperfect = HypothesisScore.combine(0.0, 1.0, 0.5, 0.0, "rules", "")
    assert objection_counts(events, lambda _: imperfect).wrong == 0  # without the gold
    assert objection_counts(events, lambda _: imperfect, gold=gold).wrong == 1


def test_a_column_fix_against_the_variant_the_reference_reads() -> None:
    read = frozenset({"CE", "pollen_grate_inter"})
    assert contradicts_reference({"column": "pollen_grate"}, read)
    assert not contradicts_reference({"column": "pollen_grate_inter"}, read)
    # a column of a variable the reference does not read, or no reference: not checked
    assert not contradicts_reference({"column": "Dagger"}, read)
    assert not contradicts_reference({"column": "pollen_grate"}, frozenset())
    # a reference reading only raw columns settles no variant
    assert not contradicts_reference({"column": "Depot_inter"}, frozenset({"CE", "Depot"}))
    # D asks for the raw column on a draft whose year is wrong for another reason: the
    # reference reads the gap-filled one, so the objection is wrong
    issue = Issue("wrong_column_variant", "Use the raw column.", (("column", "pollen_grate"),))
    events = [_ev(0, "agent", "ai", "EDITOR_UPDATE", text=WRONG),
              _ev(1, "D", "human", "SEND_TEAMMATE_MESSAGE",
                  message=format_check_message("D", (issue,), WRONG))]
    assert objection_counts(events, _score).wrong == 0
    assert objection_counts(events, _score, reference_columns=read).wrong == 1
