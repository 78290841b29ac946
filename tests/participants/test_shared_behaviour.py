"""The calibrated behaviour block lives in one file, profiles/behaviour.yaml, that D and R name."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from collabsim.participants.behaviour import BehaviourConfigError, load_behaviour
from collabsim.participants.team import (
    TeamConfigError,
    load_profile,
    packaged_profile_keys,
    team_from_dict,
)

PROFILES = resources.files("collabsim.participants.profiles")


def test_d_and_r_read_the_one_shared_behaviour_file():
    shared = yaml.safe_load(PROFILES.joinpath("behaviour.yaml").read_text("utf-8"))["behaviour"]
    assert packaged_profile_keys() == ("D", "R")  # the shared file is not a profile
    for key in ("D", "R"):
        assert yaml.safe_load(PROFILES.joinpath(f"{key}.yaml").read_text("utf-8"))[
            "behaviour"] == "behaviour.yaml"
        assert load_profile(key).params["behaviour"] == shared
    # and a team's collaborators carry it, a per-profile override updating it key by key
    team = team_from_dict({"collaborators": [
        "D", {"key": "R", "params": {"behaviour": {"lead_in": {"probability": {"value": 0.5}}}}}]})
    assert team.profile("D").params["behaviour"] == shared
    lead_in = team.profile("R").params["behaviour"]["lead_in"]
    assert lead_in["probability"]["value"] == 0.5
    assert lead_in["actions_mean"] == shared["lead_in"]["actions_mean"]


def test_a_profile_file_names_its_behaviour_file_relative_to_its_folder(tmp_path):
    block = yaml.safe_load(PROFILES.joinpath("behaviour.yaml").read_text("utf-8"))
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(block))
    profile = tmp_path / "P.yaml"
    profile.write_text("key: P\nguidance: check\nbehaviour: mine.yaml\n")
    assert load_behaviour(profile) == load_behaviour(PROFILES.joinpath("behaviour.yaml"))
    profile.write_text("key: P\nguidance: check\nbehaviour: missing.yaml\n")
    with pytest.raises(BehaviourConfigError, match="missing.yaml"):
        load_behaviour(profile)


def test_a_behaviour_file_named_in_a_config_mapping_is_one_line_error():
    with pytest.raises(TeamConfigError, match=r"behaviour.*named relative to a profile file"):
        team_from_dict({"collaborators": [
            {"key": "Q", "guidance": "check", "behaviour": "behaviour.yaml"}]})
