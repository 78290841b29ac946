"""Reader and writer of the Kolab graph JSON format (one session per file)::

    {"session_id", "participant_id", "goal", "occupation", "domain",
     "steps": [{"step_id", "name", "labels", "time_range", "collaboration", "quality",
                "nodes": [{"id", "actor", "actor_type", "label", "detail",
                           "time": ["HH:MM:SS-HH:MM:SS", ...], "softwares",
                           "source_steps",
                           "user_response": [{"source_node_id", "claude_node_id", "label"}]}],
                "edges": [{"from", "to", "type"}]}]}

  Responses live on the responding node's ``user_response`` list (responder = that node).
  Nodes without a step go into a trailing step entry whose ``step_id`` is null (a node
  whose step key has no step entry goes there too, with its key under ``"step"``). An edge is
  written in the step of its target node. When that grouping would reorder the graph's
  nodes, edges or responses, every entry of that kind carries an ``"order"`` index and the
  reader restores the order: the round trip is lossless.

The explorer dataset has its own module (:mod:`collabsim.graphs.explorer_io`); both share
:mod:`collabsim.graphs.kolab_common` (errors, warnings, tolerant field parsing).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from collabsim.core import jsonio
from collabsim.graphs.kolab_common import (
    GraphDataWarning,
    KolabFormatError,
    Notes,
    check_quirks,
    node_id_of,
    parse_actor_type,
    parse_edge,
    parse_node_intervals,
    parse_rating,
    parse_response,
    unique_nodes,
)
from collabsim.graphs.model import (
    Node,
    Response,
    SessionInfo,
    Step,
    WorkflowGraph,
)
from collabsim.graphs.timefmt import (
    TimeFormatError,
    format_range,
    parse_range,
)

_SESSION_KEYS = frozenset({"session_id", "participant_id", "goal", "occupation", "domain",
                           "steps", "extra", "warnings"})
_NODE_KEYS = frozenset({"id", "actor", "actor_type", "label", "detail", "time", "softwares",
                        "user_response", "order", "step", "extra"})
# fmt: on


def _ordered(items: list[tuple[Any, Any]]) -> list[Any]:
    """Restore source order when every item carries an ``order`` index."""
    if items and all(order is not None for order, _ in items):
        return [item for _, item in sorted(items, key=lambda p: int(p[0]))]
    return [item for _, item in items]


def kolab_to_graph(data: Mapping[str, Any]) -> WorkflowGraph:
    """Convert a decoded Kolab graph JSON object into a :class:`WorkflowGraph`.

    Raises:
        KolabFormatError: If a node has no id or a time text cannot be parsed.
    """
    session_id = str(data.get("session_id") or "")
    if not session_id:
        raise KolabFormatError(f"Kolab graph without session_id: keys {sorted(data)}")
    notes = Notes(session_id)
    extra = dict(data.get("extra") or {})
    extra.update({k: v for k, v in data.items() if k not in _SESSION_KEYS})
    session = SessionInfo(
        session_id=session_id,
        participant_id=str(data.get("participant_id") or ""),
        occupation=str(data.get("occupation") or ""),
        domain=str(data.get("domain") or ""),
        goal=str(data.get("goal") or ""),
        extra=extra,
    )
    steps: list[Step] = []
    raw_nodes: list[tuple[Any, Node]] = []
    raw_edges: list[tuple[Any, Mapping[str, Any]]] = []
    raw_resps: list[tuple[Any, tuple[str, Mapping[str, Any]]]] = []
    for pos, raw_step in enumerate(data.get("steps") or ()):
        key = raw_step.get("step_id", raw_step.get("step", pos))
        step_key = None if key is None else str(key)
        if step_key is not None:
            time_range = None
            if raw_step.get("time_range"):
                try:
                    time_range = parse_range(str(raw_step["time_range"]))
                except TimeFormatError as err:
                    raise KolabFormatError(
                        f"session {session_id}: step {step_key}: cannot parse time range "
                        f"{raw_step['time_range']!r}: {err}"
                    ) from None
            what = f"step {step_key}"
            steps.append(
                Step(
                    key=step_key,
                    name=str(raw_step.get("name") or ""),
                    labels=tuple(str(x) for x in raw_step.get("labels") or ()),
                    time_range=time_range,
                    collaboration=parse_rating(raw_step.get("collaboration"), what, notes),
                    quality=parse_rating(raw_step.get("quality"), what, notes),
                )
            )
        for raw in raw_step.get("nodes") or ():
            node_id = node_id_of(raw, session_id)
            actor = str(raw.get("actor") or "")
            node_extra = dict(raw.get("extra") or {})
            node_extra.update({k: v for k, v in raw.items() if k not in _NODE_KEYS})
            node = Node(
                id=node_id,
                actor=actor,
                actor_type=parse_actor_type(raw.get("actor_type"), actor, notes, node_id),  # type: ignore[arg-type]
                label=str(raw.get("label") or ""),
                detail=str(raw.get("detail") or ""),
                intervals=parse_node_intervals(raw.get("time"), notes, node_id),
                step=step_key if raw.get("step") is None else str(raw["step"]),
                softwares=tuple(str(x) for x in raw.get("softwares") or ()),
                extra=node_extra,
            )
            raw_nodes.append((raw.get("order"), node))
            for resp in raw.get("user_response") or ():
                raw_resps.append((resp.get("order"), (node_id, resp)))
        for raw in raw_step.get("edges") or ():
            raw_edges.append((raw.get("order"), raw))
    nodes = unique_nodes(_ordered(raw_nodes), notes)
    known = {n.id for n in nodes}
    edges = [e for e in (parse_edge(r, known, notes) for r in _ordered(raw_edges)) if e]
    responses = [
        r
        for r in (
            parse_response(
                responder,
                raw.get("source_node_id"),
                raw.get("claude_node_id"),
                raw.get("label"),
                known,
                notes,
            )
            for responder, raw in _ordered(raw_resps)
        )
        if r
    ]
    check_quirks({n.id: n for n in nodes}, edges, responses, notes)
    stored = [str(w) for w in data.get("warnings") or ()]
    fresh = [w for w in notes.items if w not in stored]
    return WorkflowGraph(session, steps, nodes, edges, responses, stored + fresh)


_Buckets = dict[str | None, dict[str, list[Any]]]
"""Step key (None: nodes of no known step) -> that step's ``nodes`` and ``edges`` entries."""


