"""Fidelity: how far simulated sessions are from real ones, on dynamics both have.

Every session (real Kolab graph or simulated trace converted with
:func:`collabsim.graphs.from_trace.graph_from_trace_file`) gives one value per metric:

========================  ==============================================================
``human_burstiness``      B of human events (:func:`collabsim.metrics.dynamics.burstiness`)
``human_memory``          memory coefficient M of human events
``h_cross``               crossing share ``|E_x| / |E|``
``retention_strict``      adopt / responses
``retention_broad``       (adopt + modify) / responses
``solo_lead_in``          share of a step elapsed before its first AI node, mean over steps
``response_time_q50``     median human response time (below)
``response_time_q90``     90 % quantile of it
``ai_response_share``     share of the AI outputs some response answers
``last_ai_responded``     1 when the session's last AI output is answered, else 0
========================  ==============================================================

*Human response time* to an AI output: for every crossing edge from an AI node ``u`` to a
human node ``v`` (v directly follows from u), ``max(0, end(v) - end(u))`` seconds - the time
from the AI output being there to the human's reaction being done. (Start-to-end gaps are
no use here: Kolab nodes abut, so ``start(v) - end(u)`` is 0 for 98 % of such edges.)

*AI outputs* and when one is answered: :mod:`collabsim.calibration.answered` (a Kolab AI
node is one output; in simulated graphs an ungated submission and the agent's assent to a
memory entry are none, a gated request and its approved outcome are one, and a draft's chat
announcement belongs to the draft). ``last_ai_responded`` is binary, so its comparison is
one of two shares: :func:`share_comparison` gives each with a 95 % Wilson interval.

Simulated sessions without a simulated human (the single agent: team ``single``; without a
team label, a session without any human node) have no human-AI dynamics and are left out
(and counted). A team session whose humans never got an action in (the agent finished first)
is kept: its human metrics are undefined, its crossing share and lead-in are not. Undefined
values (NaN: too few events, no responses, no AI node) are left out of the distributions and
counted. For each metric the two distributions are compared with the two-sample
Kolmogorov-Smirnov test (statistic D in [0, 1] and its p-value) and the Wasserstein-1
distance (in the metric's unit), whose *chance level* is the 95 % quantile of the distance
between random splits of the pooled values into groups of the two sizes (a permutation null:
what the distance would be if both came from one distribution).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from collabsim.calibration.answered import (
    ANSWERED_METRICS,
    ai_response_share,
    last_ai_responded,
)
from collabsim.calibration.fit import wilson_interval
from collabsim.graphs.model import WorkflowGraph
from collabsim.metrics.dynamics import dynamics_row, retention

FIDELITY_METRICS: dict[str, str] = {
    "human_burstiness": "human-action burstiness B",
    "human_memory": "human-action memory coefficient M",
    "h_cross": "crossing share H_cross",
    "retention_strict": "retention strict (adopt share)",
    "retention_broad": "retention broad (adopt + modify share)",
    "solo_lead_in": "solo lead-in",
    "response_time_q50": "human response time, median (s)",
    "response_time_q90": "human response time, 90 % quantile (s)",
    **ANSWERED_METRICS,
}
BINARY_METRICS = frozenset({"last_ai_responded"})
_FROM_DYNAMICS = (
    "human_burstiness",
    "human_memory",
    "h_cross",
    "retention_strict",
    "retention_broad",
    "solo_lead_in",
)
NULL_PERMUTATIONS = 500


def response_times(graph: WorkflowGraph) -> np.ndarray:
    """Human response times of a graph (module docstring), one per AI -> human edge."""
    out = []
    for e in graph.edges:
        u, v = graph.node(e.source), graph.node(e.target)
        if u.actor_type == "ai" and v.actor_type == "human" and None not in (u.end, v.end):
            out.append(max(0.0, v.end - u.end))  # type: ignore[operator]
    return np.array(out, dtype=float)


def session_metrics(graph: WorkflowGraph) -> dict[str, Any]:
    """The fidelity metrics of one session, keyed as :data:`FIDELITY_METRICS`."""
    dyn = dynamics_row(graph)
    row: dict[str, Any] = {"session_id": graph.session.session_id}
    row.update({k: float(dyn[k]) for k in _FROM_DYNAMICS})
    rt = response_times(graph)
    row["response_time_q50"] = float(np.quantile(rt, 0.5)) if len(rt) else math.nan
    row["response_time_q90"] = float(np.quantile(rt, 0.9)) if len(rt) else math.nan
    row["ai_response_share"] = ai_response_share(graph)
    row["last_ai_responded"] = last_ai_responded(graph)
    return row


@dataclass(frozen=True)
class MetricComparison:
    """Real against simulated distribution of one metric.

    Attributes:
        metric: Metric key.
        label: Human-readable name.
        real: Defined real values.
        sim: Defined simulated values.
        real_undefined: Real sessions where the metric is undefined.
        sim_undefined: Simulated sessions where it is undefined.
        ks_stat: KS statistic D (NaN when a side has no values).
        ks_p: Its p-value.
        wasserstein: Wasserstein-1 distance.
        wasserstein_null95: 95 % quantile of the distance under the permutation null.
    """

    metric: str
    label: str
    real: np.ndarray
    sim: np.ndarray
    real_undefined: int
    sim_undefined: int
    ks_stat: float
    ks_p: float
    wasserstein: float
    wasserstein_null95: float

    @property
    def comparable(self) -> bool:
        """Both sides have at least one value."""
        return len(self.real) > 0 and len(self.sim) > 0

    @property
    def verdict(self) -> str:
        """One-phrase reading of the comparison."""
        if not len(self.sim):
            return "not measurable in the simulation"
        if not len(self.real):
            return "not measurable in the real data"
        if self.ks_p < 0.05 or self.wasserstein > self.wasserstein_null95:
            return "differs"
        return "no detectable difference"


def _null_w95(real: np.ndarray, sim: np.ndarray, rng: np.random.Generator) -> float:
    pooled = np.concatenate([real, sim])
    n = len(real)
    null = np.empty(NULL_PERMUTATIONS)
    for i in range(NULL_PERMUTATIONS):
        perm = rng.permutation(pooled)
        null[i] = stats.wasserstein_distance(perm[:n], perm[n:])
    return float(np.quantile(null, 0.95))


def compare_metric(
    metric: str, real: Sequence[float], sim: Sequence[float], *, seed: int = 0
) -> MetricComparison:
    """Compare the real and simulated values of one metric (NaNs are counted, then dropped)."""
    r = np.asarray(real, dtype=float)
    s = np.asarray(sim, dtype=float)
    r_ok, s_ok = r[~np.isnan(r)], s[~np.isnan(s)]
    nan = math.nan
    ks_stat = ks_p = w = w95 = nan
    if len(r_ok) and len(s_ok):
        ks = stats.ks_2samp(r_ok, s_ok)
        ks_stat, ks_p = float(ks.statistic), float(ks.pvalue)
        w = float(stats.wasserstein_distance(r_ok, s_ok))
        w95 = _null_w95(r_ok, s_ok, np.random.default_rng(seed))
    return MetricComparison(
        metric=metric,
        label=FIDELITY_METRICS.get(metric, metric),
        real=r_ok,
        sim=s_ok,
        real_undefined=int(len(r) - len(r_ok)),
        sim_undefined=int(len(s) - len(s_ok)),
        ks_stat=ks_stat,
        ks_p=ks_p,
        wasserstein=w,
        wasserstein_null95=w95,
    )


@dataclass(frozen=True)
class ShareComparison:
    """Real against simulated share of sessions where a binary metric is 1.

    Attributes:
        metric: Metric key.
        real_hits: Real sessions with value 1.
        real_n: Real sessions where the metric is defined.
        sim_hits: Simulated sessions with value 1.
        sim_n: Simulated sessions where it is defined.
    """

    metric: str
    real_hits: int
    real_n: int
    sim_hits: int
    sim_n: int

    @property
    def real_share(self) -> float:
        """Real share (NaN without real values)."""
        return self.real_hits / self.real_n if self.real_n else math.nan

    @property
    def sim_share(self) -> float:
        """Simulated share (NaN without simulated values)."""
        return self.sim_hits / self.sim_n if self.sim_n else math.nan

    @property
    def real_ci(self) -> tuple[float, float]:
        """95 % Wilson interval of the real share."""
        return wilson_interval(self.real_hits, self.real_n)

    @property
    def sim_ci(self) -> tuple[float, float]:
        """95 % Wilson interval of the simulated share."""
        return wilson_interval(self.sim_hits, self.sim_n)


def share_comparison(comp: MetricComparison) -> ShareComparison:
    """The two shares of a binary (0/1) metric's comparison."""
    return ShareComparison(
        comp.metric,
        int(np.sum(comp.real == 1.0)),
        len(comp.real),
        int(np.sum(comp.sim == 1.0)),
        len(comp.sim),
    )


