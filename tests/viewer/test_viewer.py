"""The session page: what it embeds, what it reads, and how the command fails."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from collabsim.graphs.from_trace import graph_from_trace_file
from collabsim.graphs.model import Edge, Node, SessionInfo, Step, WorkflowGraph
from collabsim.graphs.nodelink import write_node_link
from collabsim.viewer import (
    GraphSourceError,
    graph_payload,
    load_graph,
    normalise_session_id,
    render_html,
)


def embedded_payload(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="collabsim-data">(.*?)</script>',
                      page, re.S)
    assert match, "no embedded graph"
    return json.loads(match.group(1))


def small_graph(label: str = "run code") -> WorkflowGraph:
    nodes = [
        Node("a", "D", "human", "ask", intervals=((0.0, 5.0),), step="s"),
        Node("b", "agent", "ai", label, detail="code: print(1)", intervals=((5.0, 9.0),),
             step="s", extra={"action_type": "EXECUTE_CODE", "status": "pending",
                              "request_id": "g1"}),
        Node("c", "agent", "ai", "retry", intervals=((9.0, 12.0), (20.0, 21.0)), step="s"),
    ]
    edges = [Edge("a", "b"), Edge("b", "c"), Edge("c", "b", "loop")]
    return WorkflowGraph(SessionInfo("x|1", goal="find the peak"),
                         [Step("s", "Analysis", collaboration=4, quality=5)], nodes, edges)


def test_payload_marks_crossing_loop_and_gate_request():
    payload = graph_payload(small_graph())
    assert payload["counts"] == {"nodes": 3, "edges": 3, "crossing": 1, "loops": 1}
    assert [lane["actor"] for lane in payload["lanes"]] == ["D", "agent"]  # humans first
    kinds = {n["id"]: n["kind"] for n in payload["nodes"]}
    assert kinds == {"a": "work", "b": "request", "c": "work"}
    assert payload["nodes"][2]["intervals"] == [[9.0, 12.0], [20.0, 21.0]]
    assert payload["steps"][0]["collaboration"] == 4 and payload["steps"][0]["quality"] == 5


def test_page_is_self_contained_and_embeds_the_graph():
    page = render_html(small_graph())
    assert "<script src" not in page and "<link" not in page
    urls = set(re.findall(r"https?://[^\s\"')]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls  # the SVG namespace is not a fetch
    assert embedded_payload(page)["counts"]["nodes"] == 3


def test_text_that_closes_a_script_cannot_break_out_of_the_data_block():
    page = render_html(small_graph(label="</script><script>alert(1)</script>"))
    assert embedded_payload(page)["nodes"][1]["label"] == "</script><script>alert(1)</script>"
    assert page.count("<script") == 2


def test_trace_folder_and_explorer_session_are_read(dr_scaffolded_session, kolab_sessions_path):
    graph = load_graph(dr_scaffolded_session)
    assert graph == graph_from_trace_file(dr_scaffolded_session / "trace.jsonl")
    assert {n.actor for n in graph.nodes} == {"agent", "D", "R"}
    kolab = load_graph(kolab_sessions_path, "p1|s1")
    assert kolab.session.session_id == "p1|session1"
    assert any(s.collaboration is not None for s in kolab.steps)


def test_node_link_file_is_read(tmp_path):
    path = write_node_link(small_graph(), tmp_path / "g.json")
    assert load_graph(path) == small_graph()


def test_short_session_ids_are_expanded():
    assert normalise_session_id("p1|s1") == "p1|session1"
    assert normalise_session_id("p12|session2") == "p12|session2"


def test_explorer_file_without_session_names_the_option(kolab_sessions_path):
    with pytest.raises(GraphSourceError, match="--session"):
        load_graph(kolab_sessions_path)
    with pytest.raises(GraphSourceError, match="p99"):
        load_graph(kolab_sessions_path, "p99|s1")


def run_view(*args, cwd):
    return subprocess.run([sys.executable, "-m", "collabsim.cli.main", "view", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def test_view_command_writes_one_page(tmp_path, kolab_sessions_path):
    out = tmp_path / "k.html"
    proc = run_view(str(kolab_sessions_path), "--session", "p1|s1", "--out", str(out),
                    cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert embedded_payload(out.read_text(encoding="utf-8"))["session"]["session_id"] == "p1|session1"


@pytest.mark.parametrize("args, needle", [
    (["missing.jsonl"], "missing.jsonl"),
    (["{kolab}", "--session", "p99|s9"], "--session"),
])
def test_view_command_user_errors_are_one_line_exit_2(tmp_path, kolab_sessions_path, args, needle):
    args = [a.replace("{kolab}", str(kolab_sessions_path)) for a in args]
    proc = run_view(*args, "--out", str(tmp_path / "v.html"), cwd=tmp_path)
    assert proc.returncode == 2
    assert needle in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "v.html").exists()


def test_every_kolab_session_renders(kolab_sessions_path):
    import warnings

    from collabsim.graphs.explorer_io import load_explorer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graphs = load_explorer(kolab_sessions_path)
    assert len(graphs) == 31
    for graph in graphs:
        payload = embedded_payload(render_html(graph))
        assert payload["counts"]["nodes"] == len(graph)
        assert payload["counts"]["edges"] == len(graph.edges)
