"""Fit the behavioural model (timing, reactions, lead-in) to real sessions.

* **Timing** (:class:`~collabsim.participants.behaviour.timing.TimingModel`). Gaps shorter
  than the data's 1-second resolution are raised to 1 s before taking logs. Each session's
  mean log-gap is its tempo (``tempo_mean`` / ``tempo_sd`` are the mean and sample standard
  deviation over sessions); the centred log-gaps of all sessions are fitted jointly with a
  two-state Gaussian HMM (:mod:`collabsim.calibration.hmm`). ``continuous_share`` is the
  share of human nodes that last until the next human node starts; the remaining duration
  shares are fitted with a Beta distribution by maximum likelihood.
* **Reactions** (:class:`~collabsim.participants.behaviour.reactions.ReactionModel`). The
  population rates are the pooled label shares (so they equal the data's counts); the
  Dirichlet concentration is fitted by maximum marginal likelihood over participants
  (:mod:`collabsim.calibration.dirichlet`).
* **Reactions given the own check** (:class:`~collabsim.participants.behaviour.reactions.CheckShift`).
  The label shares of responses to AI outputs in steps the professional rated low
  (``<= 3``, a proxy for a check that disagrees) and high (``>= 4``, agrees), with Wilson 95 %
  intervals, and the low-rated share of rated responses. Responses in unrated steps are left out.
* **Lead-in** (:class:`~collabsim.participants.behaviour.lead_in.LeadInModel`). The share of
  sessions in which a human node starts before the first AI node, and the mean number of such
  nodes among them (the maximum-likelihood geometric on ``K >= 1``).
* **Participation** (:class:`~collabsim.participants.behaviour.participation.ParticipationModel`).
  ``respond_<kind>`` is the share of the AI outputs of that kind
  (:func:`~collabsim.calibration.answered.output_kind`) that some response answers, with its
  Wilson 95 % interval; Kolab has no memory entries, so ``respond_memory`` is the share over
  all AI outputs. ``delegate`` is the share of responses whose responder is the source (the
  request) of an AI output; ``act_between`` the share of AI nodes with a sequential edge into
  a human node; ``act_again`` the share of human nodes (with a sequential edge out) with one
  into a human node; ``respond_final`` the share of sessions whose last AI output is answered.

Nothing here looks at simulated results or published team tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from collabsim.calibration.dirichlet import ConcentrationFit, fit_concentration
from collabsim.calibration.hmm import HMMFit, fit_two_state
from collabsim.calibration.kolab_sample import LOW_QUALITY, KolabSample
from collabsim.participants.behaviour.lead_in import LeadInModel
from collabsim.participants.behaviour.params import Param
from collabsim.participants.behaviour.participation import OUTPUT_KINDS, ParticipationModel
from collabsim.participants.behaviour.profile import BehaviourModel
from collabsim.participants.behaviour.reactions import LABELS, CheckShift, ReactionModel
from collabsim.participants.behaviour.timing import TimingModel

MIN_INTERVAL_S = 1.0  # the Kolab times are whole seconds
_SHARE_CLIP = 1e-3


@dataclass(frozen=True)
class Calibration:
    """A fitted behaviour model with the fits behind it."""

    model: BehaviourModel
    sample: KolabSample
    hmm: HMMFit
    concentration: ConcentrationFit


def _src(sample: KolabSample, statistic: str) -> str:
    return f"kolab:{sample.file_name}: {statistic}"


def fit_timing(sample: KolabSample) -> tuple[TimingModel, HMMFit]:
    """Fit the timing model (module docstring) to a Kolab sample."""
    seqs = [np.log(np.maximum(t, MIN_INTERVAL_S)) for t in sample.intervals if len(t) >= 2]
    if len(seqs) < 2:
        raise ValueError("need at least 2 sessions with 3 or more human events")
    tempos = np.array([s.mean() for s in seqs])
    hmm = fit_two_state([s - s.mean() for s in seqs])
    n_gaps = sum(len(s) for s in seqs)
    n_sess = len(seqs)
    shares = sample.duration_shares
    whole = shares >= 1.0
    part = np.clip(shares[~whole], _SHARE_CLIP, 1.0 - _SHARE_CLIP)
    if len(part) >= 2:
        a, b, _, _ = stats.beta.fit(part, floc=0.0, fscale=1.0)
        beta_src = _src(
            sample, f"Beta maximum-likelihood fit to {len(part)} duration/gap shares below 1"
        )
    else:
        a, b = 1.0, 1.0
        beta_src = "prior:uniform share (too few human nodes ending before the next one)"
    hmm_src = (
        f"two-state Gaussian HMM (Baum-Welch) on centred log gaps, {n_gaps} gaps "
        f"in {n_sess} sessions"
    )
    model = TimingModel(
        tempo_mean=Param(
            float(tempos.mean()),
            _src(sample, f"mean over {n_sess} sessions of the mean log gap between human events"),
        ),
        tempo_sd=Param(
            float(tempos.std(ddof=1)),
            _src(sample, f"sample SD over {n_sess} sessions of the mean log gap"),
        ),
        fast_mean=Param(hmm.means[0], _src(sample, f"{hmm_src}: state 0 mean")),
        fast_sd=Param(hmm.sds[0], _src(sample, f"{hmm_src}: state 0 SD")),
        slow_mean=Param(hmm.means[1], _src(sample, f"{hmm_src}: state 1 mean")),
        slow_sd=Param(hmm.sds[1], _src(sample, f"{hmm_src}: state 1 SD")),
        stay_fast=Param(hmm.trans[0][0], _src(sample, f"{hmm_src}: P(0 -> 0)")),
        stay_slow=Param(hmm.trans[1][1], _src(sample, f"{hmm_src}: P(1 -> 1)")),
        start_fast=Param(hmm.start[0], _src(sample, f"{hmm_src}: P(first gap in state 0)")),
        continuous_share=Param(
            float(whole.mean()) if len(shares) else 0.0,
            _src(
                sample,
                f"{int(whole.sum())}/{len(shares)} human nodes lasting until the next human "
                "node starts",
            ),
        ),
        duration_a=Param(float(a), beta_src),
        duration_b=Param(float(b), beta_src),
        min_interval=Param(MIN_INTERVAL_S, "prior:time resolution of the Kolab graphs (1 s)"),
    )
    return model, hmm


def fit_reactions(sample: KolabSample) -> tuple[ReactionModel, ConcentrationFit]:
    """Fit the reaction model (module docstring) to a Kolab sample."""
    totals = sample.reaction_totals
    n = int(totals.sum())
    mean = totals / n
    counts = sample.participant_counts
    conc = fit_concentration(counts, mean)
    rate_src = [_src(sample, f"{int(k)}/{n} responses") for k in totals]
    kappa_src = _src(
        sample,
        f"Dirichlet-multinomial maximum marginal likelihood over {len(counts)} participants "
        "(mean fixed to the pooled shares)" + (" - at the search bound" if conc.at_bound else ""),
    )
    model = ReactionModel(
        adopt=Param(float(mean[0]), rate_src[0]),
        modify=Param(float(mean[1]), rate_src[1]),
        reject=Param(float(mean[2]), rate_src[2]),
        concentration=Param(conc.kappa, kappa_src),
    )
    return model, conc


def wilson_interval(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial share ``k / n`` (95 % by default); (NaN, NaN) when
    ``n`` is 0.

    ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with ``p = k / n``, clipped to
    [0, 1].
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def fit_check_shift(sample: KolabSample) -> CheckShift | None:
    """Fit the reaction shift by the own check (module docstring); None when the data has no
    responses in low- or in high-rated steps."""
    low, high = sample.reactions_low, sample.reactions_high
    n_low, n_high = int(low.sum()), int(high.sum())
    if n_low == 0 or n_high == 0:
        return None
    groups = {
        "agree": (high, n_high, f"steps rated quality > {LOW_QUALITY} (proxy: own check agrees)"),
        "disagree": (low, n_low, f"steps rated quality <= {LOW_QUALITY} (proxy: own check "
                                 "disagrees)"),
    }
    values: dict[str, Param] = {}
    for outcome, (counts, n, where) in groups.items():
        for k, label in enumerate(LABELS):
            x = int(counts[k])
            values[f"{outcome}_{label}"] = Param(
                x / n, _src(sample, f"{x}/{n} responses to AI outputs in {where}"),
                wilson_interval(x, n))
    n_rated = n_low + n_high
    values["disagree_share"] = Param(
        n_low / n_rated,
        _src(sample, f"{n_low}/{n_rated} rated responses in steps rated quality <= "
             f"{LOW_QUALITY}"), wilson_interval(n_low, n_rated))
    return CheckShift(**values)


def fit_lead_in(sample: KolabSample) -> LeadInModel | None:
    """Fit the lead-in model (module docstring); None without a session that has an AI node."""
    counts = sample.lead_in_actions
    if len(counts) == 0:
        return None
    led = counts[counts > 0]
    n = len(counts)
    return LeadInModel(
        probability=Param(len(led) / n, _src(
            sample, f"{len(led)}/{n} sessions with a human node before the first AI node")),
        actions_mean=Param(float(led.mean()) if len(led) else 1.0, _src(
            sample, f"{int(led.sum())} human nodes before the first AI node in {len(led)} "
            "sessions (geometric maximum likelihood: their mean)")),
    )


def _share(sample: KolabSample, k: int, n: int, what: str) -> Param:
    return Param(k / n, _src(sample, f"{k}/{n} {what}"), wilson_interval(k, n))


def fit_participation(sample: KolabSample) -> ParticipationModel | None:
    """Fit the participation model (module docstring); None without AI outputs or responses."""
    if (not sample.outputs or sample.responses == 0 or sample.ai_nodes == 0
            or sample.human_followed == 0):
        return None
    n_all = sum(n for n, _ in sample.outputs.values())
    k_all = sum(k for _, k in sample.outputs.values())
    rates: dict[str, Param] = {}
    for kind in OUTPUT_KINDS:
        n, k = sample.outputs.get(kind, (0, 0))
        if n:
            rates[f"respond_{kind}"] = _share(sample, k, n, f"AI outputs of kind {kind} answered")
        else:
            rates[f"respond_{kind}"] = _share(
                sample, k_all, n_all, f"AI outputs answered (all kinds: no {kind} outputs)")
    return ParticipationModel(
        **rates,
        delegate=_share(sample, sample.delegating, sample.responses,
                        "responses whose responder requests an AI output"),
        act_between=_share(sample, sample.ai_followed_by_human, sample.ai_nodes,
                           "AI nodes followed by a human node"),
        act_again=_share(sample, sample.human_continued, sample.human_followed,
                         "human nodes followed by a human node"),
        respond_final=_share(sample, sample.last_answered, sample.with_ai,
                             "sessions whose last AI output is answered"),
    )


def calibrate(sample: KolabSample) -> Calibration:
    """Fit the whole behaviour model to a Kolab sample."""
    timing, hmm = fit_timing(sample)
    reactions, conc = fit_reactions(sample)
    model = BehaviourModel(timing, reactions, fit_lead_in(sample), fit_check_shift(sample),
                           fit_participation(sample))
    return Calibration(model, sample, hmm, conc)
