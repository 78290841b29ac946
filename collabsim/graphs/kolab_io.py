"""Readers and writers for Kolab workflow-graph files.

Two formats:

* **Kolab graph JSON** (one session per file)::

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

* **Kolab explorer dataset** (``explorer_sessions.json``, all sessions in one file; shape
  in the data README). Step indices become step keys (``"0"``, ``"1"``, ...), ``"Human"`` /
  ``"AI"`` become actor types (the source string is kept as ``Node.actor``), time text in
  every listed format becomes intervals in seconds, the category becomes
  ``SessionInfo.domain``.

Annotation quirks (a response whose responder is an AI node or whose ``ai_node`` is drawn as
a Human node, duplicate edges or responses, unknown step indices, unsorted intervals) never
fail a load: each is recorded in ``WorkflowGraph.warnings`` and emitted as a
:class:`GraphDataWarning`. Structural errors that leave no sensible graph (unparseable time
text, a missing node id) raise :class:`KolabFormatError` naming the session, the node and
the offending text.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from collabsim.graphs.model import (
    RESPONSE_LABELS,
    Edge,
    Node,
    Response,
    SessionInfo,
    Step,
    WorkflowGraph,
)
from collabsim.graphs.timefmt import (
    Interval,
    TimeFormatError,
    format_range,
    parse_intervals,
    parse_range,
)

EDGE_TYPES = ("sequential", "loop")
_ACTOR_TYPES = {"human": "human", "user": "human", "ai": "ai", "claude": "ai", "agent": "ai"}


class GraphDataWarning(UserWarning):
    """A data-quality note about a loaded graph (the graph still loads)."""


class KolabFormatError(ValueError):
    """A Kolab file cannot be turned into a graph; the message names session, node, text."""


class _Notes:
    """Collects warnings for one session and emits them."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.items: list[str] = []

    def add(self, message: str) -> None:
        text = f"session {self.session_id}: {message}"
        self.items.append(text)
        warnings.warn(text, GraphDataWarning, stacklevel=4)


# --------------------------------------------------------------------------- shared helpers


def _actor_type(raw_type: Any, actor: str, notes: _Notes, node_id: str) -> str:
    """Resolve a node's actor type from an explicit type or the actor name."""
    for candidate in (raw_type, actor):
        if isinstance(candidate, str) and candidate.strip().lower() in _ACTOR_TYPES:
            return _ACTOR_TYPES[candidate.strip().lower()]
    notes.add(f"node {node_id}: unknown actor {actor!r} / type {raw_type!r}, taken as human")
    return "human"


def _intervals(raw: Any, notes: _Notes, node_id: str) -> tuple[Interval, ...]:
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


def _edge(raw: Mapping[str, Any], known: set[str], notes: _Notes) -> Edge | None:
    src, dst = raw.get("from", raw.get("source")), raw.get("to", raw.get("target"))
    etype = raw.get("type") or "sequential"
    if src not in known or dst not in known:
        notes.add(f"edge {src}->{dst} names an unknown node, dropped")
        return None
    if etype not in EDGE_TYPES:
        notes.add(f"edge {src}->{dst}: unknown type {etype!r}, taken as sequential")
        etype = "sequential"
    return Edge(str(src), str(dst), etype)


def _check_quirks(
    nodes: Mapping[str, Node], edges: Sequence[Edge], responses: Sequence[Response], notes: _Notes
) -> None:
    """Record duplicate edges/responses and responses with odd actor types."""
    for (src, dst, etype), n in Counter((e.source, e.target, e.type) for e in edges).items():
        if n > 1:
            notes.add(f"edge {src}->{dst} ({etype}) appears {n} times (kept, all counted)")
    for resp, n in Counter(responses).items():
        if n > 1:
            notes.add(
                f"response {resp.responder} on {resp.ai_node} ({resp.label}) appears {n} times"
                " (kept)"
            )
    for resp in responses:
        if nodes[resp.responder].actor_type != "human":
            notes.add(f"response by {resp.responder}: the responder is an AI node")
        if nodes[resp.ai_node].actor_type != "ai":
            notes.add(f"response by {resp.responder}: responded-to node {resp.ai_node} is human")
        if resp.source is not None and nodes[resp.source].actor_type != "human":
            notes.add(f"response by {resp.responder}: source node {resp.source} is an AI node")


