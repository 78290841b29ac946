"""Workflow graph -> the JSON the session viewer draws.

The payload is plain data (no HTML): lanes (one per participant, humans first), steps with
their optional ratings, nodes with their intervals, edges with their kind (``sequential``,
``loop``; ``crossing`` when the ends have different actor types) and responses. The viewer's
JavaScript draws exactly one ``g.node`` element per payload node, which is what the browser
test counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from collabsim.graphs.model import WorkflowGraph

# extra fields worth showing in the detail panel; the rest of ``Node.extra`` is source
# bookkeeping (order indices, source steps) that means nothing to a reader.
_SHOWN_EXTRA = ("action_type", "status", "request_id", "seq")


def _num(value: float) -> float:
    return round(float(value), 3) if math.isfinite(value) else 0.0


def _node_kind(extra: Mapping[str, Any]) -> str:
    """``request`` (a gated action waiting for its owner), ``approve``/``reject`` (a gate
    decision), ``approved`` (a gated action taking effect) or ``work``."""
    action = str(extra.get("action_type") or "")
    status = str(extra.get("status") or "")
    if status == "pending":
        return "request"
    if action == "APPROVE":
        return "approve"
    if action == "REJECT":
        return "reject"
    if status == "approved":
        return "approved"
    return "work"


def graph_payload(graph: WorkflowGraph) -> dict[str, Any]:
    """Describe ``graph`` for the viewer.

    Args:
        graph: Any workflow graph (simulated or Kolab).

    Returns:
        A JSON-serialisable dict: ``session``, ``lanes``, ``steps``, ``nodes``, ``edges``,
        ``responses`` and ``counts`` (nodes, edges, crossing edges, loops).
    """
    lanes: dict[str, str] = {}
    for node in graph.nodes:
        lanes.setdefault(node.actor, node.actor_type)
    ordered = sorted(lanes.items(), key=lambda kv: (kv[1] != "human", list(lanes).index(kv[0])))
    responses_by_responder: dict[str, list[dict[str, Any]]] = {}
    for resp in graph.responses:
        responses_by_responder.setdefault(resp.responder, []).append(
            {"ai_node": resp.ai_node, "source": resp.source, "label": resp.label}
        )
    nodes = []
    for node in graph.nodes:
        extra = {k: node.extra[k] for k in _SHOWN_EXTRA if k in node.extra}
        nodes.append(
            {
                "id": node.id,
                "actor": node.actor,
                "actor_type": node.actor_type,
                "label": node.label,
                "detail": node.detail,
                "intervals": [[_num(s), _num(e)] for s, e in node.intervals],
                "step": node.step,
                "softwares": list(node.softwares),
                "kind": _node_kind(node.extra),
                "extra": extra,
                "responses": responses_by_responder.get(node.id, []),
            }
        )
    edges = [
        {
            "source": e.source,
            "target": e.target,
            "type": e.type,
            "crossing": graph.is_crossing(e),
        }
        for e in graph.edges
    ]
    steps = [
        {
            "key": s.key,
            "name": s.name,
            "time_range": [_num(s.time_range[0]), _num(s.time_range[1])] if s.time_range else None,
            "collaboration": s.collaboration,
            "quality": s.quality,
        }
        for s in graph.steps
    ]
    info = graph.session
    return {
        "session": {
            "session_id": info.session_id,
            "participant_id": info.participant_id,
            "occupation": info.occupation,
            "domain": info.domain,
            "goal": info.goal,
        },
        "lanes": [{"actor": a, "actor_type": t} for a, t in ordered],
        "steps": steps,
        "nodes": nodes,
        "edges": edges,
        "responses": [
            {"responder": r.responder, "source": r.source, "ai_node": r.ai_node, "label": r.label}
            for r in graph.responses
        ],
        "counts": {
            "nodes": len(nodes),
            "edges": len(edges),
            "crossing": sum(1 for e in edges if e["crossing"]),
            "loops": sum(1 for e in edges if e["type"] == "loop"),
        },
    }
