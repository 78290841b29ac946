"""Objection correctness: an objection is wrong when the objected draft was at least as good."""

from __future__ import annotations

import dataclasses

from collabsim.core.events import TraceEvent
from collabsim.metrics.objections import objection_counts
from collabsim.participants.claims import Issue, format_check_message, format_proposal_message

RIGHT = "Around 3600 BCE, house size peaked."
WRONG = "Around 3000 BCE, house size peaked."


def _ev(seq: int, actor: str, kind: str, action: str, **args: str) -> TraceEvent:
    return TraceEvent(seq=seq, t_start=float(seq), t_end=float(seq) + 1, actor=actor,
                      actor_type=kind, action_type=action, args=args)  # type: ignore[arg-type]


def _score(text: str) -> float:
    return 1.0 if text == RIGHT else 0.0


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
