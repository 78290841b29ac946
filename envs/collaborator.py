"""``collabsim/Collaborator-v1``: the learner is a simulated human collaborator (D or R).

## Description
The same sessions as ``collabsim/DiscoveryTeam-v1``, with the learner in a collaborator's
seat: ``role="D"`` (data-analysis profile) or ``role="R"`` (researcher profile). The AI agent
and the other collaborator are scripted (or any synchronous policy in ``opponents``). This
is the user-simulator side of training: a policy that collaborates like a D or R teammate.

## Action space
``SharedText(8000)``: one action of the action language (collaborators cannot ``FINISH``;
see the observation's available actions). Discrete macros:
:class:`collabsim.envs.macro.MacroActions` (``interface="macro"``).

## Observation space
``SharedText(60000)``: the collaborator's turn prompt - its own profile, the task brief, chat,
code cells, editor, memory, gates, its own history. Never the gold hypothesis or the reference
workflow.

## Rewards
The team's judge Performance at the end plus ``alignment`` × the session's Profile Alignment
A_profile (does the learner contribute what its profile should: numbers and code for D,
wording and relations for R), ``alignment=0.25`` by default; the shaped terms of
:mod:`collabsim.envs.rewards` can be switched on as for the agent env.

## Episode end
``terminated`` when the session ends and is judged: the agent's ``FINISH``, the turn limit or
the virtual-time budget; ``truncated`` on an error; ``max_episode_steps=100``.

## Version history
* v1 (issues 39 and 35, same id and spaces): the engine's changes shared by every env,
  listed once in :mod:`collabsim.envs.session_env` (*Version history*).
* v1 (issue 20, same id: the default episodes are unchanged): ``knowledge=`` says who
  holds the tasks' decisive facts (``"by_profile"``: D the data conventions, R the readings).
  The macro interface gained ``answer`` (at the end of the macros) and nine features (at
  the end); its spaces grew, so a policy trained on the earlier macro interface does not
  fit it.
* v1: turn-limit and time-budget endings are ``terminated`` (in v0 they were ``truncated``).
  The package moved from ``collabsim_envs`` to ``collabsim.envs``. The scripted AI agent
  opponent stops waiting for its teammates from decision ``max_turns`` less its
  ``finish_margin_turns`` (10) on, as in ``collabsim run`` (20 at
  ``max_turns=30``; in v0 from decision 45, i.e. never), and takes the other defaults of
  ``collabsim.participants.scripted_params.AGENT_DEFAULTS`` for what ``opponent_params`` leaves out (its mistakes,
  deference 0.5, lead patience 1,830 s; in v0 it made no mistakes, always deferred and
  started at once).
* v0: initial version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collabsim.envs.rewards import RewardConfig
from collabsim.envs.session_env import SessionEnv

DEFAULT_ALIGNMENT = 0.25


class CollaboratorEnv(SessionEnv):
    """A collabsim session with the learner as collaborator ``role`` (see module docstring).

    Args:
        role: The learner's seat, ``"D"`` or ``"R"`` (must be in ``team``).
        reward: Reward weights; ``alignment`` defaults to 0.25 here.
        **kwargs: :class:`~collabsim.envs.session_env.SessionEnv` arguments.
    """

    def __init__(
        self,
        role: str = "D",
        reward: RewardConfig | Mapping[str, float] | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(reward, RewardConfig):
            weights = reward
        else:
            weights = RewardConfig.from_any({"alignment": DEFAULT_ALIGNMENT, **dict(reward or {})})
        if kwargs.get("team") == "single":
            raise ValueError("Collaborator-v1 needs a team with collaborators, not 'single'")
        kwargs.pop("learner", None)
        super().__init__(learner=role, reward=weights, **kwargs)
