"""Whether humans answer the AI's output: ``ai_response_share`` and ``last_ai_responded``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib import image as mpimg

from collabsim.calibration.answered import (
    ai_outputs,
    ai_response_share,
    last_ai_responded,
)
from collabsim.calibration.fidelity import (
    AdoptCheck,
    Fidelity,
    compare_metric,
    share_comparison,
)
from collabsim.calibration.fidelity_report import plot_metric, report_markdown, share_sentence
from collabsim.calibration.fit import wilson_interval
from collabsim.core.events import TraceEvent
from collabsim.graphs.explorer_io import load_explorer
from collabsim.graphs.from_trace import graph_from_trace
from collabsim.graphs.model import Node, Response, SessionInfo, WorkflowGraph


def _kolab(ai_spans: dict[str, tuple[float, float]], answered: list[str]) -> WorkflowGraph:
    """Kolab-style graph: AI nodes with the given spans, one human node answering each of
    ``answered``, plus one unrelated human node."""
    nodes = [Node(i, "AI", "ai", intervals=(span,)) for i, span in ai_spans.items()]
    nodes.append(Node("h0", "Human", "human", intervals=((0, 1),)))
    responses = []
    for k, target in enumerate(answered):
        nodes.append(Node(f"r{k}", "Human", "human", intervals=((100 + k, 101 + k),)))
        responses.append(Response(f"r{k}", "h0", target, "adopt"))
    return WorkflowGraph(SessionInfo("s"), (), nodes, (), responses)


def test_kolab_share_and_last_output_by_hand():
    spans = {"a1": (0.0, 10.0), "a2": (20.0, 30.0), "a3": (40.0, 50.0)}
    # a1 answered twice still counts once: 2 of 3 outputs answered, the last (a3) among them
    g = _kolab(spans, ["a1", "a1", "a3"])
    assert ai_response_share(g) == pytest.approx(2 / 3)
    assert last_ai_responded(g) == 1.0
    g = _kolab(spans, ["a1", "a2"])  # the last output is left unanswered
    assert ai_response_share(g) == pytest.approx(2 / 3)
    assert last_ai_responded(g) == 0.0
    assert [[n.id for n in o] for o in ai_outputs(g)] == [["a1"], ["a2"], ["a3"]]


def test_last_output_ties_go_to_the_later_start_then_the_later_node():
    later_start = {"a1": (0.0, 50.0), "a2": (45.0, 50.0), "a3": (10.0, 20.0)}
    assert last_ai_responded(_kolab(later_start, ["a2"])) == 1.0
    assert last_ai_responded(_kolab(later_start, ["a1"])) == 0.0
    same_span = {"a1": (40.0, 50.0), "a2": (40.0, 50.0)}
    assert last_ai_responded(_kolab(same_span, ["a2"])) == 1.0
    assert last_ai_responded(_kolab(same_span, ["a1"])) == 0.0


def test_undefined_without_ai_nodes():
    g = _kolab({}, [])
    assert math.isnan(ai_response_share(g)) and math.isnan(last_ai_responded(g))


def _sim(
    nid: str, action: str, span: tuple[float, float], status: str = "ok", detail: str = "",
    request: str | None = None, actor: str = "agent",
) -> Node:  # fmt: skip
    extra: dict[str, Any] = {"action_type": action, "status": status}
    if request is not None:
        extra["request_id"] = request
    kind = "ai" if actor == "agent" else "human"
    return Node(nid, actor, kind, detail=detail, intervals=(span,), extra=extra)


def test_simulated_outputs_leave_out_submission_and_merge_request_outcome_and_announcement():
    nodes = [
        _sim("m1", "MEMORY_ADD", (0, 1)),
        _sim("m2", "MEMORY_AGREE", (1, 2)),  # assent, no output
        _sim("c1", "EXECUTE_CODE", (2, 5)),
        _sim("u1", "EDITOR_UPDATE", (5, 6), "pending", request="g1"),
        _sim("d1", "APPROVE", (6, 8), request="g1", actor="D"),
        _sim("u1o", "EDITOR_UPDATE", (8, 8), "approved", request="g1"),
        _sim("n1", "SEND_TEAMMATE_MESSAGE", (8, 9), detail='message: Draft: "x" [draft=0a1b2c3d]'),
        _sim("k1", "SEND_TEAMMATE_MESSAGE", (9, 10), detail="message: I keep my answer."),
        _sim("f1", "FINISH", (30, 31)),  # ungated submission, no output
    ]
    g = WorkflowGraph(SessionInfo("s"), (), nodes, (), [Response("d1", None, "u1", "adopt")])
    outputs = [[n.id for n in o] for o in ai_outputs(g)]
    assert outputs == [["m1"], ["c1"], ["u1", "u1o", "n1"], ["k1"]]
    assert ai_response_share(g) == 0.25
    assert last_ai_responded(g) == 0.0  # the plain message k1 is the last output
    without_k1 = g.subgraph([n.id for n in nodes if n.id != "k1"])
    # the announcement n1 ends last and belongs to the approved draft
    assert last_ai_responded(without_k1) == 1.0
    assert ai_response_share(without_k1) == pytest.approx(1 / 3)


def _ev(seq: int, t0: float, t1: float, actor: str, action: str, status: str = "ok",
        refs: tuple[int, ...] = (), **args: Any) -> TraceEvent:  # fmt: skip
    kind = {"env": "env", "agent": "ai"}.get(actor, "human")
    return TraceEvent(seq, t0, t1, actor, kind, action, args, status, "", refs)


@pytest.mark.parametrize("landed", [True, False])
def test_a_reaction_cut_off_by_the_agents_finish_leaves_the_last_output_unanswered(landed):
    """The case the metric exists for: the agent drafts, announces, and finishes while a
    collaborator's edit of the draft is still being typed (status ``interrupted``)."""
    edit_end = 25.0 if landed else 60.0
    trace = [
        _ev(0, 0, 0, "env", "SESSION_START", team="D", structure="default"),
        _ev(1, 0, 10, "agent", "EXECUTE_CODE", code="x"),
        _ev(2, 10, 12, "agent", "EDITOR_UPDATE", text="X rose in 2000 BCE"),
        _ev(3, 12, 13, "agent", "SEND_TEAMMATE_MESSAGE",
            message='Draft: "X rose in 2000 BCE". Please check it. [draft=0596179b]'),
        _ev(4, 13, edit_end, "D", "EDITOR_UPDATE", "ok" if landed else "interrupted", refs=(2,),
            text="X rose c. 2300 BCE"),
        _ev(5, 30, 31, "agent", "FINISH"),
    ]  # fmt: skip
    g = graph_from_trace(trace, session_id="s", team="D")
    assert [[n.id for n in o] for o in ai_outputs(g)] == [["e1"], ["e2", "e3"]]
    assert last_ai_responded(g) == (1.0 if landed else 0.0)
    assert ai_response_share(g) == (0.5 if landed else 0.0)