class _WriteOrder(NamedTuple):
    """Which lists need ``order`` fields: those the step buckets would otherwise reorder."""

    nodes: bool
    responses: bool
    edges: bool


def graph_to_kolab(graph: WorkflowGraph) -> dict[str, Any]:
    """Convert a graph into a Kolab graph JSON object (inverse of :func:`kolab_to_graph`).

    ``graph.warnings`` are written under ``"warnings"`` so a round trip keeps them (the
    reader adds only notes not already stored).
    """
    s = graph.session
    buckets, node_step = _buckets(graph)
    resp_by_node: dict[str, list[tuple[int, Response]]] = {}
    for i, resp in enumerate(graph.responses):
        resp_by_node.setdefault(resp.responder, []).append((i, resp))
    order = _write_order(graph, list(buckets), node_step, resp_by_node)
    for i, n in enumerate(graph.nodes):
        entry = _node_entry(n, buckets, resp_by_node.get(n.id, []), order.responses)
        if order.nodes:
            entry["order"] = i
        buckets[node_step[n.id]]["nodes"].append(entry)
    for i, e in enumerate(graph.edges):
        edge: dict[str, Any] = {"from": e.source, "to": e.target, "type": e.type}
        if order.edges:
            edge["order"] = i
        buckets[node_step[e.target]]["edges"].append(edge)
    steps_by_key = {st.key: st for st in graph.steps}
    out: dict[str, Any] = {
        "session_id": s.session_id,
        "participant_id": s.participant_id,
        "goal": s.goal,
        "occupation": s.occupation,
        "domain": s.domain,
        "steps": [
            _step_entry(key, steps_by_key.get(key) if key is not None else None, content)
            for key, content in buckets.items()
        ],
    }
    if s.extra:
        out["extra"] = dict(s.extra)
    if graph.warnings:
        out["warnings"] = list(graph.warnings)
    return out


