"""The scripted policies' parameters are typed and read once: the agent's defaults are the
policy config's values, an unknown key is refused (so no parameter goes unread), and what a
collaborator checks is profile data, not its name."""

from __future__ import annotations

import pytest

from collabsim.core.records import Profile
from collabsim.experiment.agent_turns import agent_params
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.scripted_params import (
    AGENT_DEFAULTS,
    AgentParams,
    CollaboratorParams,
    ScriptedParamsError,
)
from collabsim.participants.team import TeamConfigError, load_profile, team_from_dict
from collabsim.session.config import MAX_TURNS


def _policy_config() -> dict:
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from collabsim.cli.run_app import CONFIG_DIR

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        return OmegaConf.to_container(compose("config").policy)


def test_the_agents_defaults_are_the_policy_configs_values() -> None:
    config = _policy_config()["agent"]
    assert config == AGENT_DEFAULTS  # the run config composes the one home
    # finish_by_turn is derived from the run's turn limit where the agent is built
    assert AgentParams.from_mapping(agent_params(config, MAX_TURNS)) == AgentParams()
    assert AgentParams().finish_by_turn == MAX_TURNS - config["finish_margin_turns"]


def test_agent_params_are_frozen_and_typed() -> None:
    params = AgentParams.from_mapping({"finish_by_turn": "12", "deference": 1,
                                       "gates": {"FINISH": "D"}})
    assert params.finish_by_turn == 12 and params.deference == 1.0
    assert params.gates == (("FINISH", "D"),)
    with pytest.raises(AttributeError):
        params.deference = 0.0  # type: ignore[misc]
    assert ScriptedAgent(params=params).params is params


@pytest.mark.parametrize("bad, named", [
    ({"defference": 0.5}, "defference"),
    ({"finish_by_turn": "soon"}, "policy.agent"),
    ({"mistakes": {"typo": 0.1}}, "typo"),
])
def test_a_bad_agent_parameter_is_refused_by_name(bad: dict, named: str) -> None:
    with pytest.raises(ScriptedParamsError, match=named):
        ScriptedAgent(params=bad)


def test_an_unknown_profile_parameter_is_refused_by_name() -> None:
    """Replaces the test that ran sessions to see every profile parameter looked up: a
    parameter no decision reads cannot be written at all."""
    profile = load_profile("D")
    for params in (profile.params, load_profile("R").params):
        CollaboratorParams.from_mapping(params)  # the packaged profiles are all known keys
    typo = Profile("D", "data analysis", "check numbers",
                   {**profile.params, "recompute_claim": True})
    with pytest.raises(ScriptedParamsError, match="recompute_claim"):
        ScriptedCollaborator(typo)
    with pytest.raises(ScriptedParamsError, match="asertiveness"):
        ScriptedCollaborator(profile, params={"asertiveness": 0.9})
    with pytest.raises(TeamConfigError, match="asertiveness"):
        team_from_dict({"collaborators": [{"key": "D", "params": {"asertiveness": 0.9}}]})


def test_what_a_collaborator_checks_is_profile_data_not_its_name() -> None:
    bare_d = ScriptedCollaborator(Profile("D", "data analysis", "check numbers", {}))
    assert not bare_d.numbers and not bare_d.wording and not bare_d.params.review_code
    numbers = ScriptedCollaborator(Profile("X", "x", "check", {"recompute_claims": True}))
    assert numbers.numbers and numbers.params.review_code  # review_code follows by default
    wording = ScriptedCollaborator(Profile("Y", "y", "check", {"check_wording": True}))
    assert wording.wording and not wording.numbers
