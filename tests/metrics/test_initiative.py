"""Initiative classification and normalised initiative entropy."""

from __future__ import annotations

import math

import pytest

from collabsim.core.events import TraceEvent, build_phase_seqs
from collabsim.metrics.initiative import (
    initiative_counts,
    initiative_entropy,
    initiative_events,
    is_initiative,
)


def msg(seq: int, actor: str, text: str, kind: str = "human") -> TraceEvent:
    return TraceEvent(seq, float(seq), float(seq), actor, kind, "SEND_TEAMMATE_MESSAGE",  # type: ignore[arg-type]
                      {"message": text})


def test_uniform_shares_give_one() -> None:
    assert initiative_entropy({"agent": 3, "D": 3, "R": 3}, ["agent", "D", "R"]) == pytest.approx(1.0)
    assert initiative_entropy({"agent": 2, "D": 2}, ["agent", "D"]) == pytest.approx(1.0)


def test_one_member_holding_all_initiative_gives_zero() -> None:
    assert initiative_entropy({"agent": 5, "D": 0, "R": 0}, ["agent", "D", "R"]) == 0.0


def test_member_without_initiative_events_is_not_nan() -> None:
    value = initiative_entropy({"agent": 2, "D": 2}, ["agent", "D", "R"])  # R missing
    assert not math.isnan(value)
    assert value == pytest.approx(math.log(2) / math.log(3))


def test_env_counts_are_ignored() -> None:
    assert initiative_entropy({"agent": 1, "D": 1, "env": 50}, ["agent", "D"]) == pytest.approx(1.0)


def test_single_member_team_is_undefined() -> None:
    assert math.isnan(initiative_entropy({"agent": 7}, ["agent"]))


def test_nobody_took_initiative_is_undefined() -> None:
    assert math.isnan(initiative_entropy({}, ["agent", "D"]))


def test_negative_count_is_rejected() -> None:
    with pytest.raises(ValueError):
        initiative_entropy({"agent": -1, "D": 1}, ["agent", "D"])


def test_classifier_rules() -> None:
    ask = msg(1, "D", "Can you compute the first rise of Dagger_inter?")
    assert is_initiative(ask, [])
    ack = msg(2, "agent", "Thanks, sounds good!", "ai")
    assert not is_initiative(ack, [ask])
    info = msg(3, "agent", "Dagger first rises at -2300.", "ai")
    assert is_initiative(info, [ask])
    echo = msg(4, "R", "Dagger first rises at -2300!")
    assert not is_initiative(echo, [ask, info])


def test_counts_include_silent_members_and_skip_env() -> None:
    events = [
        TraceEvent(0, 0, 0, "env", "env", "SESSION_START"),
        msg(1, "D", "Please check the Sickle column for the first decrease."),
        TraceEvent(2, 2, 3, "agent", "ai", "EXECUTE_CODE", {"code": "print(1)"}),
        TraceEvent(3, 3, 4, "agent", "ai", "EXECUTE_CODE", {"code": "print(1)"}),  # re-run
        msg(4, "agent", "ok", "ai"),
    ]
    counts = initiative_counts(events, ["agent", "D", "R"])
    assert counts == {"agent": 1, "D": 1, "R": 0}
    assert initiative_entropy(counts, ["agent", "D", "R"]) == pytest.approx(math.log(2) / math.log(3))


def test_entropy_is_bounded_for_any_counts() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    @given(st.lists(st.integers(min_value=0, max_value=50), min_size=2, max_size=5))
    def check(values: list[int]) -> None:
        members = [f"m{i}" for i in range(len(values))]
        h = initiative_entropy(dict(zip(members, values, strict=True)), members)
        if sum(values) == 0:
            assert math.isnan(h)
        else:
            assert 0.0 <= h <= 1.0
            assert (h == 0.0) == (sum(v > 0 for v in values) == 1)
            if len(set(values)) == 1:  # every member equally active: maximal entropy
                assert h == pytest.approx(1.0)

    check()


def _act(seq: int, actor: str, kind: str, **args: str) -> TraceEvent:
    actor_type = "env" if actor == "env" else "ai" if actor == "agent" else "human"
    return TraceEvent(seq, float(seq), float(seq), actor, actor_type, kind, args)  # type: ignore[arg-type]


