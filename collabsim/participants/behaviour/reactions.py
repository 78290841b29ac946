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


@dataclass(frozen=True)
class CheckShift(ParamBlock):
    """How what a person's own check of an AI output found shifts their reaction to it.

    The Kolab data has no label for "the professional disagreed with the output"; the closest
    it has is the professional's own 1-5 rating of the output quality of the step the AI node
    belongs to. A response to an output in a step rated low (``<= 3``) stands for a check that
    disagrees, one in a step rated high (``>= 4``) for a check that agrees; ``disagree_share``
    is the low-rated share of all rated responses. A person's calibrated rates ``theta``
    (drawn from :class:`ReactionModel`) are shifted by the likelihood ratio of the outcome::

        theta_c[k]  proportional to  theta[k] * P(k | c) / P(k | rated)
        P(k | rated) = (1 - disagree_share) * P(k | agree) + disagree_share * P(k | disagree)

    (a log-odds shift), so a person at the rated population mean reacts exactly with the
    data's conditional rates, and per-person habits (the Dirichlet spread) stay. Adopting
    despite a disagreeing check (over-reliance) is then ``P(adopt | disagree)`` - a share the
    data gives, not a knob.

    Attributes:
        agree_adopt: ``P(adopt | own check agrees)`` (output in a step rated >= 4).
        agree_modify: ``P(modify | agrees)``.
        agree_reject: ``P(reject | agrees)``.
        disagree_adopt: ``P(adopt | own check disagrees)`` (output in a step rated <= 3).
        disagree_modify: ``P(modify | disagrees)``.
        disagree_reject: ``P(reject | disagrees)``.
        disagree_share: Share of rated responses whose output was rated low.
    """

    BLOCK: ClassVar[str] = "behaviour.check"

    agree_adopt: Param
    agree_modify: Param
    agree_reject: Param
    disagree_adopt: Param
    disagree_modify: Param
    disagree_reject: Param
    disagree_share: Param

    def __post_init__(self) -> None:
        for outcome in ("agree", "disagree"):
            rates = self.given(outcome == "disagree")
            if min(rates) < 0 or abs(rates.sum() - 1.0) > 1e-6:
                raise ValueError(f"check.{outcome}_* rates must be >= 0 and sum to 1, "
                                 f"got {rates.tolist()}")
        if not 0.0 <= self.disagree_share.value <= 1.0:
            raise ValueError("check.disagree_share must lie in [0, 1]")

    def given(self, disagrees: bool) -> np.ndarray:
        """``[P(adopt | c), P(modify | c), P(reject | c)]`` for the check outcome ``c``."""
        prefix = "disagree" if disagrees else "agree"
        return np.array([getattr(self, f"{prefix}_{label}").value for label in LABELS])

    def reference(self) -> np.ndarray:
        """``P(k | rated)``: the rates over all rated responses (mixture of both outcomes)."""
        s = self.disagree_share.value
        return (1.0 - s) * self.given(False) + s * self.given(True)

    def shift(self, rates: ReactionRates, disagrees: bool) -> ReactionRates:
        """One person's rates after a check that ``disagrees`` (or agrees), see class doc."""
        ref = self.reference()
        # a label no rated response had keeps its weight (no evidence either way)
        ratio = np.divide(self.given(disagrees), ref, out=np.ones(3), where=ref > 0)
        weights = rates.as_array() * ratio
        if weights.sum() <= 0:
            return rates  # only labels the outcome rules out: the person's habit decides
        weights = weights / weights.sum()
        return ReactionRates(float(weights[0]), float(weights[1]), float(weights[2]))
