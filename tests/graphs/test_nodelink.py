"""networkx node-link JSON: lossless for every explorer session, readable by networkx."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest

from collabsim.graphs.explorer_io import load_explorer
from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph
from collabsim.graphs.nodelink import (
    NodeLinkFormatError,
    from_node_link,
    is_node_link,
    read_node_link,
    to_node_link,
    write_node_link,
)

pytestmark = pytest.mark.filterwarnings("ignore::collabsim.graphs.kolab_io.GraphDataWarning")


@pytest.fixture(scope="module")
def graphs(kolab_sessions_path: Path) -> list[WorkflowGraph]:
    return load_explorer(kolab_sessions_path)


def test_round_trip_all_sessions(graphs: list[WorkflowGraph]) -> None:
    assert len(graphs) == 31
    for g in graphs:
        data = json.loads(json.dumps(to_node_link(g)))
        assert is_node_link(data)
        back = from_node_link(data)
        assert back == g
        assert back.edges == g.edges and back.responses == g.responses
        assert back.steps == g.steps and back.session == g.session
        assert back.warnings == g.warnings


def test_duplicates_become_multigraph_keys(graphs: list[WorkflowGraph]) -> None:
    g = next(x for x in graphs if x.session.session_id == "p12|session1")
    data = to_node_link(g)
    keys = [e["key"] for e in data["edges"] if (e["source"], e["target"]) == ("g1", "g2")]
    assert keys == list(range(10))
    nxg = nx.node_link_graph(data, edges="edges")
    assert isinstance(nxg, nx.MultiDiGraph)
    assert nxg.number_of_edges("g1", "g2") == 10
    assert nxg.number_of_edges() == len(g.edges) == 93
    assert nxg.graph["session"]["session_id"] == "p12|session1"
    assert nxg.nodes["g1"]["actor_type"] == "human"
    assert Counter(d["type"] for _, _, d in nxg.edges(data=True))["loop"] == 11


def test_file_round_trip_with_ratings_and_extras(tmp_path: Path) -> None:
    g = WorkflowGraph(
        SessionInfo("sim|1", "DR", "team DR", "archaeology", "When did X rise?", extra={"seed": 3}),
        [Step("build", "Build", ("Build",), (0.0, 5.5), collaboration=2, quality=5)],
        [
            Node(
                "e1", "agent", "ai", "run", "code", ((0.25, 5.5),), "build", ("python",), {"seq": 1}
            ),
            Node("e2", "D", "human", intervals=((1.0, 2.0), (3.0, 4.0)), step="build"),
        ],
        [Edge("e1", "e2"), Edge("e1", "e2"), Edge("e2", "e1", "loop")],
        [Response("e2", None, "e1", "modify"), Response("e2", None, "e1", "modify")],
        ["note"],
    )
    back = read_node_link(write_node_link(g, tmp_path / "g.json"))
    assert back == g and back.warnings == ("note",)
    assert back.node("e1").extra == {"seq": 1}


def test_plain_networkx_output_is_accepted() -> None:
    nxg = nx.MultiDiGraph()
    nxg.add_node("a", actor="user", actor_type="human", intervals=[[0, 1]])
    nxg.add_node("b", actor="claude", actor_type="ai")
    nxg.add_edge("a", "b")
    data = nx.node_link_data(nxg, edges="links")
    g = from_node_link(data)
    assert g.edges == (Edge("a", "b", "sequential"),)
    assert g.node("a").intervals == ((0.0, 1.0),)


def test_bad_documents_raise_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(NodeLinkFormatError):
        from_node_link({"edges": []})
    path = tmp_path / "odd.json"
    path.write_text(
        json.dumps(
            {"directed": True, "nodes": [{"id": "a"}], "edges": [{"source": "a", "target": "zz"}]}
        )
    )
    with pytest.raises(NodeLinkFormatError, match="odd.json"):
        read_node_link(path)