def _response(
    responder: str, source: Any, ai_node: Any, label: Any, known: set[str], notes: _Notes
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


def _node_id(raw: Mapping[str, Any], session_id: str) -> str:
    node_id = raw.get("id")
    if node_id is None or str(node_id) == "":
        raise KolabFormatError(f"session {session_id}: a node has no id: {dict(raw)!r}")
    return str(node_id)


def _unique_nodes(nodes: list[Node], notes: _Notes) -> list[Node]:
    seen: dict[str, Node] = {}
    for node in nodes:
        if node.id in seen:
            notes.add(f"node id {node.id} repeats; later copy dropped")
            continue
        seen[node.id] = node
    return list(seen.values())


def _rating(value: Any, what: str, notes: _Notes) -> int | None:
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


def explorer_session_to_graph(data: Mapping[str, Any]) -> WorkflowGraph:
    """Convert one session of the explorer dataset into a :class:`WorkflowGraph`.

    Args:
        data: One entry of ``explorer_sessions.json``'s ``sessions`` list.

    Returns:
        The graph; quirks are listed in ``graph.warnings`` (and emitted as warnings).

    Raises:
        KolabFormatError: If a node has no id or its time text cannot be parsed.
    """
    session_id = str(data.get("session_id") or "")
    if not session_id:
        raise KolabFormatError(f"explorer session without session_id: keys {sorted(data)}")
    notes = _Notes(session_id)
    known_keys = {
        "session_id",
        "participant_id",
        "occupation",
        "category",
        "steps",
        "nodes",
        "edges",
        "responses",
        "goal",
    }
    extra = {k: v for k, v in data.items() if k not in known_keys}
    session = SessionInfo(
        session_id=session_id,
        participant_id=str(data.get("participant_id") or ""),
        occupation=str(data.get("occupation") or ""),
        domain=str(data.get("category") or ""),
        goal=str(data.get("goal") or ""),
        extra=extra,
    )
    steps = []
    for pos, raw in enumerate(data.get("steps") or ()):
        index = raw.get("index", pos)
        what = f"step {index}"
        steps.append(
            Step(
                key=str(index),
                name=str(raw.get("name") or ""),
                labels=tuple(str(x) for x in raw.get("labels") or ()),
                collaboration=_rating(raw.get("collaboration"), what, notes),
                quality=_rating(raw.get("quality"), what, notes),
            )
        )
    step_keys = {s.key for s in steps}
    nodes = []
    for raw in data.get("nodes") or ():
        node_id = _node_id(raw, session_id)
        actor = str(raw.get("actor") or "")
        step = raw.get("step")
        step_key = None if step is None else str(step)
        if step_key is not None and step_key not in step_keys:
            notes.add(f"node {node_id}: step {step!r} is not among the session's steps")
        nodes.append(
            Node(
                id=node_id,
                actor=actor,
                actor_type=_actor_type(None, actor, notes, node_id),  # type: ignore[arg-type]
                label=str(raw.get("label") or ""),
                detail=str(raw.get("detail") or ""),
                intervals=_intervals(raw.get("time"), notes, node_id),
                step=step_key,
            )
        )
    nodes = _unique_nodes(nodes, notes)
    known = {n.id for n in nodes}
    edges = [e for e in (_edge(r, known, notes) for r in data.get("edges") or ()) if e]
    responses = [
        r
        for r in (
            _response(
                raw.get("responder"),
                raw.get("source"),
                raw.get("ai_node"),
                raw.get("label"),
                known,
                notes,
            )
            for raw in data.get("responses") or ()
        )
        if r
    ]
    _check_quirks({n.id: n for n in nodes}, edges, responses, notes)
    return WorkflowGraph(session, steps, nodes, edges, responses, notes.items)


def read_explorer(data: Mapping[str, Any]) -> list[WorkflowGraph]:
    """Convert a decoded explorer dataset (``{"sessions": [...]}``) into graphs."""
    sessions = data.get("sessions")
    if not isinstance(sessions, list):
        raise KolabFormatError("explorer dataset has no 'sessions' list")
    return [explorer_session_to_graph(s) for s in sessions]


def load_explorer(path: str | Path) -> list[WorkflowGraph]:
    """Load every session of an explorer dataset file (``explorer_sessions.json``).

    Raises:
        KolabFormatError: Naming the file, when it cannot be read as an explorer dataset.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return read_explorer(data)
    except (OSError, json.JSONDecodeError, KolabFormatError, AttributeError) as err:
        raise KolabFormatError(f"{path}: {err}") from err


def _explorer_step_index(key: str, position: int) -> int | str:
    return int(key) if key.isdigit() else key if key else position


def graph_to_explorer_session(graph: WorkflowGraph) -> dict[str, Any]:
    """Convert a graph into one explorer-dataset session entry (inverse of the reader).

    Step keys that are digit strings become integer indices; other keys are written as they
    are. Times are written as ``"HH:MM:SS-HH:MM:SS"`` ranges joined by ``", "``.
    """
    s = graph.session
    step_index = {st.key: _explorer_step_index(st.key, i) for i, st in enumerate(graph.steps)}
    out: dict[str, Any] = {
        "session_id": s.session_id,
        "participant_id": s.participant_id,
        **{k: v for k, v in s.extra.items()},
        "occupation": s.occupation,
        "category": s.domain,
    }
    if s.goal:
        out["goal"] = s.goal
    out["steps"] = [
        {
            "index": step_index[st.key],
            "labels": list(st.labels),
            "name": st.name,
            "collaboration": st.collaboration,
            "quality": st.quality,
        }
        for st in graph.steps
    ]
    out["nodes"] = [
        {
            "id": n.id,
            "actor": n.actor
            if n.actor in ("Human", "AI")
            else ("Human" if n.actor_type == "human" else "AI"),
            "label": n.label,
            "detail": n.detail,
            "time": ", ".join(format_range(iv) for iv in n.intervals),
            "step": None
            if n.step is None
            else step_index.get(n.step, _explorer_step_index(n.step, -1)),
        }
        for n in graph.nodes
    ]
    out["edges"] = [{"from": e.source, "to": e.target, "type": e.type} for e in graph.edges]
    out["responses"] = [
        {"responder": r.responder, "source": r.source, "ai_node": r.ai_node, "label": r.label}
        for r in graph.responses
    ]
    return out


def write_explorer(
    graphs: Iterable[WorkflowGraph],
    path: str | Path,
    *,
    name: str = "collabsim-graphs",
    description: str = "",
) -> Path:
    """Write graphs as an explorer-format dataset file; returns the path."""
    path = Path(path)
    data = {
        "name": name,
        "description": description,
        "sessions": [graph_to_explorer_session(g) for g in graphs],
    }
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- Kolab graph JSON

# fmt: off
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
    notes = _Notes(session_id)
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
                    collaboration=_rating(raw_step.get("collaboration"), what, notes),
                    quality=_rating(raw_step.get("quality"), what, notes),
                )
            )
        for raw in raw_step.get("nodes") or ():
            node_id = _node_id(raw, session_id)
            actor = str(raw.get("actor") or "")
            node_extra = dict(raw.get("extra") or {})
            node_extra.update({k: v for k, v in raw.items() if k not in _NODE_KEYS})
            node = Node(
                id=node_id,
                actor=actor,
                actor_type=_actor_type(raw.get("actor_type"), actor, notes, node_id),  # type: ignore[arg-type]
                label=str(raw.get("label") or ""),
                detail=str(raw.get("detail") or ""),
                intervals=_intervals(raw.get("time"), notes, node_id),
                step=step_key if raw.get("step") is None else str(raw["step"]),
                softwares=tuple(str(x) for x in raw.get("softwares") or ()),
                extra=node_extra,
            )
            raw_nodes.append((raw.get("order"), node))
            for resp in raw.get("user_response") or ():
                raw_resps.append((resp.get("order"), (node_id, resp)))
        for raw in raw_step.get("edges") or ():
            raw_edges.append((raw.get("order"), raw))
    nodes = _unique_nodes(_ordered(raw_nodes), notes)
    known = {n.id for n in nodes}
    edges = [e for e in (_edge(r, known, notes) for r in _ordered(raw_edges)) if e]
    responses = [
        r
        for r in (
            _response(
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
    _check_quirks({n.id: n for n in nodes}, edges, responses, notes)
    stored = [str(w) for w in data.get("warnings") or ()]
    fresh = [w for w in notes.items if w not in stored]
    return WorkflowGraph(session, steps, nodes, edges, responses, stored + fresh)


def graph_to_kolab(graph: WorkflowGraph) -> dict[str, Any]:
    """Convert a graph into a Kolab graph JSON object (inverse of :func:`kolab_to_graph`).

    ``graph.warnings`` are written under ``"warnings"`` so a round trip keeps them (the
    reader adds only notes not already stored).
    """
    s = graph.session
    buckets: dict[str | None, dict[str, list[Any]]] = {
        st.key: {"nodes": [], "edges": []} for st in graph.steps
    }
    node_step = {n.id: n.step if n.step in buckets else None for n in graph.nodes}
    if any(v is None for v in node_step.values()):
        buckets[None] = {"nodes": [], "edges": []}
    bucket_order = {key: i for i, key in enumerate(buckets)}

    resp_by_node: dict[str, list[tuple[int, Response]]] = {}
    for i, resp in enumerate(graph.responses):
        resp_by_node.setdefault(resp.responder, []).append((i, resp))

    node_seq = sorted(
        range(len(graph.nodes)), key=lambda i: bucket_order[node_step[graph.nodes[i].id]]
    )
    nodes_need_order = node_seq != list(range(len(graph.nodes)))
    resp_written = [j for i in node_seq for j, _ in resp_by_node.get(graph.nodes[i].id, [])]
    resps_need_order = resp_written != list(range(len(graph.responses)))
    edge_seq = sorted(
        range(len(graph.edges)), key=lambda i: bucket_order[node_step[graph.edges[i].target]]
    )
    edges_need_order = edge_seq != list(range(len(graph.edges)))

    for i, n in enumerate(graph.nodes):
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
        if n.id in resp_by_node:
            entry["user_response"] = []
            for j, r in resp_by_node[n.id]:
                item: dict[str, Any] = {
                    "source_node_id": r.source,
                    "claude_node_id": r.ai_node,
                    "label": r.label,
                }
                if resps_need_order:
                    item["order"] = j
                entry["user_response"].append(item)
        if nodes_need_order:
            entry["order"] = i
        buckets[node_step[n.id]]["nodes"].append(entry)
    for i, e in enumerate(graph.edges):
        edge: dict[str, Any] = {"from": e.source, "to": e.target, "type": e.type}
        if edges_need_order:
            edge["order"] = i
        buckets[node_step[e.target]]["edges"].append(edge)

    steps_out = []
    steps_by_key = {st.key: st for st in graph.steps}
    for key, content in buckets.items():
        st = steps_by_key.get(key) if key is not None else None
        steps_out.append(
            {
                "step_id": key,
                "name": st.name if st else "",
                "labels": list(st.labels) if st else [],
                "time_range": format_range(st.time_range) if st and st.time_range else None,
                "collaboration": st.collaboration if st else None,
                "quality": st.quality if st else None,
                "nodes": content["nodes"],
                "edges": content["edges"],
            }
        )
    out: dict[str, Any] = {
        "session_id": s.session_id,
        "participant_id": s.participant_id,
        "goal": s.goal,
        "occupation": s.occupation,
        "domain": s.domain,
        "steps": steps_out,
    }
    if s.extra:
        out["extra"] = dict(s.extra)
    if graph.warnings:
        out["warnings"] = list(graph.warnings)
    return out


def read_kolab_graph(path: str | Path) -> WorkflowGraph:
    """Read one Kolab graph JSON file.

    Raises:
        KolabFormatError: Naming the file, when it cannot be read as a Kolab graph.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, Mapping):
            raise KolabFormatError("top level is not a JSON object")
        return kolab_to_graph(data)
    except (OSError, json.JSONDecodeError, KolabFormatError, AttributeError, TypeError) as err:
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
    "explorer_session_to_graph",
    "graph_to_explorer_session",
    "graph_to_kolab",
    "kolab_to_graph",
    "load_explorer",
    "read_explorer",
    "read_kolab_graph",
    "write_explorer",
    "write_kolab_graph",
]