def _buckets(graph: WorkflowGraph) -> tuple[_Buckets, dict[str, str | None]]:
    """Empty buckets, one per step (plus None when a node has no known step).

    Returns:
        The buckets in step order and each node's bucket key.
    """
    buckets: _Buckets = {st.key: {"nodes": [], "edges": []} for st in graph.steps}
    node_step = {n.id: n.step if n.step in buckets else None for n in graph.nodes}
    if any(v is None for v in node_step.values()):
        buckets[None] = {"nodes": [], "edges": []}
    return buckets, node_step


def _write_order(
    graph: WorkflowGraph,
    bucket_keys: list[str | None],
    node_step: Mapping[str, str | None],
    resp_by_node: Mapping[str, list[tuple[int, Response]]],
) -> _WriteOrder:
    """Whether writing nodes, responses and edges step by step would change their order."""
    bucket_order = {key: i for i, key in enumerate(bucket_keys)}
    node_seq = sorted(
        range(len(graph.nodes)), key=lambda i: bucket_order[node_step[graph.nodes[i].id]]
    )
    resp_written = [j for i in node_seq for j, _ in resp_by_node.get(graph.nodes[i].id, [])]
    edge_seq = sorted(
        range(len(graph.edges)), key=lambda i: bucket_order[node_step[graph.edges[i].target]]
    )
    return _WriteOrder(
        nodes=node_seq != list(range(len(graph.nodes))),
        responses=resp_written != list(range(len(graph.responses))),
        edges=edge_seq != list(range(len(graph.edges))),
    )


def _node_entry(
    n: Node,
    buckets: _Buckets,
    responses: list[tuple[int, Response]],
    order_responses: bool,
) -> dict[str, Any]:
    """The JSON entry of node ``n`` with the responses it makes (their index in ``order``)."""
    entry: dict[str, Any] = {
        "id": n.id,
        "actor": n.actor,
        "actor_type": n.actor_type,
        "label": n.label,
        "detail": n.detail,
        "time": [format_range(iv) for iv in n.intervals],
        "softwares": list(n.softwares),
    }
    if n.step is not None and n.step not in buckets:
        entry["step"] = n.step  # a step key without a step entry
    clashing = {k: v for k, v in n.extra.items() if k in _NODE_KEYS}
    entry.update({k: v for k, v in n.extra.items() if k not in _NODE_KEYS})
    if clashing:
        entry["extra"] = clashing
    if responses:
        entry["user_response"] = []
        for j, r in responses:
            item: dict[str, Any] = {
                "source_node_id": r.source,
                "claude_node_id": r.ai_node,
                "label": r.label,
            }
            if order_responses:
                item["order"] = j
            entry["user_response"].append(item)
    return entry


def _step_entry(key: str | None, st: Step | None, content: dict[str, list[Any]]) -> dict[str, Any]:
    """The JSON entry of one step (``st`` None: the bucket of nodes of no known step)."""
    return {
        "step_id": key,
        "name": st.name if st else "",
        "labels": list(st.labels) if st else [],
        "time_range": format_range(st.time_range) if st and st.time_range else None,
        "collaboration": st.collaboration if st else None,
        "quality": st.quality if st else None,
        "nodes": content["nodes"],
        "edges": content["edges"],
    }


def read_kolab_graph(path: str | Path) -> WorkflowGraph:
    """Read one Kolab graph JSON file.

    Raises:
        KolabFormatError: Naming the file, when it cannot be read as a Kolab graph.
    """
    path = Path(path)
    try:
        data = jsonio.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, Mapping):
            raise KolabFormatError("top level is not a JSON object")
        return kolab_to_graph(data)
    except (OSError, ValueError, KolabFormatError, AttributeError, TypeError) as err:
        raise KolabFormatError(f"{path}: {err}") from err


def write_kolab_graph(graph: WorkflowGraph, path: str | Path) -> Path:
    """Write one graph as a Kolab graph JSON file; returns the path."""
    path = Path(path)
    text = json.dumps(graph_to_kolab(graph), ensure_ascii=False, indent=1)
    path.write_text(text + "\n", encoding="utf-8")
    return path


__all__ = [
    "GraphDataWarning",
    "KolabFormatError",
    "graph_to_kolab",
    "kolab_to_graph",
    "read_kolab_graph",
    "write_kolab_graph",
]
