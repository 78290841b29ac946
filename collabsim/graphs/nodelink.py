"""networkx node-link JSON for workflow graphs (lossless).

The dictionary is what ``networkx.node_link_data`` produces for a ``MultiDiGraph`` (edge list
under ``"edges"``, parallel edges told apart by ``"key"``), so
``networkx.node_link_graph(data, edges="edges")`` reads it as well. Everything a
:class:`WorkflowGraph` holds beyond nodes and edges is stored as graph-level attributes::

    {"directed": true, "multigraph": true,
     "graph": {"format": "collabsim-workflow-graph", "version": 1,
               "session": {session_id, participant_id, occupation, domain, goal, extra},
               "steps": [{key, name, labels, time_range, collaboration, quality}],
               "responses": [{responder, source, ai_node, label}],
               "warnings": [...]},
     "nodes": [{"id", "actor", "actor_type", "label", "detail", "intervals": [[s, e], ...],
                "step", "softwares", "extra"}],
     "edges": [{"source", "target", "key", "type"}]}

Edge order, duplicate edges (consecutive keys 0, 1, ... per node pair), node order,
responses (with duplicates), steps and ratings all survive a round trip.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from collabsim.core import jsonio
from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph

FORMAT_NAME = "collabsim-workflow-graph"
FORMAT_VERSION = 1


class NodeLinkFormatError(ValueError):
    """A node-link document cannot be read as a workflow graph."""


def to_node_link(graph: WorkflowGraph) -> dict[str, Any]:
    """Serialise a graph to a node-link dictionary (JSON-ready)."""
    s = graph.session
    keys: dict[tuple[str, str], int] = {}
    edges = []
    for e in graph.edges:
        k = keys.get((e.source, e.target), 0)
        keys[(e.source, e.target)] = k + 1
        edges.append({"source": e.source, "target": e.target, "key": k, "type": e.type})
    return {
        "directed": True,
        "multigraph": True,
        "graph": {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "session": {
                "session_id": s.session_id,
                "participant_id": s.participant_id,
                "occupation": s.occupation,
                "domain": s.domain,
                "goal": s.goal,
                "extra": dict(s.extra),
            },
            "steps": [
                {
                    "key": st.key,
                    "name": st.name,
                    "labels": list(st.labels),
                    "time_range": list(st.time_range) if st.time_range else None,
                    "collaboration": st.collaboration,
                    "quality": st.quality,
                }
                for st in graph.steps
            ],
            "responses": [
                {
                    "responder": r.responder,
                    "source": r.source,
                    "ai_node": r.ai_node,
                    "label": r.label,
                }
                for r in graph.responses
            ],
            "warnings": list(graph.warnings),
        },
        "nodes": [
            {
                "id": n.id,
                "actor": n.actor,
                "actor_type": n.actor_type,
                "label": n.label,
                "detail": n.detail,
                "intervals": [[a, b] for a, b in n.intervals],
                "step": n.step,
                "softwares": list(n.softwares),
                "extra": dict(n.extra),
            }
            for n in graph.nodes
        ],
        "edges": edges,
    }


def _time_range(raw: Any) -> tuple[float, float] | None:
    if raw is None:
        return None
    a, b = raw
    return (float(a), float(b))


def from_node_link(data: Mapping[str, Any]) -> WorkflowGraph:
    """Build a graph from a node-link dictionary (inverse of :func:`to_node_link`).

    Also accepts plain networkx output (``"links"`` instead of ``"edges"``, missing
    graph attributes): absent fields take their defaults, edges without ``type`` are
    sequential.

    Raises:
        NodeLinkFormatError: If the document is not a node-link graph.
    """
    if not isinstance(data, Mapping) or "nodes" not in data:
        raise NodeLinkFormatError("not a node-link document (no 'nodes')")
    attrs = data.get("graph") or {}
    if isinstance(attrs, list):  # networkx < 2.x wrote graph attributes as pairs
        attrs = dict(attrs)
    sess = attrs.get("session") or {}
    session = SessionInfo(
        session_id=str(sess.get("session_id") or attrs.get("session_id") or ""),
        participant_id=str(sess.get("participant_id") or ""),
        occupation=str(sess.get("occupation") or ""),
        domain=str(sess.get("domain") or ""),
        goal=str(sess.get("goal") or ""),
        extra=dict(sess.get("extra") or {}),
    )
    try:
        steps = [
            Step(
                key=str(st["key"]),
                name=str(st.get("name") or ""),
                labels=tuple(st.get("labels") or ()),
                time_range=_time_range(st.get("time_range")),
                collaboration=st.get("collaboration"),
                quality=st.get("quality"),
            )
            for st in attrs.get("steps") or ()
        ]
        nodes = [
            Node(
                id=str(n["id"]),
                actor=str(n.get("actor") or ""),
                actor_type=n.get("actor_type") or "human",
                label=str(n.get("label") or ""),
                detail=str(n.get("detail") or ""),
                intervals=tuple((float(a), float(b)) for a, b in n.get("intervals") or ()),
                step=None if n.get("step") is None else str(n["step"]),
                softwares=tuple(n.get("softwares") or ()),
                extra=dict(n.get("extra") or {}),
            )
            for n in data["nodes"]
        ]
        raw_edges = data.get("edges", data.get("links")) or ()
        edges = [
            Edge(str(e["source"]), str(e["target"]), e.get("type") or "sequential")
            for e in raw_edges
        ]
        responses = [
            Response(r["responder"], r.get("source"), r["ai_node"], r["label"])
            for r in attrs.get("responses") or ()
        ]
        return WorkflowGraph(session, steps, nodes, edges, responses, attrs.get("warnings") or ())
    except (KeyError, TypeError, ValueError) as err:
        raise NodeLinkFormatError(f"session {session.session_id or '?'}: {err}") from err


def is_node_link(data: Any) -> bool:
    """True when a decoded JSON document looks like node-link data."""
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("nodes"), list)
        and ("edges" in data or "links" in data)
        and "directed" in data
    )


def write_node_link(graph: WorkflowGraph, path: str | Path) -> Path:
    """Write a graph as a node-link JSON file; returns the path."""
    path = Path(path)
    text = json.dumps(to_node_link(graph), ensure_ascii=False, indent=1)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def read_node_link(path: str | Path) -> WorkflowGraph:
    """Read a node-link JSON file (one graph).

    Raises:
        NodeLinkFormatError: Naming the file when it cannot be read.
    """
    path = Path(path)
    try:
        return from_node_link(jsonio.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, NodeLinkFormatError) as err:
        raise NodeLinkFormatError(f"{path}: {err}") from err
