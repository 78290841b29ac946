"""Team specs and packaged profiles."""

from __future__ import annotations

import pytest

from collabsim.participants.team import (
    TeamConfigError,
    TeamSpec,
    load_profile,
    packaged_profile_keys,
    team_from_dict,
    team_to_dict,
)


def test_packaged_profiles_cover_the_design_focus() -> None:
    assert set(packaged_profile_keys()) >= {"D", "R"}
    d, r = load_profile("D"), load_profile("R")
    assert d.key == "D" and d.title == "data analysis"
    for word in ("variable mapping", "filters", "windows", "extremes", "n-th", "validating"):
        assert word in d.guidance.lower()
    for word in (
        "first vs second",
        "peak vs highest sustained",
        "increase",
        "bounded",
        "ambiguity",
        "evidential support",
        "caveats",
    ):
        assert word in r.guidance.lower()
    assert d.params and r.params


@pytest.mark.parametrize(
    ("data", "members", "label"),
    [
        (None, ("agent",), "single"),
        ("solo", ("agent",), "single"),
        ("single", ("agent",), "single"),
        ("D", ("agent", "D"), "D"),
        ("DR", ("agent", "D", "R"), "DR"),
        (["R"], ("agent", "R"), "R"),
        ({"collaborators": ["D", "R"]}, ("agent", "D", "R"), "DR"),
    ],
)
def test_team_from_dict_forms(data, members, label) -> None:
    team = team_from_dict(data)
    assert team.members == members and team.label == label
    assert team.actor_type("agent") == "ai"
    assert all(team.actor_type(m) == "human" for m in members[1:])
    assert team_from_dict(team_to_dict(team)) == team


def test_profile_overrides_and_custom_profiles() -> None:
    team = team_from_dict(
        {
            "collaborators": [
                {"key": "D", "params": {"recompute_claims": False}},
                {"key": "S", "title": "statistician", "guidance": "Check significance."},
            ]
        }
    )
    d, s = team.collaborators
    assert d.params["recompute_claims"] is False and d.params["review_code"] is True
    assert d.guidance == load_profile("D").guidance
    assert (s.key, s.title, s.guidance) == ("S", "statistician", "Check significance.")
    assert team.profile("agent") is None and team.role("S") == "collaborator"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["D", "R", "D"], "at most 2"),
        (["D", "D"], "duplicate"),
        ([{"key": "S"}], "guidance"),
        (["X"], "no packaged profile"),
        ({"collaborators": "D"}, "must be a list"),
        ([{"key": "env", "guidance": "x"}], "invalid collaborator key"),
    ],
)
def test_invalid_teams_are_explained(data, message: str) -> None:
    with pytest.raises(TeamConfigError, match=message):
        team_from_dict(data)


def test_unknown_member_raises() -> None:
    with pytest.raises(KeyError):
        TeamSpec().role("D")
