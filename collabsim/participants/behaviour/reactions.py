"""How a simulated human reacts to an AI output: adopt, modify or reject.

A hierarchical (Dirichlet-multinomial) model. The population has mean rates
``p = (p_adopt, p_modify, p_reject)``; each simulated person draws their own rates
``theta ~ Dirichlet(kappa * p)`` once (per participant and session seed), then labels each AI
output they respond to with ``label ~ Categorical(theta)``. The concentration ``kappa``
sets how much people differ: small ``kappa`` gives strong per-person habits (some people
mostly modify, some reject a lot, as in the Kolab data), large ``kappa`` makes everyone
behave like the population mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from collabsim.participants.behaviour.params import Param, ParamBlock

LABELS: tuple[str, str, str] = ("adopt", "modify", "reject")


@dataclass(frozen=True)
class ReactionRates:
    """One person's reaction probabilities (they sum to 1)."""

    adopt: float
    modify: float
    reject: float

    def as_array(self) -> np.ndarray:
        """``[adopt, modify, reject]``."""
        return np.array([self.adopt, self.modify, self.reject])

    def sample(self, rng: np.random.Generator) -> str:
        """Draw one reaction label."""
        return LABELS[int(rng.choice(3, p=self.as_array()))]

    def sample_many(self, n: int, rng: np.random.Generator) -> list[str]:
        """Draw ``n`` independent reaction labels."""
        return [LABELS[int(i)] for i in rng.choice(3, size=n, p=self.as_array())]


@dataclass(frozen=True)
class ReactionModel(ParamBlock):
    """Population rates and per-person spread of reactions to AI outputs.

    Attributes:
        adopt: Population mean probability of adopting an AI output as it is.
        modify: Population mean probability of using it with changes.
        reject: Population mean probability of discarding it.
        concentration: Dirichlet concentration ``kappa`` of per-person rates around the mean.
    """

    BLOCK: ClassVar[str] = "behaviour.reactions"

    adopt: Param
    modify: Param
    reject: Param
    concentration: Param

    def __post_init__(self) -> None:
        rates = [self.adopt.value, self.modify.value, self.reject.value]
        if min(rates) < 0 or abs(sum(rates) - 1.0) > 1e-6:
            raise ValueError(f"reaction rates must be >= 0 and sum to 1, got {rates}")
        if self.concentration.value <= 0:
            raise ValueError("reactions.concentration must be > 0")

    @property
    def mean(self) -> ReactionRates:
        """The population mean rates."""
        return ReactionRates(self.adopt.value, self.modify.value, self.reject.value)

    def dirichlet_alpha(self) -> np.ndarray:
        """``kappa * p``: the Dirichlet parameters of per-person rates."""
        alpha = self.concentration.value * self.mean.as_array()
        # a zero-rate category stays (almost) impossible without breaking the Dirichlet
        return np.maximum(alpha, 1e-9)

    def sample_participant(self, rng: np.random.Generator) -> ReactionRates:
        """Draw one simulated person's reaction rates ``theta ~ Dirichlet(kappa * p)``."""
        theta = rng.dirichlet(self.dirichlet_alpha())
        theta = theta / theta.sum()
        return ReactionRates(float(theta[0]), float(theta[1]), float(theta[2]))

    def sample_counts(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Counts ``[adopt, modify, reject]`` of ``n`` reactions of one newly drawn person."""
        return rng.multinomial(n, self.sample_participant(rng).as_array())
