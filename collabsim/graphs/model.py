"""The workflow graph: one data model for simulated sessions and real (Kolab) sessions.

A :class:`WorkflowGraph` is a directed temporal multigraph of work *nodes* (who did what,
when) joined by *edges* (``v`` directly follows from ``u``), grouped into *steps*, with
*responses* recording how a human acted on an AI node's output. Edges keep duplicates
because the real data repeats edges and the repeats count in its totals; underneath sits a
``networkx.MultiDiGraph`` (a ``DiGraph`` that can hold parallel edges).

The records are frozen dataclasses; readers and writers live in sibling modules.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import networkx as nx

ActorType = Literal["human", "ai"]
EdgeType = Literal["sequential", "loop"]
ResponseLabel = Literal["adopt", "modify", "reject"]
RESPONSE_LABELS: tuple[ResponseLabel, ...] = ("adopt", "modify", "reject")


@dataclass(frozen=True)
class SessionInfo:
    """Who worked on what.

    Attributes:
        session_id: Unique id of the session (``"p1|session1"`` for Kolab).
        participant_id: The professional / simulated team id.
        occupation: Occupation (Kolab) or team description (simulation).
        domain: Occupational category (Kolab) or task domain (simulation).
        goal: The session's goal or query, when known.
        extra: Any further source fields, kept so round trips lose nothing.
    """

    session_id: str
    participant_id: str = ""
    occupation: str = ""
    domain: str = ""
    goal: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Step:
    """A step (phase) of the workflow, with the human's optional 1-5 ratings.

    Attributes:
        key: Stable key nodes refer to (``"0"``, ``"1"``, ... for Kolab step indices).
        name: Human-readable step name.
        labels: Source row labels (a Kolab row can group several steps).
        time_range: ``(start, end)`` in seconds, or None when not recorded.
        collaboration: Collaboration-satisfaction rating 1-5, or None.
        quality: Output-quality rating 1-5, or None.
    """

    key: str
    name: str
    labels: tuple[str, ...] = ()
    time_range: tuple[float, float] | None = None
    collaboration: int | None = None
    quality: int | None = None


@dataclass(frozen=True)
class Node:
    """One unit of work by one actor.

    Attributes:
        id: Node id, unique within its graph.
        actor: Who acted (``"user"``, ``"claude"``, ``"agent"``, ``"D"``, ``"R"``, ...).
        actor_type: ``"human"`` or ``"ai"``.
        label: Short description.
        detail: Longer description.
        intervals: One or more ``(start, end)`` time intervals in seconds, sorted by start.
        step: Key of the step the node belongs to, or None.
        softwares: Tools used.
        extra: Further source fields (e.g. Kolab ``source_steps``), kept for round trips.
    """

    id: str
    actor: str
    actor_type: ActorType
    label: str = ""
    detail: str = ""
    intervals: tuple[tuple[float, float], ...] = ()
    step: str | None = None
    softwares: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def start(self) -> float | None:
        """Earliest interval start, or None when the node has no time."""
        return min((s for s, _ in self.intervals), default=None)

    @property
    def end(self) -> float | None:
        """Latest interval end, or None when the node has no time."""
        return max((e for _, e in self.intervals), default=None)


@dataclass(frozen=True)
class Edge:
    """``target`` directly follows from ``source``; ``type`` is sequential or loop."""

    source: str
    target: str
    type: EdgeType = "sequential"


@dataclass(frozen=True)
class Response:
    """How human node ``responder`` acted on the output of AI node ``ai_node``.

    ``source`` is the human node that requested that output, or None when the human acted
    on an earlier output without a new request.
    """

    responder: str
    source: str | None
    ai_node: str
    label: ResponseLabel


class WorkflowGraph:
    """A typed, immutable-by-convention wrapper over a ``networkx.MultiDiGraph``.

    Args:
        session: Session information.
        steps: Steps in workflow order.
        nodes: Nodes (ids must be unique).
        edges: Edges, duplicates kept and counted.
        responses: Response triples, duplicates kept.
        warnings: Data-quality notes collected while building the graph.

    Raises:
        ValueError: If node ids repeat, or an edge or response names an unknown node.
    """

    def __init__(
        self,
        session: SessionInfo,
        steps: Iterable[Step] = (),
        nodes: Iterable[Node] = (),
        edges: Iterable[Edge] = (),
        responses: Iterable[Response] = (),
        warnings: Iterable[str] = (),
    ) -> None:
        self.session = session
        self.steps: tuple[Step, ...] = tuple(steps)
        self._nodes: dict[str, Node] = {}
        for node in nodes:
            if node.id in self._nodes:
                raise ValueError(f"session {session.session_id}: duplicate node id {node.id!r}")
            self._nodes[node.id] = node
        self.edges: tuple[Edge, ...] = tuple(edges)
        self.responses: tuple[Response, ...] = tuple(responses)
        self.warnings: tuple[str, ...] = tuple(warnings)
        for edge in self.edges:
            for end in (edge.source, edge.target):
                if end not in self._nodes:
                    raise ValueError(
                        f"session {session.session_id}: edge {edge.source}->{edge.target} "
                        f"names unknown node {end!r}"
                    )
        for resp in self.responses:
            for end in (resp.responder, resp.ai_node, resp.source):
                if end is not None and end not in self._nodes:
                    raise ValueError(
                        f"session {session.session_id}: response names unknown node {end!r}"
                    )
        self._nx: nx.MultiDiGraph | None = None

    @property
    def nodes(self) -> tuple[Node, ...]:
        """Nodes in insertion order."""
        return tuple(self._nodes.values())

    def node(self, node_id: str) -> Node:
        """Return the node with id ``node_id``; raises KeyError naming the session."""
        try:
            return self._nodes[node_id]
        except KeyError:
            raise KeyError(f"session {self.session.session_id}: no node {node_id!r}") from None

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __iter__(self) -> Iterator[Node]:
        return iter(self._nodes.values())

    def __len__(self) -> int:
        return len(self._nodes)

    def step(self, key: str) -> Step:
        """Return the step with key ``key``."""
        for step in self.steps:
            if step.key == key:
                return step
        raise KeyError(f"session {self.session.session_id}: no step {key!r}")

    def is_crossing(self, edge: Edge) -> bool:
        """True when the edge's ends have different actor types (derived, never stored)."""
        return self._nodes[edge.source].actor_type != self._nodes[edge.target].actor_type

    def to_networkx(self) -> nx.MultiDiGraph:
        """The graph as a ``networkx.MultiDiGraph`` (cached; do not mutate).

        Node attributes are the :class:`Node` fields; each parallel edge carries ``type``.
        """
        if self._nx is None:
            g = nx.MultiDiGraph(session_id=self.session.session_id)
            for node in self._nodes.values():
                g.add_node(
                    node.id,
                    actor=node.actor,
                    actor_type=node.actor_type,
                    label=node.label,
                    step=node.step,
                    intervals=node.intervals,
                )
            for edge in self.edges:
                g.add_edge(edge.source, edge.target, type=edge.type)
            self._nx = g
        return self._nx

    def subgraph(self, node_ids: Iterable[str], *, keep_steps: bool = True) -> WorkflowGraph:
        """Return the graph restricted to ``node_ids`` (edges and responses between them).

        Args:
            node_ids: Nodes to keep (unknown ids are ignored).
            keep_steps: Keep all steps (True) or only those some kept node belongs to.
        """
        keep = {n for n in node_ids if n in self._nodes}
        nodes = [n for n in self._nodes.values() if n.id in keep]
        edges = [e for e in self.edges if e.source in keep and e.target in keep]
        responses = [
            r
            for r in self.responses
            if r.responder in keep and r.ai_node in keep and (r.source is None or r.source in keep)
        ]
        if keep_steps:
            steps = self.steps
        else:
            used = {n.step for n in nodes}
            steps = tuple(s for s in self.steps if s.key in used)
        return WorkflowGraph(self.session, steps, nodes, edges, responses, self.warnings)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WorkflowGraph):
            return NotImplemented
        return (
            self.session == other.session
            and self.steps == other.steps
            and self.nodes == other.nodes
            and self.edges == other.edges
            and self.responses == other.responses
        )

    def __repr__(self) -> str:
        return (
            f"WorkflowGraph({self.session.session_id!r}, nodes={len(self._nodes)}, "
            f"edges={len(self.edges)}, responses={len(self.responses)}, steps={len(self.steps)})"
        )
