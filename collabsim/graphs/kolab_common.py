"""Building blocks shared by the Kolab readers: errors, warnings and tolerant field parsing.

Annotation quirks never fail a load: each is recorded in ``WorkflowGraph.warnings`` and
emitted as a :class:`GraphDataWarning`. Structural errors that leave no sensible graph
(unparseable time text, a missing node id) raise :class:`KolabFormatError` naming the
session, the node and the offending text.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from collabsim.graphs.model import (
    RESPONSE_LABELS,
    Edge,
    Node,
    Response,
)
from collabsim.graphs.timefmt import (
    Interval,
    TimeFormatError,
    parse_intervals,
)

EDGE_TYPES = ("sequential", "loop")
_ACTOR_TYPES = {"human": "human", "user": "human", "ai": "ai", "claude": "ai", "agent": "ai"}


MAX_SESSION_SECONDS = 24 * 3600.0
"""A node time later than this into a session (one day) is flagged as implausible."""


class GraphDataWarning(UserWarning):
    """A data-quality note about a loaded graph (the graph still loads)."""


class KolabFormatError(ValueError):
    """A Kolab file cannot be turned into a graph; the message names session, node, text."""


class Notes:
    """Collects warnings for one session and emits them."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.items: list[str] = []

    def add(self, message: str) -> None:
        text = f"session {self.session_id}: {message}"
        self.items.append(text)
        warnings.warn(text, GraphDataWarning, stacklevel=4)


# --------------------------------------------------------------------------- shared helpers


def parse_actor_type(raw_type: Any, actor: str, notes: Notes, node_id: str) -> str:
    """Resolve a node's actor type from an explicit type or the actor name."""
    for candidate in (raw_type, actor):
        if isinstance(candidate, str) and candidate.strip().lower() in _ACTOR_TYPES:
            return _ACTOR_TYPES[candidate.strip().lower()]
    notes.add(f"node {node_id}: unknown actor {actor!r} / type {raw_type!r}, taken as human")
    return "human"


def parse_node_intervals(raw: Any, notes: Notes, node_id: str) -> tuple[Interval, ...]:
    """Parse a node's time field; raise naming session, node and text."""
    try:
        if raw is None or isinstance(raw, str):
            intervals = parse_intervals(raw)
        elif isinstance(raw, Sequence):
            intervals = parse_intervals([str(r) for r in raw])
        else:
            raise TimeFormatError(f"unsupported time value {raw!r}")
    except TimeFormatError as err:
        raise KolabFormatError(
            f"session {notes.session_id}: node {node_id}: cannot parse time {raw!r}: {err}"
        ) from None
    fixed = []
    for start, end in intervals:
        if end < start:
            notes.add(f"node {node_id}: reversed time range in {raw!r}, ends swapped")
            start, end = end, start
        fixed.append((start, end))
    if fixed != sorted(fixed):
        notes.add(f"node {node_id}: time ranges out of order in {raw!r}, sorted")
        fixed.sort()
    return tuple(fixed)


def parse_edge(raw: Mapping[str, Any], known: set[str], notes: Notes) -> Edge | None:
    src, dst = raw.get("from", raw.get("source")), raw.get("to", raw.get("target"))
    etype = raw.get("type") or "sequential"
    if src not in known or dst not in known:
        notes.add(f"edge {src}->{dst} names an unknown node, dropped")
        return None
    if src == dst:
        notes.add(f"edge {src}->{dst} is a self-loop (a node cannot follow itself), dropped")
        return None
    if etype not in EDGE_TYPES:
        notes.add(f"edge {src}->{dst}: unknown type {etype!r}, taken as sequential")
        etype = "sequential"
    return Edge(str(src), str(dst), etype)


def check_quirks(
    nodes: Mapping[str, Node], edges: Sequence[Edge], responses: Sequence[Response], notes: Notes
) -> None:
    """Record duplicate edges/responses, responses with odd actor types, edges whose target
    lies wholly before their source in time (other than ``loop`` edges), and node times past
    :data:`MAX_SESSION_SECONDS` (all kept, each named in a warning)."""
    _note_late_nodes(nodes, notes)
    _note_backward_edges(nodes, edges, notes)
    _note_repeats(edges, responses, notes)
    _note_odd_actor_types(nodes, responses, notes)


