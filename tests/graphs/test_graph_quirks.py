"""Kolab graphs with self-loops, edges backwards in time or absurd times are warned about
and listed, not counted silently (issue 23, item 15)."""

from __future__ import annotations

import json

import pytest

from collabsim.graphs.explorer_io import explorer_session_to_graph
from collabsim.graphs.kolab_io import GraphDataWarning, kolab_to_graph
from collabsim.graphs.model import Edge


def _session() -> dict:
    return {
        "session_id": "q|s1",
        "participant_id": "q",
        "steps": [],
        "nodes": [
            {"id": "a", "actor": "Human", "time": "00:10-00:20"},
            {"id": "b", "actor": "AI", "time": "00:30-00:40"},
            {"id": "c", "actor": "Human", "time": "99999999:00:00-99999999:00:05"},
        ],
        "edges": [
            {"from": "a", "to": "a", "type": "sequential"},  # self-loop
            {"from": "b", "to": "a", "type": "sequential"},  # a ended before b started
            {"from": "b", "to": "a", "type": "loop"},  # a loop back is expected
            {"from": "a", "to": "b", "type": "sequential"},
        ],
        "responses": [],
    }


def _kolab_graph() -> dict:
    """The same session in the Kolab graph format (nodes and edges inside a step)."""
    data = _session()
    return {"session_id": data["session_id"], "participant_id": "q",
            "steps": [{"step_id": 0, "nodes": data["nodes"], "edges": data["edges"]}]}


@pytest.mark.parametrize(("reader", "data"), [(explorer_session_to_graph, _session),
                                              (kolab_to_graph, _kolab_graph)])
def test_self_loops_backward_edges_and_absurd_times_are_listed(reader, data):
    with pytest.warns(GraphDataWarning) as record:
        graph = reader(data())
    messages = [str(w.message) for w in record]
    assert any("a->a is a self-loop" in m for m in messages), messages
    assert any("b->a (sequential) goes backwards in time" in m for m in messages), messages
    assert not any("(loop) goes backwards" in m for m in messages)
    assert any("node c" in m and "99,999,999 h" in m for m in messages), messages
    assert Edge("a", "a", "sequential") not in graph.edges  # a self-loop is not counted
    assert len(graph.warnings) == len(record)


def test_kolab_instances_lists_the_quirks(tmp_path, collabsim_cli):
    data = tmp_path / "sessions.json"
    data.write_text(json.dumps({"sessions": [_session()]}), encoding="utf-8")
    proc = collabsim_cli("kolab", "instances", "--data", str(data), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "self-loop" in proc.stderr and "backwards in time" in proc.stderr
    assert "99,999,999 h" in proc.stderr
    assert "(3 data-quality warnings, listed on stderr)" in proc.stdout
