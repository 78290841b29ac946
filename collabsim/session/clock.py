"""The virtual clock: seeded action durations and the earliest-decision-first scheduler.

Every action occupies ``[t_start, t_end]`` of virtual time. Its duration is drawn from a
lognormal distribution whose *mean* is the configured mean for the participant type
(``ai`` / ``human``) and action, with log-space standard deviation ``sigma``. Each
participant draws from its own generator seeded with ``(seed, crc32(name))``, so one
participant's draws do not depend on how many actions the others take.

Who acts when is decided by :class:`collabsim.session.scheduler.Scheduler` (re-exported
here).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from collabsim.session.scheduler import Scheduler

__all__ = ["ClockSpec", "ParticipantKind", "Scheduler", "VirtualClock", "participant_rng"]

ParticipantKind = Literal["ai", "human"]

_DEFAULT_AI: dict[str, float] = {
    "SEND_TEAMMATE_MESSAGE": 8.0,
    "EXECUTE_CODE": 20.0,
    "EDITOR_UPDATE": 10.0,
    "FINISH": 2.0,
    "APPROVE": 3.0,
    "REJECT": 8.0,
    "MEMORY_ADD": 8.0,
    "MEMORY_AGREE": 2.0,
    "INVALID": 5.0,
}
_DEFAULT_HUMAN: dict[str, float] = {
    "SEND_TEAMMATE_MESSAGE": 30.0,
    "EXECUTE_CODE": 90.0,
    "EDITOR_UPDATE": 45.0,
    "FINISH": 5.0,
    "APPROVE": 10.0,
    "REJECT": 25.0,
    "MEMORY_ADD": 40.0,
    "MEMORY_AGREE": 5.0,
    "INVALID": 15.0,
}


@dataclass(frozen=True)
class ClockSpec:
    """Duration model of the virtual clock (seconds).

    Attributes:
        ai: Mean duration per action name for the AI agent.
        human: Mean duration per action name for simulated humans.
        default_ai: Mean for an AI action missing from ``ai``.
        default_human: Mean for a human action missing from ``human``.
        sigma: Log-space standard deviation of the lognormal (0 = deterministic means).
        min_seconds: Lower bound of any duration.
        wait_seconds: How far ``WAIT_TEAMMATE_CONTINUE`` advances the waiting participants
            when nothing is in flight and nobody has a decision scheduled (otherwise a wait
            lasts until the next landing).
    """

    ai: Mapping[str, float] = field(default_factory=lambda: dict(_DEFAULT_AI), hash=False)
    human: Mapping[str, float] = field(default_factory=lambda: dict(_DEFAULT_HUMAN), hash=False)
    default_ai: float = 10.0
    default_human: float = 30.0
    sigma: float = 0.5
    min_seconds: float = 0.5
    wait_seconds: float = 10.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "ai", {**_DEFAULT_AI, **dict(self.ai)})
        object.__setattr__(self, "human", {**_DEFAULT_HUMAN, **dict(self.human)})
        means = [*self.ai.values(), *self.human.values(), self.default_ai, self.default_human]
        if any(not (m > 0 and math.isfinite(m)) for m in means):
            raise ValueError("clock means must be positive and finite")
        if self.sigma < 0 or self.min_seconds < 0 or self.wait_seconds <= 0:
            raise ValueError("clock sigma/min_seconds must be >= 0 and wait_seconds > 0")

    def mean(self, kind: ParticipantKind, action: str) -> float:
        """Configured mean duration for a participant type and action."""
        if kind == "ai":
            return float(self.ai.get(action, self.default_ai))
        return float(self.human.get(action, self.default_human))


def participant_rng(seed: int, name: str, salt: str = "") -> np.random.Generator:
    """The generator for one participant's durations (stable across runs and platforms).

    ``salt`` (the task id in sessions) makes durations differ between tasks run with the
    same seed.
    """
    return np.random.default_rng(
        [int(seed) & 0xFFFFFFFF, zlib.crc32(name.encode("utf-8")), zlib.crc32(salt.encode("utf-8"))]
    )


class VirtualClock:
    """Draws action durations for the participants of one session."""

    def __init__(self, spec: ClockSpec, seed: int, names: Sequence[str], salt: str = "") -> None:
        self.spec = spec
        self._rngs = {n: participant_rng(seed, n, salt) for n in names}
        self._own: dict[str, Callable[[str], float | None]] = {}

    def use_participant_durations(self, name: str,
                                  sampler: Callable[[str], float | None]) -> None:
        """Let participant ``name`` time its own actions (``sampler(action)``; None: the
        clock's draw), e.g. a simulated human with a calibrated timing model."""
        self._own[name] = sampler

    def duration(self, name: str, kind: ParticipantKind, action: str) -> float:
        """Draw the duration of ``action`` by participant ``name`` of type ``kind``."""
        own = self._own.get(name)
        if own is not None and (value := own(action)) is not None:
            return round(max(self.spec.min_seconds, float(value)), 6)
        mean = self.spec.mean(kind, action)
        sigma = self.spec.sigma
        if sigma == 0:
            value = mean
        else:
            mu = math.log(mean) - sigma * sigma / 2.0
            value = float(self._rngs[name].lognormal(mu, sigma))
        return round(max(self.spec.min_seconds, value), 6)
