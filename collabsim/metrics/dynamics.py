"""Collaboration-dynamics metrics over a :class:`~collabsim.graphs.model.WorkflowGraph`.

Pure functions; the same code runs on real (Kolab) and simulated graphs. Notation: ``E`` is
the edge list with duplicates kept (a repeated edge counts every time), ``E_x`` the crossing
edges (ends of different actor type).

Conventions (they reproduce the figures the Kolab graph explorer prints; see
``tests/metrics/test_dynamics.py``):

* Event times. *Human events* are the start times of human nodes, one per node (a node with
  several intervals counts once, at its earliest start; equal times are kept, giving zero
  gaps). *Handoff events* are the start times of the distinct target nodes of crossing edges
  (a node entered by several crossing edges is one handoff). Nodes without time are left
  out of both streams.
* Inter-event intervals: sort the event times, ``tau_i = t_(i+1) - t_(i)``.
* Standard deviations are population ones (``ddof = 0``).
* Undefined values are NaN: burstiness with fewer than 2 events or ``sigma + mu = 0``; the
  memory coefficient with fewer than 3 events or a zero-variance gap sequence; ratios over
  zero edges / responses; solo lead-in without any step that has an AI node.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from collabsim.graphs.model import Node, WorkflowGraph

NAN = float("nan")

DYNAMICS_COLUMNS: tuple[str, ...] = (
    "session_id",
    "edges_total",
    "edges_crossing",
    "h_cross",
    "density_w",
    "branch",
    "merge",
    "loop",
    "human_events",
    "human_burstiness",
    "human_memory",
    "handoff_events",
    "handoff_burstiness",
    "handoff_memory",
    "responses_adopt",
    "responses_modify",
    "responses_total",
    "retention_strict",
    "retention_broad",
    "topology_w",
    "solo_lead_in",
)


def _ratio(num: float, den: float) -> float:
    return num / den if den else NAN


# --------------------------------------------------------------------------- edges / topology


def edges_total(graph: WorkflowGraph) -> int:
    """Number of edges, duplicates included: ``|E|``."""
    return len(graph.edges)


def edges_crossing(graph: WorkflowGraph) -> int:
    """Number of crossing edges ``|E_x|``: edges ``(u, v)`` with ``type(u) != type(v)``.

    Duplicates count; loop edges count when they cross.
    """
    return sum(1 for e in graph.edges if graph.is_crossing(e))


def crossing_share(graph: WorkflowGraph) -> float:
    """Human-agent transition share ``H_cross = |E_x| / |E|`` (NaN when ``|E| = 0``)."""
    return _ratio(edges_crossing(graph), edges_total(graph))


def branch_count(graph: WorkflowGraph) -> int:
    """Branch points ``Br = |{u : out_seq(u) > 1}|``.

    ``out_seq(u)`` counts u's outgoing non-loop edges, duplicates included.
    """
    out = Counter(e.source for e in graph.edges if e.type != "loop")
    return sum(1 for k in out.values() if k > 1)


def merge_count(graph: WorkflowGraph) -> int:
    """Merge points ``Mg = |{v : in(v) > 1}|``; ``in(v)`` counts all incoming edges
    (loop edges and duplicates included)."""
    inc = Counter(e.target for e in graph.edges)
    return sum(1 for k in inc.values() if k > 1)


def loop_count(graph: WorkflowGraph) -> int:
    """Loop edges ``L = |{e in E : type(e) = loop}|`` (duplicates included)."""
    return sum(1 for e in graph.edges if e.type == "loop")


def topology_w(graph: WorkflowGraph) -> float:
    """Topology ``W = Br / |E|`` (NaN when ``|E| = 0``)."""
    return _ratio(branch_count(graph), edges_total(graph))


def density_w(graph: WorkflowGraph) -> float:
    """Workflow density ``W_density = (Br + L) / |E|`` (NaN when ``|E| = 0``)."""
    return _ratio(branch_count(graph) + loop_count(graph), edges_total(graph))


# --------------------------------------------------------------------------- event streams


def human_event_times(graph: WorkflowGraph) -> list[float]:
    """Start times of human nodes, sorted, one per node (ties kept, untimed nodes skipped)."""
    return sorted(n.start for n in graph.nodes if n.actor_type == "human" and n.start is not None)


def handoff_event_times(graph: WorkflowGraph, *, distinct_targets: bool = True) -> list[float]:
    """Handoff event times, sorted.

    Args:
        graph: The graph.
        distinct_targets: True (the definition used in the dynamics row): the start times of
            the distinct target nodes of crossing edges - a node entered by several crossing
            edges is one handoff. False: one event per crossing edge (duplicates included),
            at its target's start.
    """
    targets = [e.target for e in graph.edges if graph.is_crossing(e)]
    if distinct_targets:
        targets = list(dict.fromkeys(targets))
    starts = (graph.node(t).start for t in targets)
    return sorted(s for s in starts if s is not None)


def inter_event_intervals(times: Iterable[float]) -> np.ndarray:
    """Gaps between consecutive sorted event times: ``tau_i = t_(i+1) - t_(i)``."""
    t = np.sort(np.asarray(list(times), dtype=float))
    return np.diff(t)


def burstiness(times: Iterable[float]) -> float:
    """Goh-Barabasi burstiness of an event stream.

    ``B = (sigma - mu) / (sigma + mu)`` with ``mu`` and ``sigma`` the mean and population
    standard deviation of the inter-event intervals ``tau``. ``B = -1`` for perfectly regular
    events, about 0 for a Poisson process, towards 1 for bursts.

    Returns:
        B, or NaN with fewer than 2 events or when ``sigma + mu = 0`` (all events at once).
    """
    tau = inter_event_intervals(times)
    if len(tau) < 1:
        return NAN
    mu, sigma = float(tau.mean()), float(tau.std())
    return _ratio(sigma - mu, sigma + mu)


def memory_coefficient(times: Iterable[float]) -> float:
    """Goh-Barabasi memory coefficient of an event stream.

    With ``n`` intervals ``tau_1..tau_n``::

        M = 1/(n-1) * sum_{i=1}^{n-1} (tau_i - m1) (tau_(i+1) - m2) / (sigma1 sigma2)

    where ``m1, sigma1`` (``m2, sigma2``) are the mean and population standard deviation of
    ``tau_1..tau_(n-1)`` (``tau_2..tau_n``): the Pearson correlation of consecutive gaps.

    Returns:
        M, or NaN with fewer than 3 events or when either gap sequence has zero variance.
    """
    tau = inter_event_intervals(times)
    if len(tau) < 2:
        return NAN
    a, b = tau[:-1], tau[1:]
    s1, s2 = float(a.std()), float(b.std())
    if s1 == 0 or s2 == 0:
        return NAN
    return float(np.mean((a - a.mean()) * (b - b.mean())) / (s1 * s2))


# --------------------------------------------------------------------------- responses


@dataclass(frozen=True)
class Retention:
    """Response counts and retention shares (shares are NaN without responses)."""

    adopt: int
    modify: int
    reject: int
    total: int

    @property
    def strict(self) -> float:
        """``adopt / total``."""
        return _ratio(self.adopt, self.total)

    @property
    def broad(self) -> float:
        """``(adopt + modify) / total``."""
        return _ratio(self.adopt + self.modify, self.total)

    @property
    def modify_share(self) -> float:
        """``modify / total``."""
        return _ratio(self.modify, self.total)

    @property
    def reject_share(self) -> float:
        """``reject / total``."""
        return _ratio(self.reject, self.total)


def retention(graph: WorkflowGraph) -> Retention:
    """AI retention over all response triples (duplicates kept).

    ``strict = n_adopt / n``, ``broad = (n_adopt + n_modify) / n``, ``n`` = all responses.
    """
    counts = Counter(r.label for r in graph.responses)
    return Retention(
        adopt=counts["adopt"],
        modify=counts["modify"],
        reject=counts["reject"],
        total=len(graph.responses),
    )


# --------------------------------------------------------------------------- solo lead-in


def _step_groups(graph: WorkflowGraph) -> dict[str | None, list[Node]]:
    groups: dict[str | None, list[Node]] = {}
    for node in graph.nodes:
        groups.setdefault(node.step, []).append(node)
    return groups


def step_lead_ins(graph: WorkflowGraph) -> dict[str | None, float]:
    """Solo lead-in of every step that has a timed AI node.

    For a step with span ``[s, e]`` and first AI node start ``a``::

        lead_in = clip((a - s) / (e - s), 0, 1)

    The span is the step's ``time_range`` when recorded, else ``[min start, max end]`` of
    its nodes. Nodes are grouped by ``Node.step``; nodes without a step form one implicit
    step (key None), so a session without step rows is one step. A zero-length span gives
    NaN for that step.
    """
    out: dict[str | None, float] = {}
    keyed = {s.key: s for s in graph.steps}
    for key, nodes in _step_groups(graph).items():
        ai_starts = [n.start for n in nodes if n.actor_type == "ai" and n.start is not None]
        if not ai_starts:
            continue
        step = keyed.get(key) if key is not None else None
        if step is not None and step.time_range is not None:
            lo, hi = step.time_range
        else:
            starts = [n.start for n in nodes if n.start is not None]
            ends = [n.end for n in nodes if n.end is not None]
            lo, hi = min(starts), max(ends)
        if hi <= lo:
            out[key] = NAN
            continue
        out[key] = min(1.0, max(0.0, (min(ai_starts) - lo) / (hi - lo)))
    return out


def solo_lead_in(graph: WorkflowGraph) -> float:
    """Mean solo lead-in over steps with an AI node (see :func:`step_lead_ins`).

    ``solo_lead_in = mean_k lead_in_k`` over steps ``k`` with a defined value; NaN if none.
    """
    values = [v for v in step_lead_ins(graph).values() if not math.isnan(v)]
    return float(np.mean(values)) if values else NAN


# --------------------------------------------------------------------------- one row


def dynamics_row(graph: WorkflowGraph) -> dict[str, Any]:
    """All dynamics figures of one graph, keyed by :data:`DYNAMICS_COLUMNS` (in that order)."""
    human = human_event_times(graph)
    handoff = handoff_event_times(graph)
    ret = retention(graph)
    row: dict[str, Any] = {
        "session_id": graph.session.session_id,
        "edges_total": edges_total(graph),
        "edges_crossing": edges_crossing(graph),
        "h_cross": crossing_share(graph),
        "density_w": density_w(graph),
        "branch": branch_count(graph),
        "merge": merge_count(graph),
        "loop": loop_count(graph),
        "human_events": len(human),
        "human_burstiness": burstiness(human),
        "human_memory": memory_coefficient(human),
        "handoff_events": len(handoff),
        "handoff_burstiness": burstiness(handoff),
        "handoff_memory": memory_coefficient(handoff),
        "responses_adopt": ret.adopt,
        "responses_modify": ret.modify,
        "responses_total": ret.total,
        "retention_strict": ret.strict,
        "retention_broad": ret.broad,
        "topology_w": topology_w(graph),
        "solo_lead_in": solo_lead_in(graph),
    }
    assert tuple(row) == DYNAMICS_COLUMNS
    return row


def dynamics_rows(graphs: Sequence[WorkflowGraph]) -> list[dict[str, Any]]:
    """:func:`dynamics_row` for each graph."""
    return [dynamics_row(g) for g in graphs]
