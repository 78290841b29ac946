"""The offline provider's scripted policies: instances cached per session and member (a
cache only: any instance decides as any other, tests/participants/test_pure_decisions.py)."""

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


def test_same_llm_session_twice_in_one_process_decides_the_same(tmp_path) -> None:
    """The benchmark's serial and concurrent passes (and a gym env reset to the same seed)
    run a session again in the same process: the second run must not continue the first
    run's scripted instance (issue 23, item 17: ``identical results: False``)."""
    import asyncio

    from helpers.executors import InProcessExecutor

    from collabsim.llm import LLMClient, LLMSettings
    from collabsim.participants.llm_policy import build_llm_participants
    from collabsim.participants.team import team_from_dict
    from collabsim.session.config import SessionConfig
    from collabsim.session.engine import run_session
    from collabsim.session.structures import builtin_structure
    from collabsim.tasks.discoverybench import load_tasks
    from collabsim.tasks.generator import generate_suite

    task = load_tasks(generate_suite(tmp_path / "suite", n_tasks=1, seed=0)).tasks[0]
    team = team_from_dict("D")
    cfg = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0,
                        max_turns=12)
    settings = LLMSettings(model="collabsim/scripted")

    async def once() -> tuple[object, ...]:
        client = LLMClient().for_session()
        participants = build_llm_participants(
            team, {"agent": settings, "collaborator": settings}, client, cfg.seed)
        result = await run_session(cfg, participants, None, executor_factory=InProcessExecutor)
        return (result.submitted_hypothesis, result.turns, result.n_events, result.status,
                result.counts)

    first = asyncio.run(once())
    assert asyncio.run(once()) == first
    assert asyncio.run(once()) == first
