"""``collabsim/DiscoveryTeam-v1``: the learner is the team's AI agent.

## Description
One episode is one collabsim session on one data-discovery task: a shared workspace with a
Python sandbox, team chat, a result editor, gates and a virtual clock. The learner plays the
AI agent; the collaborators (``D``: recomputes claims, ``R``: checks wording) are scripted
simulated humans (or any synchronous policy given in ``opponents``).

## Action space
``SharedText(8000)``: one action of the action language, e.g.
``EXECUTE_CODE(code="print(df.head())")``, ``EDITOR_UPDATE(text="...")``, ``FINISH()``.
Prose around the action is tolerated; a malformed or illegal action becomes an error the
agent sees in its next observation. For a ``Discrete`` action space use
:class:`collabsim.envs.macro.MacroActions` (``gym.make(..., interface="macro")``).

## Observation space
``SharedText(60000)``: the agent's turn prompt (task brief and data description, chat, code
cells with outputs, editor, memory, gates, history, feedback, available actions). Never the
gold hypothesis or the reference workflow.

## Rewards
:mod:`collabsim.envs.rewards`: 0 per step, the judge's Performance of the submitted hypothesis
at the end (in [0, 1]); optional shaped terms (coverage progress, cost per turn, per message)
are off by default and switched on with ``reward={...}``.

## Episode end
``terminated`` when the session ends and its hypothesis is judged: an effective ``FINISH``,
the turn limit (``max_turns`` agent decisions) or the virtual-time budget (the limits are
part of the task: ``turns_used`` and ``time_used`` are observed, and the final reward is paid
on that step). ``truncated`` when the session fails (an engine or participant error). The
registration also sets ``max_episode_steps=100`` (TimeLimit, ``truncated``) as a safety net.

## Arguments
See :class:`collabsim.envs.session_env.SessionEnv` (``tasks``, ``split``, ``team``,
``structure``, ``knowledge``, ``opponents``, ``max_turns``, ``reward``, ...).

## Version history
* v1 (issues 39 and 35, same id and spaces): the engine's changes shared by every env,
  listed once in :mod:`collabsim.envs.session_env` (*Version history*).
* v1 (issue 20, same id: the default episodes are unchanged): ``knowledge=`` says who
  holds the tasks' decisive facts (default ``"everyone"``; ``"by_profile"``: the agent holds
  none and must ask). The macro interface gained ``ask_reading`` / ``ask_convention`` (at
  the end of the macros) and nine features (at the end); its spaces grew, so a policy
  trained on the earlier macro interface does not fit it.
* v1: turn-limit and virtual-time-budget endings are ``terminated`` (in v0 they were
  ``truncated``, so SB3's PPO added a continuation value to their final reward and learned
  never to ``FINISH``); observations and rewards are unchanged. The package moved from
  ``collabsim_envs`` to ``collabsim.envs``. Also since v0, without changing episodes: the
  episodes of one env share a reset sandbox worker (``reuse_sandbox=True``), which makes cheap
  steps about twice as fast; the task list's data files are pre-loaded in the sandbox's fork
  server when the env is made.
* v0: initial version (successor of the legacy ``collabsim/TeamAnalysis-v0``, which it
  generalised with task splits, opponent policies, switchable reward terms and an async-safe
  text space). ``TeamAnalysis-v0`` (this env with the argument names ``tasks_root`` and
  ``collaborator_params``, and ``observation_array``) was removed with v1: use ``tasks=`` and
  ``opponent_params=``.
"""

from __future__ import annotations

from typing import Any

from collabsim.envs.session_env import SessionEnv


class DiscoveryTeamEnv(SessionEnv):
    """A collabsim session with the learner as the AI agent (see module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        if "learner" in kwargs and kwargs["learner"] != "agent":
            raise ValueError("DiscoveryTeam-v1's learner is the agent; use Collaborator-v1")
        kwargs.pop("learner", None)
        super().__init__(learner="agent", **kwargs)
