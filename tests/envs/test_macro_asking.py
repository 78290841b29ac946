"""The gym seats collaborate (issue 20): ``knowledge=`` reaches the sessions, the agent seat
asks the teammate who holds a fact (``ask_reading`` / ``ask_convention``) and its variant 0
applies the answer, the collaborator seat answers a question from its own facts (``answer``),
and the features say what was asked and answered."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import collabsim.envs
from collabsim.core.knowledge import BY_PROFILE
from collabsim.core.tags import parse_asks, parse_facts
from collabsim.envs.macro import AGENT_MACROS, COLLABORATOR_MACROS, FEATURES, MacroActions
from collabsim.envs.session_env import select_tasks
from collabsim.experiments.macro_policies import AskFirst, IgnoreTeammates
from collabsim.participants.reading import read_brief

gym.register_envs(collabsim.envs)
A = {name: i for i, name in enumerate(AGENT_MACROS)}
C = {name: i for i, name in enumerate(COLLABORATOR_MACROS)}
F = {name: i for i, name in enumerate(FEATURES)}
HELD_OUT = select_tasks("generated", "test")


def _decides(task) -> bool:
    """Whether the task's fact changes the plan of a reader without it (the agent's under
    by_profile): on some tasks the default reading is right by chance."""
    _, plan = read_brief(task.brief("agent", BY_PROFILE))
    return plan.with_fix(task.facts[0].fix) != plan


# held-out tasks whose decisive fact is a reading (held by R) / a data convention (held by D)
# that the agent's own reading gets wrong
READING = next(t for t in HELD_OUT if t.facts[0].kind == "reading" and _decides(t))
CONVENTION = next(t for t in HELD_OUT if t.facts[0].kind == "convention" and _decides(t))


def _unwrap(env: gym.Env) -> MacroActions:
    while not isinstance(env, MacroActions):
        env = env.env
    return env


def _agent(**kwargs) -> gym.Env:
    return gym.make("collabsim/DiscoveryTeam-v1", interface="macro", split="test",
                    max_turns=20, **kwargs)


def test_the_knowledge_option_decides_which_facts_each_seat_sees():
    env = _agent(team="DR", knowledge="by_profile")
    try:
        env.reset(seed=0, options={"task_id": READING.task_id})
        base = _unwrap(env).base
        assert base.last_observation.task.facts == ()  # the agent holds nothing
        briefs = base._orch.state.briefs
        assert [f.kind for f in briefs["R"].facts] == ["reading"] and briefs["D"].facts == ()
    finally:
        env.close()
    with pytest.raises(ValueError, match="knowledge|holder"):
        _agent(team="DR", knowledge="by_nobody")


@pytest.mark.parametrize(("task", "kind", "holder"), [(READING, "reading", "R"),
                                                     (CONVENTION, "convention", "D")])
def test_the_agent_asks_the_holder_and_variant_0_applies_the_answer(task, kind, holder):
    env = _agent(team="DR", knowledge="by_profile")
    wrapper = _unwrap(env)
    other = "convention" if kind == "reading" else "reading"
    try:
        features, info = env.reset(seed=10_000, options={"task_id": task.task_id})
        mask = info["action_mask"]
        assert mask[A[f"ask_{kind}"]] and not mask[A[f"ask_{other}"]]
        assert features[F[f"open_{kind}"]] > 0 and features[F[f"open_{other}"]] == 0
        features, _, _, _, info = env.step(A[f"ask_{kind}"])
        obs = wrapper.base.last_observation
        mine = [m for m in obs.chat if m.sender == "agent"]
        assert parse_asks(mine[-1].text) == ((task.facts[0].topic, holder),)
        assert features[F[f"asked_{kind}"]] == 1 and not info["action_mask"][A[f"ask_{kind}"]]
        for _ in range(10):
            if features[F[f"answered_{kind}"]]:
                break
            features, _, _, _, info = env.step(A["wait"])
        assert features[F[f"answered_{kind}"]] == 1 and features[F[f"unknown_{kind}"]] == 0
        obs = wrapper.base.last_observation
        told = [f for m in obs.chat if m.sender == holder for t, f in parse_facts(m.text)
                if t == task.facts[0].topic]
        assert told == [task.facts[0].fix]  # this session's holder states the fact right
        plan = wrapper.variants(obs)[0]
        assert plan == plan.with_fix(task.facts[0].fix) != wrapper._task_plans(obs)[1][0]
        for name in ("analyse_variant_0", "update_editor", "finish"):
            _, reward, terminated, _, info = env.step(A[name])
        assert terminated and reward == info["performance"] == 1.0
    finally:
        env.close()


def test_under_everyone_no_topic_is_open_and_no_ask_is_valid():
    env = _agent(team="DR", knowledge="everyone")
    try:
        for task in (READING, CONVENTION):
            features, info = env.reset(seed=1, options={"task_id": task.task_id})
            assert not info["action_mask"][A["ask_reading"]]
            assert not info["action_mask"][A["ask_convention"]]
            assert features[F["open_reading"]] == features[F["open_convention"]] == 0
    finally:
        env.close()


def test_after_i_dont_know_the_next_teammate_is_asked_and_then_none():
    """Team D alone under by_profile: nobody holds the reading; D is asked (the only
    teammate), says it does not know, and there is nobody left to ask."""
    env = _agent(team="D", knowledge="by_profile")
    try:
        _, info = env.reset(seed=2, options={"task_id": READING.task_id})
        features, _, _, _, info = env.step(A["ask_reading"])
        for _ in range(10):
            if features[F["unknown_reading"]]:
                break
            features, _, _, _, info = env.step(A["wait"])
        assert features[F["unknown_reading"]] == 1 and features[F["answered_reading"]] == 0
        assert not info["action_mask"][A["ask_reading"]]
    finally:
        env.close()


def test_the_collaborator_seat_answers_the_agents_question_from_its_facts():
    env = gym.make("collabsim/Collaborator-v1", interface="macro", role="R", team="DR",
                   split="test", knowledge="by_profile", max_turns=20,
                   opponent_params={"agent": {"ask_propensity": 1.0}})
    wrapper = _unwrap(env)
    fact = READING.facts[0]
    try:
        features, info = env.reset(seed=4, options={"task_id": READING.task_id})
        for _ in range(15):
            if info["action_mask"][C["answer"]]:
                break
            assert features[F["question_for_me"]] == 0
            features, _, _, _, info = env.step(C["wait"])
        assert info["action_mask"][C["answer"]] and features[F["question_for_me"]] == 1
        features, _, _, _, info = env.step(C["answer"])
        obs = wrapper.base.last_observation
        answer = [m for m in obs.chat if m.sender == "R"][-1].text
        assert answer.startswith(fact.text) and parse_facts(answer) == ((fact.topic, fact.fix),)
        assert not info["action_mask"][C["answer"]] and features[F["question_for_me"]] == 0
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(C["wait"])
            done = terminated or truncated
        assert info["performance"] == 1.0  # the scripted agent computed with the answer
    finally:
        env.close()


def test_asking_first_beats_ignoring_teammates_only_when_they_hold_the_facts():
    """The acceptance figure of benchmarks/bench_solo_policy.py on one seed per held-out
    task: by_profile, the ignoring policy is right only where its default reading happens
    to be; asking first is right unless the holder answers wrong."""
    scores: dict[str, dict[str, list[float]]] = {}
    for knowledge in ("by_profile", "everyone"):
        env = _agent(team="DR", knowledge=knowledge, cell_cache=True)
        scores[knowledge] = {"ignore": [], "ask_first": []}
        try:
            for task in HELD_OUT:
                for policy in (IgnoreTeammates(), AskFirst()):
                    features, info = env.reset(seed=10_000, options={"task_id": task.task_id})
                    done = False
                    while not done:
                        action = policy.act(features, info["action_mask"])
                        features, _, terminated, truncated, info = env.step(action)
                        done = terminated or truncated
                    scores[knowledge][policy.name].append(info["performance"])
        finally:
            env.close()
    by_profile = {k: float(np.mean(v)) for k, v in scores["by_profile"].items()}
    assert by_profile["ask_first"] - by_profile["ignore"] >= 0.3, by_profile
    assert by_profile["ignore"] <= 0.5
    assert scores["everyone"]["ignore"] == scores["everyone"]["ask_first"] == [1.0] * len(HELD_OUT)
