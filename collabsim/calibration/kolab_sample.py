"""The figures calibration needs from real workflow graphs, read once.

Human event streams use the same conventions as the dynamics metrics
(:func:`collabsim.metrics.dynamics.human_event_times` and
:func:`~collabsim.metrics.dynamics.inter_event_intervals`); reactions are the graphs'
response triples grouped by participant (a professional's sessions pooled, because a
person's habits are what the per-person spread describes).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from collabsim.calibration.answered import ai_outputs, last_ai_responded, output_kind
from collabsim.graphs.model import WorkflowGraph
from collabsim.metrics.dynamics import (
    burstiness,
    human_event_times,
    inter_event_intervals,
    memory_coefficient,
)
from collabsim.participants.behaviour.reactions import LABELS

# Output-quality ratings (1-5) at or below this count as "the professional judged the output
# poor": 3 is the scale's neutral middle, so only 4 and 5 say the output was good.
LOW_QUALITY = 3


class CalibrationInputError(ValueError):
    """Input data cannot be used; the message (one line) names the file or folder."""


@dataclass(frozen=True)
class KolabSample:
    """What calibration reads from a set of real sessions.

    Attributes:
        file_name: Name of the source file (for parameter sources).
        session_ids: Session ids, in file order.
        intervals: Per session, the inter-event intervals of human events (seconds).
        burstiness: Per session, burstiness B of human events (NaN when undefined).
        memory: Per session, memory coefficient M of human events (NaN when undefined).
        duration_shares: For consecutive human nodes with a positive gap, the first node's
            duration divided by the gap (start to next start).
        reactions: Participant id -> counts ``[adopt, modify, reject]``.
        lead_in_actions: Per session with a timed AI node, the number of human nodes that
            start before the first AI node does (the session's solo lead-in).
        reactions_low: Pooled counts ``[adopt, modify, reject]`` of responses to AI outputs
            whose step the professional rated at most :data:`LOW_QUALITY` for output quality.
        reactions_high: The same for steps rated above it (unrated steps are in neither).
        outputs: AI-output kind (:func:`~collabsim.calibration.answered.output_kind`) ->
            ``(outputs, answered)`` counts.
        ai_nodes: Number of AI nodes.
        ai_followed_by_human: AI nodes with a sequential edge into a human node.
        responses: Number of responses.
        delegating: Responses whose responder is the source (the request) of an AI output.
        human_continued: Human nodes with a sequential edge into a human node.
        human_followed: Human nodes with a sequential edge out of them.
        last_answered: Sessions whose last AI output is answered
            (:func:`~collabsim.calibration.answered.last_ai_responded`).
        with_ai: Sessions with an AI output.
    """

    file_name: str
    session_ids: tuple[str, ...]
    intervals: tuple[np.ndarray, ...]
    burstiness: np.ndarray
    memory: np.ndarray
    duration_shares: np.ndarray
    reactions: dict[str, np.ndarray]
    lead_in_actions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    reactions_low: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=int))
    reactions_high: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=int))
    outputs: dict[str, tuple[int, int]] = field(default_factory=dict)
    ai_nodes: int = 0
    ai_followed_by_human: int = 0
    responses: int = 0
    delegating: int = 0
    human_continued: int = 0
    human_followed: int = 0
    last_answered: int = 0
    with_ai: int = 0

    @property
    def event_counts(self) -> np.ndarray:
        """Number of human events per session (intervals + 1)."""
        return np.array([len(t) + 1 for t in self.intervals])

    @property
    def reaction_totals(self) -> np.ndarray:
        """Pooled counts ``[adopt, modify, reject]``."""
        if not self.reactions:
            return np.zeros(3, dtype=int)
        return np.sum(list(self.reactions.values()), axis=0)

    @property
    def participant_counts(self) -> np.ndarray:
        """Participants x 3 count matrix (participants with at least one response)."""
        rows = [c for c in self.reactions.values() if c.sum() > 0]
        return np.array(rows, dtype=int).reshape(-1, 3)


def _duration_shares(graph: WorkflowGraph) -> list[float]:
    humans = sorted(
        (n for n in graph.nodes if n.actor_type == "human" and n.start is not None),
        key=lambda n: n.start,  # type: ignore[arg-type, return-value]
    )
    out = []
    for a, b in zip(humans, humans[1:], strict=False):
        gap = float(b.start) - float(a.start)  # type: ignore[arg-type]
        if gap > 0:
            out.append((float(a.end) - float(a.start)) / gap)  # type: ignore[arg-type]
    return out


def _lead_in_actions(graph: WorkflowGraph) -> int | None:
    """Human nodes starting before the first AI node (None: no timed AI node)."""
    timed = [n for n in graph.nodes if n.start is not None]
    ai = [float(n.start) for n in timed if n.actor_type == "ai"]  # type: ignore[arg-type]
    if not ai:
        return None
    first = min(ai)
    return sum(1 for n in timed if n.actor_type == "human" and float(n.start) < first)  # type: ignore[arg-type]


def _output_quality(graph: WorkflowGraph, ai_node: str) -> int | None:
    """The quality rating of the step AI node ``ai_node`` belongs to (None: unrated)."""
    node = next((n for n in graph.nodes if n.id == ai_node), None)
    if node is None or node.step is None:
        return None
    try:
        return graph.step(node.step).quality
    except KeyError:
        return None


#: The participation counts of a sample (KolabSample fields), summed over its graphs.
_PARTICIPATION_FIELDS = ("ai_nodes", "ai_followed_by_human", "responses", "delegating",
                         "human_continued", "human_followed", "last_answered", "with_ai")


def _participation(graph: WorkflowGraph, outputs: Counter[tuple[str, bool]]) -> Counter[str]:
    """Add the graph's AI outputs by (kind, answered) to ``outputs``; return the graph's
    participation counts under their :class:`KolabSample` field names."""
    answered = {r.ai_node for r in graph.responses}
    for output in ai_outputs(graph):
        outputs[(output_kind(output[0]), any(n.id in answered for n in output))] += 1
    kind = {n.id: n.actor_type for n in graph.nodes}
    ai = [n.id for n in graph.nodes if n.actor_type == "ai"]
    followed = {e.source for e in graph.edges
                if e.type == "sequential" and kind.get(e.source) == "ai"
                and kind.get(e.target) == "human"}
    sources = {r.source for r in graph.responses if r.source is not None}
    delegating = sum(1 for r in graph.responses if r.responder in sources)
    after_human = [e for e in graph.edges if e.type == "sequential"
                   and kind.get(e.source) == "human"]
    continued = {e.source for e in after_human if kind.get(e.target) == "human"}
    last = last_ai_responded(graph)
    return Counter({
        "ai_nodes": len(ai), "ai_followed_by_human": len(followed),
        "responses": len(graph.responses), "delegating": delegating,
        "human_continued": len(continued), "human_followed": len({e.source for e in after_human}),
        "last_answered": int(last == 1.0), "with_ai": int(last == last),  # nan: no AI output
    })


def sample_from_graphs(graphs: Sequence[WorkflowGraph], file_name: str) -> KolabSample:
    """Collect the calibration figures of ``graphs``.

    Raises:
        CalibrationInputError: When there are no sessions, no human intervals or no responses.
    """
    if not graphs:
        raise CalibrationInputError(f"{file_name}: no sessions")
    intervals, bursts, memories, shares = [], [], [], []
    lead_ins: list[int] = []
    reactions: dict[str, Counter[str]] = {}
    by_rating: dict[str, Counter[str]] = {"low": Counter(), "high": Counter()}
    outputs: Counter[tuple[str, bool]] = Counter()
    part: Counter[str] = Counter()
    for g in graphs:
        part.update(_participation(g, outputs))
        times = human_event_times(g)
        intervals.append(inter_event_intervals(times))
        bursts.append(burstiness(times))
        memories.append(memory_coefficient(times))
        shares.extend(_duration_shares(g))
        if (lead := _lead_in_actions(g)) is not None:
            lead_ins.append(lead)
        person = g.session.participant_id or g.session.session_id
        counter = reactions.setdefault(person, Counter())
        counter.update(r.label for r in g.responses)
        for r in g.responses:
            quality = _output_quality(g, r.ai_node)
            if quality is not None:
                by_rating["low" if quality <= LOW_QUALITY else "high"][r.label] += 1
    if sum(len(t) for t in intervals) < 3:
        raise CalibrationInputError(f"{file_name}: fewer than 3 gaps between human events")
    if not any(sum(c.values()) for c in reactions.values()):
        raise CalibrationInputError(f"{file_name}: no adopt/modify/reject responses")
    return KolabSample(
        file_name=file_name,
        session_ids=tuple(g.session.session_id for g in graphs),
        intervals=tuple(intervals),
        burstiness=np.array(bursts, dtype=float),
        memory=np.array(memories, dtype=float),
        duration_shares=np.array(shares, dtype=float),
        reactions={p: np.array([c[k] for k in LABELS], dtype=int) for p, c in reactions.items()},
        lead_in_actions=np.array(lead_ins, dtype=int),
        reactions_low=np.array([by_rating["low"][k] for k in LABELS], dtype=int),
        reactions_high=np.array([by_rating["high"][k] for k in LABELS], dtype=int),
        outputs={k: (outputs[(k, False)] + outputs[(k, True)], outputs[(k, True)])
                 for k in sorted({k for k, _ in outputs})},
        **{name: part[name] for name in _PARTICIPATION_FIELDS},
    )


def load_kolab_sample(path: str | Path) -> tuple[list[WorkflowGraph], KolabSample]:
    """Read a Kolab explorer dataset file and collect its calibration figures.

    Data-quality warnings of the reader (documented quirks of the source) are silenced.

    Raises:
        CalibrationInputError: One line naming the file when it is missing, unreadable,
            empty or lacks the figures calibration needs.
    """
    from collabsim.graphs.explorer_io import load_explorer
    from collabsim.graphs.kolab_common import KolabFormatError

    path = Path(path)
    if not path.is_file():
        raise CalibrationInputError(f"{path}: no such Kolab file")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graphs = load_explorer(path)
    except (KolabFormatError, ValueError) as err:
        raise CalibrationInputError(" ".join(str(err).split())) from None
    if not graphs:
        raise CalibrationInputError(f"{path}: the Kolab file has no sessions")
    try:
        return graphs, sample_from_graphs(graphs, path.name)
    except CalibrationInputError as err:
        raise CalibrationInputError(f"{path}: {str(err).split(': ', 1)[-1]}") from None
