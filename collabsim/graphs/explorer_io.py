"""Reader and writer of the Kolab explorer dataset (``explorer_sessions.json``).

All sessions in one file (shape in the data README). Step indices become step keys (``"0"``,
``"1"``, ...), ``"Human"`` / ``"AI"`` become actor types (the source string is kept as
``Node.actor``), time text in every listed format becomes intervals in seconds, and the
category becomes ``SessionInfo.domain``. Quirks (a response whose responder is an AI node or
whose ``ai_node`` is drawn as a Human node, duplicate edges or responses, unknown step
indices, unsorted intervals) become warnings, never failures.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from collabsim.core import jsonio
from collabsim.graphs.kolab_common import (
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
    SessionInfo,
    Step,
    WorkflowGraph,
)
from collabsim.graphs.timefmt import (
    format_range,
)

log = logging.getLogger(__name__)


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
    notes = Notes(session_id)
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
                collaboration=parse_rating(raw.get("collaboration"), what, notes),
                quality=parse_rating(raw.get("quality"), what, notes),
            )
        )
    step_keys = {s.key for s in steps}
    nodes = []
    for raw in data.get("nodes") or ():
        node_id = node_id_of(raw, session_id)
        actor = str(raw.get("actor") or "")
        step = raw.get("step")
        step_key = None if step is None else str(step)
        if step_key is not None and step_key not in step_keys:
            notes.add(f"node {node_id}: step {step!r} is not among the session's steps")
        nodes.append(
            Node(
                id=node_id,
                actor=actor,
                actor_type=parse_actor_type(None, actor, notes, node_id),  # type: ignore[arg-type]
                label=str(raw.get("label") or ""),
                detail=str(raw.get("detail") or ""),
                intervals=parse_node_intervals(raw.get("time"), notes, node_id),
                step=step_key,
            )
        )
    nodes = unique_nodes(nodes, notes)
    known = {n.id for n in nodes}
    edges = [e for e in (parse_edge(r, known, notes) for r in data.get("edges") or ()) if e]
    responses = [
        r
        for r in (
            parse_response(
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
    check_quirks({n.id: n for n in nodes}, edges, responses, notes)
    return WorkflowGraph(session, steps, nodes, edges, responses, notes.items)


def read_explorer(data: Mapping[str, Any]) -> list[WorkflowGraph]:
    """Convert a decoded explorer dataset (``{"sessions": [...]}``) into graphs."""
    sessions = data.get("sessions")
    if not isinstance(sessions, list):
        raise KolabFormatError("explorer dataset has no 'sessions' list")
    return [explorer_session_to_graph(s) for s in _unique_sessions(sessions)]


def _unique_sessions(sessions: list[Any]) -> list[Any]:
    """The sessions with each ``session_id`` once: a repeated identical entry is dropped with
    a warning (it would be counted twice); two different entries under one id are an error.

    Raises:
        KolabFormatError: Two different sessions share a ``session_id``.
    """
    first: dict[str, tuple[int, Any]] = {}
    kept: list[Any] = []
    for index, entry in enumerate(sessions):
        sid = str(entry.get("session_id") or "") if isinstance(entry, Mapping) else ""
        if not sid or sid not in first:
            if sid:
                first[sid] = (index, entry)
            kept.append(entry)
            continue
        earlier, seen = first[sid]
        if entry != seen:
            raise KolabFormatError(
                f"session_id {sid!r} names two different sessions (entries {earlier} and "
                f"{index} of 'sessions')")
        log.warning("session_id %r appears twice (entries %d and %d of 'sessions'); "
                    "counted once", sid, earlier, index)
    return kept


def load_explorer(path: str | Path) -> list[WorkflowGraph]:
    """Load every session of an explorer dataset file (``explorer_sessions.json``).

    Raises:
        KolabFormatError: Naming the file, when it cannot be read as an explorer dataset.
    """
    path = Path(path)
    try:
        data = jsonio.loads(path.read_text(encoding="utf-8"))
        return read_explorer(data)
    except (OSError, ValueError, KolabFormatError, AttributeError) as err:
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
