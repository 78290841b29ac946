"""The session page: what it embeds, what it reads, what it tells, and how the command fails."""

from __future__ import annotations

import json
import re

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
    write_view,
)


def embedded_payload(page: str, i: int = 0) -> dict:
    match = re.search(rf'<script type="application/json" id="collabsim-session-{i}">(.*?)</script>',
                      page, re.S)
    assert match, f"no embedded session {i}"
    return json.loads(match.group(1))


def embedded_index(page: str) -> list[dict]:
    match = re.search(r'<script type="application/json" id="collabsim-index">(.*?)</script>',
                      page, re.S)
    assert match, "no session index"
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
    assert page.count("<script") == 3  # the index, the session, the viewer


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


@pytest.fixture
def run_view(collabsim_cli):
    """``collabsim view *args`` in the test process (``collabsim_cli``)."""

    def run(*args, cwd):
        return collabsim_cli("view", *args, cwd=cwd)

    return run


def test_view_command_writes_one_page(tmp_path, kolab_sessions_path, run_view):
    out = tmp_path / "k.html"
    proc = run_view(str(kolab_sessions_path), "--session", "p1|s1", "--out", str(out),
                    cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert embedded_payload(out.read_text(encoding="utf-8"))["session"]["session_id"] == "p1|session1"


@pytest.mark.parametrize("args, needle", [
    (["missing.jsonl"], "missing.jsonl"),
    (["{kolab}", "--session", "p99|s9"], "--session"),
])
def test_view_command_user_errors_are_one_line_exit_2(tmp_path, kolab_sessions_path, args, needle,
                                                     run_view):
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


# --------------------------------------------------------------------------- the story


def test_session_page_tells_question_hypothesis_performance_and_factors(
        viewer_job, dr_scaffolded_session, run_view):
    import pandas as pd

    out = viewer_job / "one.html"
    proc = run_view(str(dr_scaffolded_session), "--out", str(out), cwd=viewer_job)
    assert proc.returncode == 0, proc.stderr
    header = embedded_payload(out.read_text(encoding="utf-8"))["header"]
    row = pd.read_csv(viewer_job / "sessions.csv").set_index("structure").loc["scaffolded"]
    result = json.loads((dr_scaffolded_session / "result.json").read_text(encoding="utf-8"))
    facts = dict(header["facts"])
    assert facts["team"] == "DR" and facts["structure"] == "scaffolded"
    assert facts["task"] == row["task_id"]
    assert header["question"].endswith("?") and len(header["question"]) > 20
    start = json.loads((dr_scaffolded_session / "trace.jsonl").read_text().splitlines()[0])
    assert start["args"]["query"] == header["question"]  # the trace records the question
    assert header["hypothesis"] == result["submitted_hypothesis"] != ""
    assert header["performance"] == pytest.approx(row["Performance"])
    factors = {f["label"]: f["value"] for f in header["factors"]}
    assert factors == pytest.approx({"context": row["context"],
                                     "variable F1": row["variable_f1"],
                                     "relation": row["relation"]})
    assert "gold" not in header
    # both initiative cards, the work phase leaving the scaffolded build phase out
    cards = {c["label"]: c["value"] for c in header["cards"]}
    assert float(cards["H_init,norm"]) == pytest.approx(row["H_init_norm"], abs=0.005)
    assert float(cards["H_init,norm (work)"]) == pytest.approx(row["H_init_work"], abs=0.005)


def test_gold_hypothesis_only_with_show_gold(viewer_job, dr_scaffolded_session, run_view):
    plain, shown = viewer_job / "plain.html", viewer_job / "gold.html"
    for args, out in (((), plain), (("--show-gold",), shown)):
        proc = run_view(str(dr_scaffolded_session), *args, "--out", str(out), cwd=viewer_job)
        assert proc.returncode == 0, proc.stderr
    header = embedded_payload(shown.read_text(encoding="utf-8"))["header"]
    gold = header["gold"]
    assert gold and not gold.startswith("(") and gold != header["hypothesis"]
    page = plain.read_text(encoding="utf-8")
    assert "gold" not in embedded_payload(page)["header"]
    # the team may have written the gold's words in a draft (the transcript shows it); the
    # page with --show-gold holds exactly one copy more: the header's
    escaped = json.dumps(gold, ensure_ascii=False)[1:-1].replace("<", "\\u003c")
    assert page.count(escaped) == shown.read_text(encoding="utf-8").count(escaped) - 1


def test_transcript_is_chronological_and_links_every_node(dr_scaffolded_session):
    from collabsim.viewer import load_view_sessions

    (view,) = load_view_sessions(dr_scaffolded_session)
    entries = view.payload["transcript"]
    assert [e["seq"] for e in entries] == sorted(e["seq"] for e in entries)
    linked = [e["node"] for e in entries if e["node"]]
    assert sorted(linked) == sorted(n["id"] for n in view.payload["nodes"])  # one entry each
    code = [e for e in entries if e["act"] == "EXECUTE_CODE" and e["node"]]
    assert code and all(e["text"] and e["out"] for e in code)  # what ran, and its output
    said = [e for e in entries if e["act"] == "SEND_TEAMMATE_MESSAGE"]
    assert {e["who"] for e in said} == {"ai", "human"} and all(e["text"] for e in said)
    assert any(e["act"] == "EDITOR_UPDATE" and e["text"] for e in entries)


def test_job_folder_gives_one_page_with_a_picker(viewer_job, run_view):
    out = viewer_job / "sweep.html"
    proc = run_view(str(viewer_job), "--out", str(out), cwd=viewer_job)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    index = embedded_index(page)
    assert sorted(s["structure"] for s in index) == ["default", "scaffolded"]
    assert {s["team"] for s in index} == {"DR"}
    assert all(s["outcome"] in ("correct", "partial", "wrong", "not scored") for s in index)
    for i, entry in enumerate(index):
        payload = embedded_payload(page, i)
        assert payload["session"]["session_id"] == entry["id"]
        assert payload["header"]["performance"] == entry["perf"]
    assert 'id="picker"' in page and 'class="many"' in page
    assert "<script src" not in page and "<link" not in page


def test_explorer_file_without_session_gives_every_session_with_metric_cards(
        tmp_path, kolab_sessions_path, run_view):
    out = tmp_path / "kolab.html"
    proc = run_view(str(kolab_sessions_path), "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    index = embedded_index(page)
    assert len(index) == 31 and index[0]["id"] == "p1|session1"
    cards = {c["label"]: c["value"] for c in embedded_payload(page, 0)["header"]["cards"]}
    # the figures the Kolab explorer prints for p1|session1
    assert cards["edges"] == "25" and cards["crossing share"] == "0.24"
    assert cards["branch \u00b7 merge \u00b7 loop"] == "2 \u00b7 2 \u00b7 2"
    assert "step ratings" in cards


def test_report_session_pages_carry_performance_and_no_gold(viewer_job, tmp_path):
    from collabsim.experiment.sweep_report import build_report

    report = build_report([viewer_job], tmp_path / "r", views=write_view)
    assert report.views == 2
    for _, row in report.sessions.iterrows():
        header = embedded_payload((tmp_path / "r" / row["view"]).read_text(encoding="utf-8"))[
            "header"]
        assert header["performance"] == pytest.approx(row["Performance"])
        assert header["hypothesis"] == row["hypothesis"] and "gold" not in header
