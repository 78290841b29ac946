"""A text env's observation is the seat's turn prompt as an LLM participant in that seat
sees it (the packaged templates), for every structure and both seats."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest

import collabsim.envs
from collabsim.core.actions import format_action
from collabsim.core.observation import Observation
from collabsim.core.records import (
    Activity,
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryView,
)
from collabsim.envs.session_env import sanitise
from collabsim.participants.llm_policy import PromptLimits, PromptRenderer

gym.register_envs(collabsim.envs)
ACTIONS = [
    "WAIT_TEAMMATE_CONTINUE()",
    format_action("SEND_TEAMMATE_MESSAGE", message="I am looking at the data."),
    format_action("EXECUTE_CODE", code="print('x' * 4500)"),  # output past the sandbox cut
    format_action("EXECUTE_CODE", code="1 / 0"),  # an error cell
    format_action("EDITOR_UPDATE", text="The value rises after 500 BCE."),
    "NOT_AN_ACTION(",  # feedback to the learner
]
SETTINGS = [
    ("DiscoveryTeam-v1", {"team": "DR", "structure": "default"}),
    ("DiscoveryTeam-v1", {"team": "DR", "structure": "memory"}),  # build phase, memory
    ("DiscoveryTeam-v1", {"team": "DR", "structure": "preassigned_gates"}),
    ("DiscoveryTeam-v1", {"team": "single"}),
    ("Collaborator-v1", {"role": "R", "team": "DR", "structure": "scaffolded"}),
    ("Collaborator-v1", {"role": "D", "team": "DR", "structure": "memory"}),
]


def _steps(env_id: str, kwargs: dict, seed: int) -> list[tuple[str, Observation]]:
    env = gym.make(f"collabsim/{env_id}", interface="text", max_turns=25, **kwargs)
    rng = np.random.default_rng(seed)
    seen = []
    try:
        text, _ = env.reset(seed=seed)
        done = False
        while not done:
            seen.append((text, env.unwrapped.last_observation))
            action = ACTIONS[int(rng.choice(len(ACTIONS), p=[0.3, 0.4, 0.1, 0.1, 0.05, 0.05]))]
            text, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    finally:
        env.close()
    return seen


@pytest.mark.parametrize(("env_id", "kwargs"), SETTINGS)
def test_env_observations_show_the_task_the_feedback_and_the_latest_chat(
        env_id: str, kwargs: dict) -> None:
    steps = _steps(env_id, kwargs, seed=0) + _steps(env_id, kwargs, seed=1)
    assert len(steps) > 10
    for text, obs in steps:
        assert obs.task.query in text
        for line in obs.feedback:  # an invalid action is explained to the learner
            assert sanitise(line) in text
        if obs.chat:
            assert sanitise(obs.chat[-1].text) in text


def _long(obs: Observation) -> Observation:
    """``obs`` with more chat, cells and history than a prompt shows, and every section."""
    chat = tuple(ChatMessage(i, 10.0 * i + 0.5, "D" if i % 2 else "R", f"note {i}")
                 for i in range(45))
    cells = tuple(CodeCell(i, 7.5 * i, "agent", f"print({i})", "y" * (2990 + 3 * i), i % 5 != 0)
                  for i in range(15))
    history = tuple(HistoryEntry(i, 3.0 * i, "D", "SEND_TEAMMATE_MESSAGE", "ok", f"said {i}")
                    for i in range(50))
    request = GateRequest("g1", 3, 12.0, "D", obs.me, "EDITOR_UPDATE", {"text": "<a & b>"})
    mine = GateRequest("g2", 4, 13.0, obs.me, "R", "FINISH", {})
    memory = MemoryView({"plan": ("first", "second"), "trust": ()}, False, ("agent",))
    return dataclasses.replace(
        obs, chat=chat, code_cells=cells, history=history, editor_text="A claim.",
        feedback=("Your action failed.", "R approved."), phase="build", memory=memory,
        gates={"FINISH": "R"}, pending_for_me=(request,), my_pending=(mine,),
        available_actions=(), working=(Activity("D", "SEND_TEAMMATE_MESSAGE", 400.4),
                                       Activity("R", "EXECUTE_CODE", 431.6)),
    )


@pytest.mark.parametrize("limits", [PromptLimits(), PromptLimits(3, 2, 5),
                                    PromptLimits(0, 0, 0)])
def test_long_observations_show_the_latest_items_and_every_section(limits) -> None:
    obs = _steps("DiscoveryTeam-v1", {"team": "DR"}, seed=2)[-1][1]
    renderer = PromptRenderer(limits=limits)
    long = renderer.turn(_long(obs), "", None)
    assert "A claim." in long and "request_id=g1: D wants EDITOR_UPDATE" in long
    if limits.max_chat:
        assert "earlier messages not shown" in long
        assert "R: note 44" in long and "R: note 1\n" not in long
    assert ("Teammates at work now (started, not done yet): D SEND_TEAMMATE_MESSAGE since "
            "t=400s; R EXECUTE_CODE since t=432s.") in long
    collaborator = renderer.turn(dataclasses.replace(_long(obs), memory=MemoryView({}),
                                                     role="collaborator"), "", None)
    assert "A claim." in collaborator and "request_id=g1" in collaborator
