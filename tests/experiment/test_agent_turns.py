"""The scripted agent's finish_by_turn follows the session's turn limit (run.max_turns, or a gym
env's max_turns) less its finish_margin_turns, whose one value is the scripted agent's
defaults' (collabsim.participants.scripted_params.AGENT_DEFAULTS)."""

from __future__ import annotations

from collabsim.envs.collaborator import CollaboratorEnv
from collabsim.experiment.agent_turns import agent_params, default_finish_margin


def test_the_margin_default_is_the_one_the_run_config_composes():
    from hydra import compose, initialize_config_dir

    from collabsim.cli.run_app import CONFIG_DIR

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        for policy in ("scripted", "llm"):
            cfg = compose("config", overrides=[f"policy={policy}"])
            assert cfg.policy.agent.finish_margin_turns == default_finish_margin() == 10


def test_finish_by_turn_is_the_turn_limit_less_the_margin_in_the_margins_place():
    params = {"deference": 0.5, "finish_margin_turns": 10, "patience_seconds": 120}
    assert agent_params(params, 40) == {"deference": 0.5, "finish_by_turn": 30,
                                        "patience_seconds": 120}
    assert list(agent_params(params, 40)) == ["deference", "finish_by_turn", "patience_seconds"]
    assert agent_params(params, 20)["finish_by_turn"] == 10
    assert agent_params({"finish_margin_turns": 50}, 20)["finish_by_turn"] == 0
    assert agent_params(None, 30) == {"finish_by_turn": 20}  # the config's margin
    # a direct use of the policies may still name the turn itself
    assert agent_params({"finish_by_turn": 12, "finish_margin_turns": 3}, 40) == {
        "finish_by_turn": 12}
    assert params == {"deference": 0.5, "finish_margin_turns": 10, "patience_seconds": 120}


def test_the_collaborator_envs_scripted_agent_finishes_by_its_turn_limit_less_the_margin():
    """The gym env's opponent agent waited for its teammates up to decision 45 whatever the
    env's max_turns (30 by default): it never stopped waiting before the turn limit."""
    for max_turns, expected in ((30, 20), (16, 6)):
        env = CollaboratorEnv(role="D", max_turns=max_turns, task_ids=["gen_000/0/0"])
        try:
            assert env._policy("agent", seed=0)._finish_by_turn == expected
        finally:
            env.close()
    env = CollaboratorEnv(role="D", max_turns=30, task_ids=["gen_000/0/0"],
                          opponent_params={"agent": {"finish_by_turn": 25}})
    try:
        assert env._policy("agent", seed=0)._finish_by_turn == 25
    finally:
        env.close()
