"""Expertise gaps as data: every participant's per-area error rate, read from a config."""

from __future__ import annotations

import pytest

from collabsim.participants.expertise import area_rates, format_rates


def _by(rates: tuple, who: str, area: str):  # noqa: ANN202
    return next(r for r in rates if r.participant == who and r.area == area)


def test_default_rates_come_from_the_profiles_and_the_agents_mistakes() -> None:
    rates = area_rates({})
    assert {(r.participant, r.area) for r in rates} == {
        (p, a) for p in ("agent", "D", "R") for a in ("computation", "semantics")}
    # D's area is the computation, R's the semantics: in-area 0.1, outside 0.3
    assert _by(rates, "D", "computation").fact_error == pytest.approx(0.1)
    assert _by(rates, "D", "semantics").fact_error == pytest.approx(0.3)
    assert _by(rates, "R", "semantics").per_kind == pytest.approx(0.1)
    assert _by(rates, "R", "computation").setting == "team.profiles.R.params.error_outside"
    # the agent: wrong_column_variant 0.15 + wrong_window 0.1; wrong_ordinal 0.15 +
    # peak_vs_plateau 0.15 + misread_query 0
    agent = _by(rates, "agent", "computation")
    assert agent.per_kind == pytest.approx(0.125) and agent.fact_error is None
    assert agent.any_mistake == pytest.approx(1 - 0.85 * 0.9)
    assert _by(rates, "agent", "semantics").any_mistake == pytest.approx(1 - 0.85 * 0.85)
    assert "R           semantics" in format_rates(rates)


def test_overrides_move_the_reported_rates() -> None:
    cfg = {"team": {"profiles": {"R": {"params": {"error_in_area": 0.5}}}},
           "policy": {"agent": {"mistakes": {"wrong_ordinal": 0.4, "peak_vs_plateau": 0.2}},
                      "collaborator": {"error_outside": 0.2}}}
    rates = area_rates(cfg)
    assert _by(rates, "R", "semantics").fact_error == pytest.approx(0.5)
    assert _by(rates, "D", "semantics").fact_error == pytest.approx(0.2)  # policy.collaborator
    assert _by(rates, "D", "computation").fact_error == pytest.approx(0.1)
    assert _by(rates, "agent", "semantics").per_kind == pytest.approx(0.2)


def test_a_malformed_rate_is_named() -> None:
    with pytest.raises(ValueError, match="error_in_area"):
        area_rates({"team": {"profiles": {"D": {"params": {"error_in_area": 2.0}}}}})