def test_wilson_interval_by_hand():
    lo, hi = wilson_interval(30, 31)
    assert (round(lo, 2), round(hi, 2)) == (0.84, 0.99)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    # p = 1/2, n = 4: centre 1/2, half-width z sqrt(1/16 + z^2/64) / (1 + z^2/4)
    z = 1.959964
    half = z * math.sqrt(1 / 16 + z * z / 64) / (1 + z * z / 4)
    assert wilson_interval(2, 4) == pytest.approx((0.5 - half, 0.5 + half))
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


@pytest.mark.filterwarnings("ignore::collabsim.graphs.kolab_common.GraphDataWarning")
def test_real_kolab_values(kolab_sessions_path: Path):
    """On the 31 real sessions: the last AI node is answered in 30, and 216 of the 335 AI
    nodes are answered (8 more responses name a node the explorer draws as Human, which is
    no AI node here)."""
    graphs = load_explorer(kolab_sessions_path)
    last = np.array([last_ai_responded(g) for g in graphs])
    assert len(last) == 31 and last.sum() == 30
    unanswered = [g.session.session_id for g, v in zip(graphs, last, strict=True) if v == 0]
    assert unanswered == ["p4|session1"]
    outputs = [ai_outputs(g) for g in graphs]
    answered = sum(
        any(n.id in {r.ai_node for r in g.responses} for n in o)
        for g, outs in zip(graphs, outputs, strict=True)
        for o in outs
    )
    assert (answered, sum(len(o) for o in outputs)) == (216, 335)
    shares = np.array([ai_response_share(g) for g in graphs])
    assert shares.mean() == pytest.approx(0.6730, abs=5e-5)
    assert np.median(shares) == pytest.approx(2 / 3)


def test_a_binary_metric_is_reported_as_two_shares_with_wilson_intervals(tmp_path: Path):
    comp = compare_metric("last_ai_responded", [1.0] * 30 + [0.0], [1.0, 0.0, 0.0, math.nan])
    s = share_comparison(comp)
    assert (s.real_hits, s.real_n, s.sim_hits, s.sim_n) == (30, 31, 1, 3)
    assert share_sentence(comp) == (
        "real 30/31 = 0.97 [0.84, 0.99] vs simulated 1/3 = 0.33 [0.06, 0.79]"
    )
    fid = Fidelity([], [], [comp], AdoptCheck(0, 0, 0.2, 1.0, 0.6))
    text = report_markdown(fid, "sim", "kolab")
    assert "| 30/31 = 0.97 [0.84, 0.99] | 31 (0) | 1/3 = 0.33 [0.06, 0.79] | 3 (1) |" in text
    assert "The intervals overlap" not in text and "do not overlap" in text
    plot_metric(comp, tmp_path / "p.png")
    img = mpimg.imread(tmp_path / "p.png")
    assert img[..., :3].std() > 0.05
