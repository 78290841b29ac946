"""Virtual clock: seeded lognormal durations and earliest-first scheduling."""

from __future__ import annotations

import numpy as np
import pytest

from collabsim.session.clock import ClockSpec, Scheduler, VirtualClock


def test_durations_are_seeded_per_participant() -> None:
    names = ("agent", "D")
    a = VirtualClock(ClockSpec(), 1, names)
    b = VirtualClock(ClockSpec(), 1, names)
    c = VirtualClock(ClockSpec(), 2, names)
    draws_a = [a.duration("agent", "ai", "EXECUTE_CODE") for _ in range(5)]
    # interleaving another participant's draws does not change the agent's
    draws_b = []
    for _ in range(5):
        b.duration("D", "human", "SEND_TEAMMATE_MESSAGE")
        draws_b.append(b.duration("agent", "ai", "EXECUTE_CODE"))
    assert draws_a == draws_b
    assert draws_a != [c.duration("agent", "ai", "EXECUTE_CODE") for _ in range(5)]


def test_duration_means_follow_the_spec() -> None:
    clock = VirtualClock(ClockSpec(), 0, ("agent", "D"))
    ai_code = np.mean([clock.duration("agent", "ai", "EXECUTE_CODE") for _ in range(4000)])
    human_code = np.mean([clock.duration("D", "human", "EXECUTE_CODE") for _ in range(4000)])
    assert ai_code == pytest.approx(20.0, rel=0.05)
    assert human_code == pytest.approx(90.0, rel=0.05)
    fixed = VirtualClock(ClockSpec(sigma=0.0, human={"EXECUTE_CODE": 7.0}), 0, ("D",))
    assert fixed.duration("D", "human", "EXECUTE_CODE") == 7.0
    assert fixed.duration("D", "human", "UNKNOWN") == ClockSpec().default_human


def test_clock_spec_rejects_bad_values() -> None:
    with pytest.raises(ValueError):
        ClockSpec(ai={"EXECUTE_CODE": 0.0})
    with pytest.raises(ValueError):
        ClockSpec(wait_seconds=0.0)


def test_scheduler_picks_earliest_with_fixed_ties() -> None:
    s = Scheduler(("agent", "D", "R"))
    assert s.peek() == ("agent", 0.0)
    s.set_next("agent", 5.0)
    assert s.peek() == ("D", 0.0)
    s.set_next("D", 5.0)
    s.set_next("R", 5.0)
    assert s.peek() == ("agent", 5.0)
    s.retire("agent")
    assert s.peek() == ("D", 5.0)
    s.retire("D")
    s.retire("R")
    assert s.peek() is None
