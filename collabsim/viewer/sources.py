"""Find the workflow graph behind a path: a trace, a session folder, or a graph file.

Accepted inputs:

* a simulated trace (``trace.jsonl``) or a session folder holding one;
* a Kolab graph JSON file (one session);
* a networkx node-link JSON file;
* the Kolab explorer dataset (``explorer_sessions.json``) together with a session id
  (``p1|session1``, or the short form ``p1|s1``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from collabsim.graphs.explorer_io import read_explorer
from collabsim.graphs.from_trace import graph_from_trace_file
from collabsim.graphs.kolab_io import kolab_to_graph
from collabsim.graphs.model import WorkflowGraph
from collabsim.graphs.nodelink import from_node_link, is_node_link


class GraphSourceError(ValueError):
    """The path is not a graph the viewer can read; the message says why in one line."""


def normalise_session_id(session: str) -> str:
    """``p1|s1`` -> ``p1|session1``; full ids pass through."""
    match = re.fullmatch(r"\s*([^|]+)\|s(?:ession)?(\d+)\s*", session)
    return f"{match.group(1)}|session{match.group(2)}" if match else session.strip()


def load_graph(path: str | Path, session: str | None = None) -> WorkflowGraph:
    """Read the workflow graph at ``path``.

    Args:
        path: Trace file, session folder, Kolab graph JSON, node-link JSON or explorer file.
        session: Session id to pick from an explorer file (required there).

    Raises:
        GraphSourceError: Missing file, unknown format, or an unknown / missing session id.
    """
    path = _graph_file(Path(path))
    if path.suffix == ".jsonl":
        return graph_from_trace_file(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise GraphSourceError(f"{path}: not a JSON graph or a JSONL trace ({err})") from err
    if isinstance(data, dict) and isinstance(data.get("sessions"), list):
        return _explorer_session(data["sessions"], session, path)
    if is_node_link(data):
        return from_node_link(data)
    if isinstance(data, dict) and "steps" in data and "session_id" in data:
        return kolab_to_graph(data)
    raise GraphSourceError(
        f"{path}: not a trace, a Kolab graph, a node-link graph or an explorer file"
    )


def _graph_file(path: Path) -> Path:
    """The file to read: ``path``, or the ``trace.jsonl`` of a session folder.

    Raises:
        GraphSourceError: A folder without a trace, or no such file.
    """
    if path.is_dir():
        trace = path / "trace.jsonl"
        if not trace.is_file():
            raise GraphSourceError(f"{path}: folder has no trace.jsonl")
        path = trace
    if not path.is_file():
        raise GraphSourceError(f"{path}: no such file")
    return path


def _explorer_session(sessions: list, session: str | None, path: Path) -> WorkflowGraph:
    """The graph of one session of an explorer file (``p1|s1`` or the full id).

    Raises:
        GraphSourceError: No session chosen, or no session of that id.
    """
    if not session:
        ids = [str(s.get("session_id")) for s in sessions[:5]]
        raise GraphSourceError(
            f"{path}: an explorer file holds {len(sessions)} sessions; "
            f"choose one with --session (e.g. {', '.join(ids)})"
        )
    wanted = normalise_session_id(session)
    picked = [s for s in sessions if s.get("session_id") == wanted]
    if not picked:
        raise GraphSourceError(f"--session: no session {wanted!r} in {path}")
    return read_explorer({"sessions": picked})[0]
