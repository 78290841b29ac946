"""Initiative classification and normalised initiative entropy."""

from __future__ import annotations

import math

import pytest

from collabsim.core.events import TraceEvent
from collabsim.metrics.initiative import initiative_counts, initiative_entropy, is_initiative


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
