"""How a simulated human opens a session: working alone before it engages the AI.

In every recorded Kolab session the human acts before the AI does (the session opens with
human nodes: looking at the material, then asking the AI), for a solo lead-in of about a
quarter of each step. The model: with probability ``probability`` a person leads in, with
``K ~ Geometric(1 / actions_mean)`` actions (``K >= 1``; the last one is the request that
engages the AI), drawn once per person and session. The actions' durations come from the
timing model. (The scripted collaborator shortens a lead-in to at most 3 actions - say so,
one look at the data, the request - because every landing wakes the waiting agent, whose
decisions are budgeted.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from collabsim.participants.behaviour.params import Param, ParamBlock


@dataclass(frozen=True)
class LeadInModel(ParamBlock):
    """Whether and for how many actions a person works alone before engaging the AI.

    Attributes:
        probability: Probability that a person opens the session alone.
        actions_mean: Mean number of its actions before the AI's first one (>= 1,
            geometric), the engaging request included.
    """

    BLOCK: ClassVar[str] = "behaviour.lead_in"

    probability: Param
    actions_mean: Param

    def __post_init__(self) -> None:
        if not 0.0 <= self.probability.value <= 1.0:
            raise ValueError("lead_in.probability must lie in [0, 1]")
        if self.actions_mean.value < 1.0:
            raise ValueError("lead_in.actions_mean must be >= 1")

    def sample_actions(self, rng: np.random.Generator) -> int:
        """Number of lead-in actions of one person in one session (0: no lead-in)."""
        if rng.random() >= self.probability.value:
            return 0
        return int(rng.geometric(1.0 / self.actions_mean.value))
