"""The offline provider's scripted policies: one instance per session, never shared."""

from __future__ import annotations

from dataclasses import replace

from helpers.observations import sample_observation

from collabsim.participants.scripted_bridge import scripted_policy_for

POLICY = {"kind": "scripted", "seed": 0, "params": {}}


def test_one_instance_per_session_and_member() -> None:
    obs = sample_observation()
    same = scripted_policy_for(obs, POLICY)
    assert scripted_policy_for(replace(obs, turn=3, time=50.0), POLICY) is same
    other_task = replace(obs, task=replace(obs.task, task_id="gen_001/0/0"))
    other_structure = replace(obs, structure="default", teammates=("D",))
    other_team = replace(obs, structure="default", teammates=("R",))
    distinct = [scripted_policy_for(o, POLICY) for o in (other_task, other_structure,
                                                          other_team)]
    assert len({id(p) for p in [same, *distinct]}) == 4
    assert scripted_policy_for(obs, {**POLICY, "seed": 1}) is not same
