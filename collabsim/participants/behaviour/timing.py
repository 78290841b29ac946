"""When a simulated human acts: a two-state lognormal model of inter-event intervals.

What it reproduces. The real target is the stream of *human events* of the Kolab workflow
graphs (start times of human nodes; :func:`collabsim.metrics.dynamics.human_event_times`):
its inter-event intervals ``tau`` have, per session, a burstiness
``B = (sigma - mu) / (sigma + mu)`` near 0 (coefficient of variation about 0.9) and a memory
coefficient ``M`` (correlation of consecutive gaps) that varies around 0, while the sessions'
overall tempo differs several-fold (median gap from about 40 s to about 340 s).

Why this family. A single lognormal fixes ``B`` through its log-space spread and has
``M = 0``; it cannot express a mixture of quick follow-ups and long stretches of work, nor
any persistence of either. A two-state Markov-switching lognormal (a hidden Markov model with
Gaussian emissions in log-seconds; state 0 has the lower mean, called *fast*, state 1 the
higher, *slow*) moves ``B`` through the two states' means and spreads and ``M`` from about 0
(states that do not persist) to clearly positive (sticky states), while staying a two-line
sampler. On the Kolab explorer data it passes both the ``B`` and the ``M`` check;
``calibration.md`` (written by ``collabsim calibrate``) compares it with one lognormal (fits
the pooled gaps about as well but fails ``B``) and an exponential (passes ``B`` and ``M``
but fits the gaps worse). A session-level *tempo* (the mean log-interval of a session,
normal across sessions) carries the between-session differences, so the state parameters
describe the within-session shape that ``B`` and ``M`` measure (both are scale-free).

Action duration versus think time. An interval ``tau`` from the start of one human action to
the start of the next is split into the action's duration and the think time after it. In the
data most human nodes run right up to the next human node (the share ``continuous_share``);
otherwise the duration is the fraction ``r ~ Beta(a, b)`` of the interval. Splitting the
interval (instead of drawing durations and gaps independently) keeps the start-to-start
stream, and hence ``B`` and ``M``, exactly as fitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from collabsim.participants.behaviour.params import Param, ParamBlock

FAST, SLOW = 0, 1


@dataclass(frozen=True)
class HumanTiming:
    """Sampled timing of one simulated human session (all arrays of equal length, seconds).

    Attributes:
        intervals: Start-to-start gaps between consecutive actions.
        durations: Duration of each action (``<= interval``).
        think: Think time after each action before the next starts (``interval - duration``).
        states: Hidden state of each gap (0 fast, 1 slow).
    """

    intervals: np.ndarray
    durations: np.ndarray
    think: np.ndarray
    states: np.ndarray


@dataclass(frozen=True)
class TimingModel(ParamBlock):
    """Parameters of the two-state lognormal timing model (module docstring).

    Log quantities are natural logs of seconds. The state means are relative to the
    session's tempo.

    Attributes:
        tempo_mean: Mean over sessions of a session's mean log-interval.
        tempo_sd: Standard deviation over sessions of that mean.
        fast_mean: Mean log-interval of the fast state, relative to the tempo.
        fast_sd: Log-space standard deviation of the fast state.
        slow_mean: Mean log-interval of the slow state, relative to the tempo.
        slow_sd: Log-space standard deviation of the slow state.
        stay_fast: Probability that a fast gap is followed by a fast gap.
        stay_slow: Probability that a slow gap is followed by a slow gap.
        start_fast: Probability that a session's first gap is fast.
        continuous_share: Probability that an action lasts its whole interval (no think time).
        duration_a: Beta ``a`` of the duration's share of the interval otherwise.
        duration_b: Beta ``b`` of that share.
        min_interval: Smallest gap in seconds (the data's time resolution).
    """

    BLOCK: ClassVar[str] = "behaviour.timing"

    tempo_mean: Param
    tempo_sd: Param
    fast_mean: Param
    fast_sd: Param
    slow_mean: Param
    slow_sd: Param
    stay_fast: Param
    stay_slow: Param
    start_fast: Param
    continuous_share: Param
    duration_a: Param
    duration_b: Param
    min_interval: Param

    def __post_init__(self) -> None:
        for name in ("stay_fast", "stay_slow", "start_fast", "continuous_share"):
            v = getattr(self, name).value
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"timing.{name} must be a probability, got {v}")
        for name in ("tempo_sd", "fast_sd", "slow_sd", "min_interval"):
            if getattr(self, name).value < 0:
                raise ValueError(f"timing.{name} must be >= 0")
        for name in ("duration_a", "duration_b"):
            if getattr(self, name).value <= 0:
                raise ValueError(f"timing.{name} must be > 0")

    # ------------------------------------------------------------------ derived

    def transition_matrix(self) -> np.ndarray:
        """2x2 state transition matrix, rows = from (fast, slow)."""
        sf, ss = self.stay_fast.value, self.stay_slow.value
        return np.array([[sf, 1.0 - sf], [1.0 - ss, ss]])

    def stationary_fast(self) -> float:
        """Long-run share of fast gaps."""
        leave_fast = 1.0 - self.stay_fast.value
        leave_slow = 1.0 - self.stay_slow.value
        total = leave_fast + leave_slow
        return 0.5 if total == 0 else leave_slow / total

    # ------------------------------------------------------------------ sampling

    def sample_tempo(self, rng: np.random.Generator) -> float:
        """Draw one session's tempo (its mean log-interval)."""
        return float(rng.normal(self.tempo_mean.value, self.tempo_sd.value))

    def sample(
        self, n: int, rng: np.random.Generator, *, tempo: float | None = None
    ) -> HumanTiming:
        """Draw the timing of ``n`` consecutive actions of one simulated human.

        Args:
            n: Number of intervals (one per action).
            rng: Seeded generator; all randomness comes from it.
            tempo: Session tempo in mean log-seconds (drawn with :meth:`sample_tempo` if None).

        Returns:
            Intervals, durations and think times (arrays of length ``n``).
        """
        if n < 0:
            raise ValueError("n must be >= 0")
        if tempo is None:
            tempo = self.sample_tempo(rng)
        trans = self.transition_matrix()
        means = np.array([self.fast_mean.value, self.slow_mean.value])
        sds = np.array([self.fast_sd.value, self.slow_sd.value])
        states = np.empty(n, dtype=int)
        u = rng.random(n)
        state = FAST if rng.random() < self.start_fast.value else SLOW
        for i in range(n):
            if i:
                state = state if u[i] < trans[state, state] else 1 - state
            states[i] = state
        logs = tempo + means[states] + sds[states] * rng.standard_normal(n)
        intervals = np.maximum(np.exp(logs), self.min_interval.value)
        whole = rng.random(n) < self.continuous_share.value
        share = rng.beta(self.duration_a.value, self.duration_b.value, size=n)
        durations = np.where(whole, intervals, intervals * share)
        return HumanTiming(intervals, durations, intervals - durations, states)

    def sample_intervals(
        self, n: int, rng: np.random.Generator, *, tempo: float | None = None
    ) -> np.ndarray:
        """Start-to-start intervals of ``n`` consecutive actions (see :meth:`sample`)."""
        return self.sample(n, rng, tempo=tempo).intervals


def event_times(intervals: np.ndarray, start: float = 0.0) -> np.ndarray:
    """Event times ``start, start + tau_1, ...`` of an interval sequence (length ``n + 1``)."""
    return start + np.concatenate([[0.0], np.cumsum(np.asarray(intervals, dtype=float))])
