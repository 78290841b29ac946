"""Rewards shared by every collabsim environment.

The default reward is sparse: 0 on every step and, when the episode ends, the deterministic
judge's **Performance** of the submitted hypothesis against the task's gold (context ×
variable F1 × relation, in [0, 1]; 0 for a task without a gold). The same pipeline function
(:func:`collabsim.metrics.pipeline.outcome_score`) scores ``collabsim run`` sessions, so an
episode's return equals the Performance the results table reports for that session.

Optional shaped terms (all off by default; switch on through :class:`RewardConfig`):

* ``coverage`` – weight × the increase of workflow coverage C_wf (against the task's
  reference workflow) since the learner's previous step; summed over an episode it is
  weight × final C_wf, so it is potential-based and does not change the optimal policy's
  ordering much.
* ``turn_cost`` – a cost subtracted for every learner step.
* ``message_cost`` – a cost subtracted for every chat message the learner sends.
* ``alignment`` – (``Collaborator-v1`` only) weight × the session's Profile Alignment
  A_profile at the end (0 when NaN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class RewardConfig:
    """Weights of the reward terms.

    Attributes:
        performance: Weight of the terminal judge Performance (default 1).
        coverage: Weight of per-step workflow-coverage progress (default 0 = off).
        turn_cost: Cost per learner step (default 0).
        message_cost: Cost per chat message sent by the learner (default 0).
        alignment: Weight of the terminal profile-alignment term (default 0; the
            ``Collaborator-v1`` registration sets 0.25).
    """

    performance: float = 1.0
    coverage: float = 0.0
    turn_cost: float = 0.0
    message_cost: float = 0.0
    alignment: float = 0.0

    @classmethod
    def from_any(cls, value: RewardConfig | Mapping[str, Any] | None) -> RewardConfig:
        """Build from a mapping of weights (unknown keys raise ValueError)."""
        if value is None:
            return cls()
        if isinstance(value, RewardConfig):
            return value
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(value) - names)
        if unknown:
            raise ValueError(f"unknown reward terms {unknown}; known: {sorted(names)}")
        return cls(**{k: float(v) for k, v in value.items()})


def finite(x: float | None) -> float:
    """``x`` as a float, 0 for None or NaN."""
    if x is None:
        return 0.0
    x = float(x)
    return 0.0 if math.isnan(x) else x


def terminal_reward(metrics: Mapping[str, Any], config: RewardConfig) -> float:
    """The reward paid on a seat's last step: weighted Performance (and A_profile).

    Args:
        metrics: The session's metrics (:func:`collabsim.metrics.pipeline.session_metrics`).
        config: The learner's reward weights.
    """
    reward = config.performance * finite(metrics["Performance"])
    if config.alignment:
        reward += config.alignment * finite(metrics["A_profile"])
    return reward