def _note_late_nodes(nodes: Mapping[str, Node], notes: Notes) -> None:
    """Nodes whose time lies past :data:`MAX_SESSION_SECONDS`."""
    for node in nodes.values():
        late = max((end for _, end in node.intervals), default=0.0)
        if late > MAX_SESSION_SECONDS:
            notes.add(f"node {node.id}: time {late / 3600:,.0f} h into the session is beyond "
                      f"{MAX_SESSION_SECONDS / 3600:.0f} h (kept, check the time field)")


def _note_backward_edges(nodes: Mapping[str, Node], edges: Sequence[Edge], notes: Notes) -> None:
    """Edges (other than loops) whose target ends before their source starts."""
    for edge in edges:
        src, dst = nodes[edge.source], nodes[edge.target]
        if edge.type == "loop" or not src.intervals or not dst.intervals:
            continue
        if max(end for _, end in dst.intervals) < min(start for start, _ in src.intervals):
            notes.add(f"edge {edge.source}->{edge.target} ({edge.type}) goes backwards in time: "
                      f"{edge.target} ends before {edge.source} starts (kept)")


def _note_repeats(edges: Sequence[Edge], responses: Sequence[Response], notes: Notes) -> None:
    """Edges and responses that appear more than once."""
    for (src, dst, etype), n in Counter((e.source, e.target, e.type) for e in edges).items():
        if n > 1:
            notes.add(f"edge {src}->{dst} ({etype}) appears {n} times (kept, all counted)")
    for resp, n in Counter(responses).items():
        if n > 1:
            notes.add(
                f"response {resp.responder} on {resp.ai_node} ({resp.label}) appears {n} times"
                " (kept)"
            )


def _note_odd_actor_types(
    nodes: Mapping[str, Node], responses: Sequence[Response], notes: Notes
) -> None:
    """Responses by an AI node, to a human node, or with an AI source."""
    for resp in responses:
        if nodes[resp.responder].actor_type != "human":
            notes.add(f"response by {resp.responder}: the responder is an AI node")
        if nodes[resp.ai_node].actor_type != "ai":
            notes.add(f"response by {resp.responder}: responded-to node {resp.ai_node} is human")
        if resp.source is not None and nodes[resp.source].actor_type != "human":
            notes.add(f"response by {resp.responder}: source node {resp.source} is an AI node")


def parse_response(
    responder: str, source: Any, ai_node: Any, label: Any, known: set[str], notes: Notes
) -> Response | None:
    label_text = str(label).strip().lower() if label is not None else ""
    if label_text not in RESPONSE_LABELS:
        notes.add(f"response by {responder}: unknown label {label!r}, dropped")
        return None
    if ai_node not in known or responder not in known:
        notes.add(f"response by {responder} on {ai_node}: unknown node, dropped")
        return None
    if source is not None and source not in known:
        notes.add(f"response by {responder}: unknown source {source!r}, taken as None")
        source = None
    return Response(
        str(responder), None if source is None else str(source), str(ai_node), label_text
    )  # type: ignore[arg-type]


def node_id_of(raw: Mapping[str, Any], session_id: str) -> str:
    node_id = raw.get("id")
    if node_id is None or str(node_id) == "":
        raise KolabFormatError(f"session {session_id}: a node has no id: {dict(raw)!r}")
    return str(node_id)


def unique_nodes(nodes: list[Node], notes: Notes) -> list[Node]:
    seen: dict[str, Node] = {}
    for node in nodes:
        if node.id in seen:
            notes.add(f"node id {node.id} repeats; later copy dropped")
            continue
        seen[node.id] = node
    return list(seen.values())


def parse_rating(value: Any, what: str, notes: Notes) -> int | None:
    if value is None or value == "":
        return None
    try:
        rating = int(value)
    except (TypeError, ValueError):
        notes.add(f"{what}: rating {value!r} is not a number, ignored")
        return None
    if not 1 <= rating <= 5:
        notes.add(f"{what}: rating {rating} outside 1-5 (kept)")
    return rating


# --------------------------------------------------------------------------- explorer format