@dataclass(frozen=True)
class AdoptCheck:
    """Pooled simulated adopt share against the real per-participant range."""

    sim_adopt: int
    sim_total: int
    real_min: float
    real_max: float
    real_pooled: float

    @property
    def sim_share(self) -> float:
        """Simulated adopt share (NaN without simulated responses)."""
        return self.sim_adopt / self.sim_total if self.sim_total else math.nan

    @property
    def within(self) -> bool | None:
        """Whether the simulated share lies in the real range (None: no simulated responses)."""
        if not self.sim_total:
            return None
        return self.real_min <= self.sim_share <= self.real_max


def adopt_check(real: Sequence[WorkflowGraph], sim: Sequence[WorkflowGraph]) -> AdoptCheck:
    """Simulated adopt share (all responses pooled) against real per-participant shares."""
    per: dict[str, list[int]] = {}
    for g in real:
        ret = retention(g)
        acc = per.setdefault(g.session.participant_id or g.session.session_id, [0, 0])
        acc[0] += ret.adopt
        acc[1] += ret.total
    shares = [a / n for a, n in per.values() if n]
    adopt = sum(retention(g).adopt for g in sim)
    total = sum(retention(g).total for g in sim)
    lo = min(shares) if shares else math.nan
    hi = max(shares) if shares else math.nan
    real_total = sum(n for _, n in per.values())
    pooled = sum(a for a, _ in per.values()) / real_total if real_total else math.nan
    return AdoptCheck(adopt, total, lo, hi, pooled)