def _scaffolded_trace() -> list[TraceEvent]:
    """A build phase (memory entries, one message, an agreement), then the work phase."""
    return [
        _act(0, "env", "SESSION_START"),
        _act(1, "env", "PHASE_START", phase="build"),
        _act(2, "agent", "MEMORY_ADD", section="plan", text="compute the first decrease"),  # I
        _act(3, "D", "MEMORY_ADD", section="criteria", text="gap-filled series only"),  # I
        _act(4, "D", "MEMORY_ADD", section="gates", text="FINISH: D"),  # I
        msg(5, "agent", "Let's record the evidence criteria first.", "ai"),  # I (directive)
        _act(6, "agent", "MEMORY_AGREE"),  # never initiative
        _act(7, "env", "PHASE_START", phase="work"),
        msg(8, "D", "Please check the Sickle column for the first decrease."),  # I
        _act(9, "agent", "EXECUTE_CODE", code="print(1)"),  # I (new code)
        _act(10, "agent", "EXECUTE_CODE", code="print(1)"),  # a re-run: not initiative
        msg(11, "agent", "ok", "ai"),  # an acknowledgement: not initiative
        _act(12, "agent", "EDITOR_UPDATE", text="Sickle first decreases around 2000 BCE."),  # I
        msg(13, "agent", "Should we use the second decrease instead?", "ai"),  # I (question)
    ]


def _h2(p: float) -> float:
    """Normalised entropy of two members with shares p and 1 - p (|U| = 2)."""
    return -(p * math.log(p) + (1 - p) * math.log(1 - p)) / math.log(2)


def test_work_phase_leaves_the_build_phase_out_hand_computed() -> None:
    events, team = _scaffolded_trace(), ["agent", "D"]
    # every action, all events: agent 2, 5, 9, 12, 13; D 3, 4, 8 -> shares 5/8, 3/8
    every = initiative_counts(events, team)
    assert every == {"agent": 5, "D": 3}
    assert initiative_entropy(every, team) == pytest.approx(_h2(5 / 8)) == pytest.approx(0.954434)
    # every action, work phase: agent 9, 12, 13; D 8 -> 3/4, 1/4
    work = initiative_counts(events, team, phase="work")
    assert work == {"agent": 3, "D": 1}
    assert initiative_entropy(work, team) == pytest.approx(0.811278)
    # the study's messages, all events: agent 5, 13; D 8 -> 2/3, 1/3
    said = initiative_counts(events, team, counted="messages")
    assert said == {"agent": 2, "D": 1}
    assert initiative_entropy(said, team) == pytest.approx(0.918296)
    # messages in the work phase: agent 13, D 8 -> equal shares
    said_work = initiative_counts(events, team, counted="messages", phase="work")
    assert said_work == {"agent": 1, "D": 1}
    assert initiative_entropy(said_work, team) == pytest.approx(1.0)


def test_without_a_build_phase_the_work_phase_is_every_event() -> None:
    events, team = _scaffolded_trace(), ["agent", "D"]
    # the same work without the build phase: once with a PHASE_START(work) at the start (as
    # the engine writes for every structure without memory), once with no phase event at all
    opened = [events[0], *events[7:]]
    bare = [events[0], *events[8:]]
    for trace in (opened, bare):
        for counted in ("actions", "messages"):
            assert (initiative_counts(trace, team, counted=counted, phase="work")
                    == initiative_counts(trace, team, counted=counted, phase="all"))


def test_only_messages_are_candidates_under_the_study_measure() -> None:
    events = _scaffolded_trace()
    labelled = initiative_events(events, ["agent", "D"], counted="messages")
    assert [e.seq for e in labelled] == [5, 8, 13]
    assert all(e.is_message for e in labelled)
    assert [e.seq for e in initiative_events(events, ["agent", "D"])] == [2, 3, 4, 5, 8, 9, 12, 13]


def test_an_unknown_event_class_or_phase_is_refused() -> None:
    with pytest.raises(ValueError, match="actions, messages"):
        initiative_counts(_scaffolded_trace(), ["agent", "D"], counted="acts")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="actions, messages"):  # even with nothing to label
        initiative_events([], counted="all")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="phase"):
        initiative_counts(_scaffolded_trace(), ["agent", "D"], phase="build")  # type: ignore[arg-type]


def test_build_phase_events_are_those_between_the_phase_starts() -> None:
    events = _scaffolded_trace()
    assert build_phase_seqs(events) == frozenset(range(1, 7))
    assert build_phase_seqs(events[7:]) == frozenset()
