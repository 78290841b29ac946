"""Does the fitted model reproduce the data it was fitted to? Simulation checks.

* Timing: simulate, for every real session, ``reps`` sessions with the same number of human
  events, and compare the per-session burstiness ``B`` and memory ``M`` with the real ones
  (means, standard errors of the real means, two-sample KS test). Both statistics are biased
  in short streams, which is why the simulated sessions have the real lengths.
* Reactions: the per-participant adopt shares the model implies (latent rates, and observed
  shares at each participant's real number of responses) against the observed ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from collabsim.calibration.kolab_sample import KolabSample
from collabsim.metrics.dynamics import burstiness, memory_coefficient
from collabsim.participants.behaviour.reactions import ReactionModel
from collabsim.participants.behaviour.timing import TimingModel, event_times


@dataclass(frozen=True)
class StatCheck:
    """Real against simulated values of one per-session statistic."""

    name: str
    real_n: int
    real_mean: float
    real_sd: float
    real_se: float
    sim_n: int
    sim_mean: float
    sim_sd: float
    ks_stat: float
    ks_p: float

    @property
    def diff_in_se(self) -> float:
        """``|sim mean - real mean|`` in standard errors of the real mean."""
        return abs(self.sim_mean - self.real_mean) / self.real_se if self.real_se else math.inf


def _check(name: str, real: np.ndarray, sim: np.ndarray) -> StatCheck:
    real = real[~np.isnan(real)]
    sim = sim[~np.isnan(sim)]
    ks = stats.ks_2samp(real, sim)
    sd = float(real.std(ddof=1)) if len(real) > 1 else math.nan
    return StatCheck(
        name=name,
        real_n=len(real),
        real_mean=float(real.mean()),
        real_sd=sd,
        real_se=sd / math.sqrt(len(real)) if len(real) > 1 else math.nan,
        sim_n=len(sim),
        sim_mean=float(sim.mean()),
        sim_sd=float(sim.std(ddof=1)),
        ks_stat=float(ks.statistic),
        ks_p=float(ks.pvalue),
    )


def simulate_human_streams(
    timing: TimingModel, event_counts: np.ndarray, reps: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Burstiness and memory of ``reps`` simulated streams per real stream length."""
    rng = np.random.default_rng(seed)
    bs, ms = [], []
    for _ in range(reps):
        for n in event_counts:
            times = event_times(timing.sample_intervals(int(n) - 1, rng))
            bs.append(burstiness(times))
            ms.append(memory_coefficient(times))
    return np.array(bs), np.array(ms)


def timing_checks(
    timing: TimingModel, sample: KolabSample, *, reps: int = 100, seed: int = 0
) -> tuple[StatCheck, StatCheck]:
    """Burstiness and memory checks of a timing model against a Kolab sample."""
    counts = sample.event_counts[sample.event_counts >= 3]
    sim_b, sim_m = simulate_human_streams(timing, counts, reps, seed)
    return (
        _check("human burstiness B", sample.burstiness, sim_b),
        _check("human memory M", sample.memory, sim_m),
    )


@dataclass(frozen=True)
class SpreadCheck:
    """Per-participant adopt shares: data against model.

    Attributes:
        observed: Observed adopt share of each participant with responses.
        latent_q05: 5 % quantile of the model's per-person adopt rate.
        latent_q95: 95 % quantile of the model's per-person adopt rate.
        observed_sd: SD of the observed shares.
        predicted_sd_q05: 5 % quantile of that SD in data simulated at the real response counts.
        predicted_sd_q95: 95 % quantile of it.
    """

    observed: np.ndarray
    latent_q05: float
    latent_q95: float
    observed_sd: float
    predicted_sd_q05: float
    predicted_sd_q95: float


def spread_check(
    reactions: ReactionModel, sample: KolabSample, *, reps: int = 2000, seed: int = 0
) -> SpreadCheck:
    """Compare the model's per-person spread of adopt shares with the data's."""
    counts = sample.participant_counts
    n_i = counts.sum(axis=1)
    observed = counts[:, 0] / n_i
    rng = np.random.default_rng(seed)
    alpha = reactions.dirichlet_alpha()
    latent = rng.dirichlet(alpha, size=reps)[:, 0]
    # a person's adopt count is binomial given their adopt rate (the multinomial's margin)
    theta = rng.dirichlet(alpha, size=(reps, len(n_i)))[..., 0]
    sds = (rng.binomial(n_i[None, :], theta) / n_i[None, :]).std(axis=1, ddof=1)
    return SpreadCheck(
        observed=observed,
        latent_q05=float(np.quantile(latent, 0.05)),
        latent_q95=float(np.quantile(latent, 0.95)),
        observed_sd=float(observed.std(ddof=1)),
        predicted_sd_q05=float(np.quantile(sds, 0.05)),
        predicted_sd_q95=float(np.quantile(sds, 0.95)),
    )


@dataclass(frozen=True)
class FamilyRow:
    """How one candidate family of gap distributions reproduces the real streams."""

    family: str
    burstiness: StatCheck
    memory: StatCheck
    gaps_ks: float


def family_comparison(
    timing: TimingModel, sample: KolabSample, *, reps: int = 100, seed: int = 0
) -> list[FamilyRow]:
    """The fitted two-state model against simpler families fitted to the same data.

    * ``lognormal``: one lognormal per session, log-SD = SD of the pooled centred log gaps,
      with the same per-session tempo;
    * ``exponential``: Poisson events whose mean gap is that lognormal's mean.

    Each is simulated at the real stream lengths; the rows give the B and M checks and the
    KS distance between the pooled simulated and real gaps.
    """
    logs = [np.log(np.maximum(t, timing.min_interval.value)) for t in sample.intervals if len(t)]
    sd = float(np.concatenate([s - s.mean() for s in logs]).std())

    def lognormal(n: int, rng: np.random.Generator) -> np.ndarray:
        return np.exp(timing.sample_tempo(rng) + rng.normal(0.0, sd, n))

    def exponential(n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.exponential(np.exp(timing.sample_tempo(rng) + sd * sd / 2.0), n)

    def two_state(n: int, rng: np.random.Generator) -> np.ndarray:
        return timing.sample_intervals(n, rng)

    real_gaps = np.concatenate(sample.intervals)
    counts = sample.event_counts[sample.event_counts >= 3]
    rows = []
    for name, draw in (
        ("two-state lognormal (fitted)", two_state),
        (f"one lognormal (log-SD {sd:.2f})", lognormal),
        ("exponential (Poisson events)", exponential),
    ):
        rng = np.random.default_rng(seed)
        bs, ms, gaps = [], [], []
        for _ in range(reps):
            for n in counts:
                iv = draw(int(n) - 1, rng)
                times = event_times(iv)
                bs.append(burstiness(times))
                ms.append(memory_coefficient(times))
                gaps.append(iv)
        rows.append(
            FamilyRow(
                family=name,
                burstiness=_check("human burstiness B", sample.burstiness, np.array(bs)),
                memory=_check("human memory M", sample.memory, np.array(ms)),
                gaps_ks=float(stats.ks_2samp(real_gaps, np.concatenate(gaps)).statistic),
            )
        )
    return rows