@dataclass(frozen=True)
class Fidelity:
    """Everything the fidelity report shows."""

    real_rows: list[dict[str, Any]]
    sim_rows: list[dict[str, Any]]
    comparisons: list[MetricComparison]
    adopt: AdoptCheck
    sim_without_humans: int = 0
    real_edges: Mapping[str, int] = field(default_factory=dict)
    sim_edges: Mapping[str, int] = field(default_factory=dict)


EDGE_KINDS: tuple[str, ...] = ("human->human", "human->ai", "ai->human", "ai->ai")


def edge_counts(graphs: Sequence[WorkflowGraph]) -> dict[str, int]:
    """Edges pooled over ``graphs`` by the actor types of their ends (``"ai->ai"``, ...), keyed
    as :data:`EDGE_KINDS`: the AI -> AI share says whether the AI works in unbroken chains
    (2 of 1,242 Kolab edges) or waits for the person."""
    out = dict.fromkeys(EDGE_KINDS, 0)
    for g in graphs:
        kind = {n.id: n.actor_type for n in g.nodes}
        for e in g.edges:
            key = f"{kind.get(e.source)}->{kind.get(e.target)}"
            if key in out:
                out[key] += 1
    return out


def _has_simulated_human(g: WorkflowGraph) -> bool:
    team = g.session.extra.get("team")
    if team is not None:
        return str(team) != "single"
    return any(n.actor_type == "human" for n in g.nodes)


def fidelity(
    real: Sequence[WorkflowGraph], sim: Sequence[WorkflowGraph], *, seed: int = 0
) -> Fidelity:
    """Compute every fidelity metric on both sides and compare them.

    Simulated sessions without a human node are dropped (module docstring).
    """
    with_humans = [g for g in sim if _has_simulated_human(g)]
    dropped = len(sim) - len(with_humans)
    sim = with_humans
    real_rows = [session_metrics(g) for g in real]
    sim_rows = [session_metrics(g) for g in sim]
    for row, g in zip(sim_rows, sim, strict=True):
        row["team"] = str(g.session.extra.get("team", g.session.participant_id))
        row["structure"] = str(g.session.extra.get("structure", ""))
    comps = [
        compare_metric(m, [r[m] for r in real_rows], [r[m] for r in sim_rows], seed=seed)
        for m in FIDELITY_METRICS
    ]
    return Fidelity(real_rows, sim_rows, comps, adopt_check(real, sim), dropped,
                    edge_counts(real), edge_counts(with_humans))
