"""Leak audits: what a forecasting input may and may not see, and the learned model's folds.

Each test guards one leak and fails when that guard is removed: the strict time cut, the
responder's exclusion, window-only features, same-session history, fitting on the training
fold only, and (the sum of all of these) a model given shuffled labels scoring at chance.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph
from collabsim.kolab.chance import permutation_null, stratified_chance
from collabsim.kolab.evaluate import macro_f1
from collabsim.kolab.instances import Instance, InstanceSet, build_instances
from collabsim.kolab.predictors.features import feature_table
from collabsim.kolab.predictors.learned import LearnedPredictor, ModelConfig

FORECAST_TASKS = ("1b", "1b+h", "1c-k1", "1c-k2", "1c-k3", "1d")
# a small grid keeps the learned-model audits fast; the audits do not depend on its size
SMALL_GRID = (
    ModelConfig(("text", "cues"), 8, 30.0),
    ModelConfig(("text", "cues", "structure"), 32, 30.0),
)


def _features(instances: list[Instance]) -> dict[tuple[str, str], tuple]:
    """Feature values keyed by (session, AI node, responder): independent of ordering."""
    table = feature_table(instances)
    out = {}
    for k, inst in enumerate(instances):
        assert inst.response is not None
        key = (inst.session_id, inst.response.ai_node, inst.response.responder)
        texts = tuple(table.texts[c][k] for c in sorted(table.texts))
        blocks = tuple(tuple(table.blocks[g][k].round(12)) for g in sorted(table.blocks))
        out[key] = (texts, blocks, inst.history)
    return out


# ----------------------------------------------------------------------------- time cut


def test_forecast_windows_are_cut_strictly_before_the_end(
    explorer_graphs: list[WorkflowGraph], explorer_instances: InstanceSet
) -> None:
    # The hazard is real: in 110 of 247 responses a node other than the responder (the
    # human's next action) starts exactly when the AI output ends.
    at_end = 0
    for graph in explorer_graphs:
        for resp in graph.responses:
            end = graph.node(resp.ai_node).end
            anchors = {resp.ai_node, resp.source, resp.responder}
            at_end += any(
                n.id not in anchors and end in [s for s, _ in n.intervals] for n in graph.nodes
            )
    assert at_end == 110
    for task in FORECAST_TASKS:
        for inst in explorer_instances.by_task(task):
            assert inst.response is not None and inst.window_end is not None
            anchors = {inst.response.ai_node, inst.response.source}
            for node in inst.window.nodes:
                if node.id not in anchors:
                    assert all(s < inst.window_end for s, _ in node.intervals), inst.instance_id
                assert all(e <= inst.window_end for _, e in node.intervals)


def test_forecast_windows_never_hold_the_responder(explorer_instances: InstanceSet) -> None:
    for task in FORECAST_TASKS:
        for inst in explorer_instances.by_task(task):
            assert inst.response is not None
            assert inst.response.responder not in inst.window, inst.instance_id
            assert not inst.window.responses
    assert all(i.response.responder in i.window for i in explorer_instances.by_task("1a"))  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- features


def _session_with_responses(graphs: list[WorkflowGraph], n: int = 5) -> WorkflowGraph:
    return next(g for g in graphs if len(g.responses) >= n and len(g.steps) >= 2)


def test_features_do_not_see_the_responder(explorer_graphs: list[WorkflowGraph]) -> None:
    graph = _session_with_responses(explorer_graphs)
    responders = {r.responder for r in graph.responses}
    # Only responders that respond to one AI output: a node can also be the next request.
    requested = {r.source for r in graph.responses}
    def variant(stretch: float) -> WorkflowGraph:
        changed = [
            replace(n, label="LEAK adopted it", detail="LEAK rejected everything",
                    intervals=tuple((s, e + stretch) for s, e in n.intervals))
            if n.id in responders - requested else n
            for n in graph.nodes
        ]  # fmt: skip
        return WorkflowGraph(graph.session, graph.steps, changed, graph.edges, graph.responses)

    # In 1b+h a responder's end time decides whether an *earlier* response is history, so
    # only its text is changed there.
    for task, stretch in (("1b", 999.0), ("1d", 999.0), ("1b+h", 0.0)):
        base = build_instances([graph], [task]).by_task(task)
        leaked = build_instances([variant(stretch)], [task]).by_task(task)
        assert _features(base) == _features(leaked), task
        assert not any("LEAK" in t for docs in feature_table(leaked).texts.values() for t in docs)


def test_features_ignore_session_length_later_responses_and_response_order(
    explorer_graphs: list[WorkflowGraph],
) -> None:
    graph = _session_with_responses(explorer_graphs)
    last = max(n.end or 0.0 for n in graph.nodes)
    later_h = Node("late_h", "user", "human", "Asks again", "after the session",
                   ((last + 10, last + 20),), graph.steps[-1].key)  # fmt: skip
    later_ai = Node("late_ai", "claude", "ai", "Answers", "explains and drafts",
                    ((last + 20, last + 30),), "extra")  # fmt: skip
    longer = WorkflowGraph(
        graph.session,
        (*graph.steps, Step("extra", "An extra step", collaboration=1, quality=1)),
        (*graph.nodes, later_h, later_ai),
        (*graph.edges, Edge("late_h", "late_ai")),
        (*graph.responses, Response("late_h", None, "late_ai", "reject")),
    )
    reordered = WorkflowGraph(
        graph.session, graph.steps, graph.nodes, graph.edges, tuple(reversed(graph.responses))
    )
    for task in ("1b", "1b+h", "1d"):
        base = _features(build_instances([graph], [task]).by_task(task))
        grown = _features(build_instances([longer], [task]).by_task(task))
        assert {k: v for k, v in grown.items() if k[1] != "late_ai"} == base, task
        assert _features(build_instances([reordered], [task]).by_task(task)) == base, task


def test_history_comes_from_the_same_session_and_never_the_same_ai_node(
    explorer_graphs: list[WorkflowGraph],
) -> None:
    by_participant = Counter(g.session.participant_id for g in explorer_graphs)
    multi = [g for g in explorer_graphs if by_participant[g.session.participant_id] > 1]
    assert multi  # participants with several sessions exist, so the audit can fail
    together = build_instances(multi, ["1b+h"]).by_task("1b+h")
    alone = [i for g in multi for i in build_instances([g], ["1b+h"]).by_task("1b+h")]
    assert [i.history for i in together] == [i.history for i in alone]
    assert sum(bool(i.history) for i in together) > 20
    for graph in multi:
        # relabelling the other responses to the same AI node must not move any history
        flipped = tuple(
            replace(r, label="reject" if r.label != "reject" else "adopt")
            for r in graph.responses
        )
        instances = build_instances([graph], ["1b+h"]).by_task("1b+h")
        for inst in instances:
            assert inst.response is not None and inst.response_index is not None
            same_ai = [
                k for k, r in enumerate(graph.responses)
                if r.ai_node == inst.response.ai_node or r.responder == inst.response.responder
            ]  # fmt: skip
            mixed = tuple(
                flipped[k] if k in same_ai and k != inst.response_index else r
                for k, r in enumerate(graph.responses)
            )
            other = WorkflowGraph(graph.session, graph.steps, graph.nodes, graph.edges, mixed)
            again = {i.instance_id: i for i in build_instances([other], ["1b+h"]).instances}
            assert again[inst.instance_id].history == inst.history


def test_history_holds_only_responses_finished_by_the_cut(
    explorer_instances: InstanceSet, explorer_graphs: list[WorkflowGraph]
) -> None:
    graphs = {g.session.session_id: g for g in explorer_graphs}
    for inst in explorer_instances.by_task("1b+h"):
        graph = graphs[inst.session_id]
        assert inst.response is not None and inst.window_end is not None
        responder_start = graph.node(inst.response.responder).start
        cut = min(inst.window_end, responder_start if responder_start is not None else np.inf)
        finished = [
            r.label for r in graph.responses
            if r.ai_node != inst.response.ai_node and r.responder != inst.response.responder
            and (graph.node(r.responder).end or np.inf) <= cut
        ]  # fmt: skip
        assert sorted(inst.history) == sorted(finished)


# ----------------------------------------------------------------------------- folds


def _few_participants(instances: InstanceSet, task: str, k: int = 6) -> list[Instance]:
    keep = sorted({i.participant_id for i in instances.by_task(task)})[:k]
    return [i for i in instances.by_task(task) if i.participant_id in keep]


def test_held_out_predictions_do_not_depend_on_the_held_out_fold(
    explorer_instances: InstanceSet,
) -> None:
    """Drop one of a held-out participant's instances: its other predictions must not move.

    Nothing (TF-IDF weights, LSA, scaling, model selection) may be fitted on the held-out
    participant, so its own instances cannot influence each other's predictions. Ratings
    are predicted as continuous values, so even a tiny transductive fit shows.
    """
    inst = _few_participants(explorer_instances, "2b")
    grid = (ModelConfig(("text", "cues"), 8, 30.0),)
    full = LearnedPredictor(progress=False, grid=grid, inner_folds=3).predict(inst)
    counts = Counter(i.participant_id for i in inst)
    pid = next(p for p, n in counts.items() if n >= 3)
    dropped = next(k for k, i in enumerate(inst) if i.participant_id == pid)
    reduced = [i for k, i in enumerate(inst) if k != dropped]
    run = LearnedPredictor(progress=False, grid=grid, inner_folds=3).predict(reduced)
    by_id = dict(zip(run.instance_ids, run.predictions, strict=True))
    for iid, pred in zip(full.instance_ids, full.predictions, strict=True):
        if iid in by_id and iid.startswith(f"{pid}|"):
            assert by_id[iid] == pred, iid
    others = [p for i, p in zip(full.instance_ids, full.predictions, strict=True)
              if i in by_id and not i.startswith(f"{pid}|") and by_id[i] != p]  # fmt: skip
    assert others  # the dropped instance does reach the other participants' training folds


def test_a_model_given_shuffled_labels_scores_at_chance(explorer_instances: InstanceSet) -> None:
    inst = explorer_instances.by_task("1b")
    chance = stratified_chance("adoption", [i.target for i in inst], n_draws=500)["macro_f1"]
    predictor = LearnedPredictor(progress=False, grid=SMALL_GRID, inner_folds=3)
    null = permutation_null(predictor, inst, observed=np.nan, n_permutations=4, seed=1)
    assert len(null.scores) == 4
    assert null.mean == pytest.approx(chance.mean, abs=0.06)
    assert max(null.scores) < chance.high + 0.03
    # the true labels go through the same code path and are scored the same way
    y = np.array([i.target for i in inst], dtype=object)
    assert macro_f1(y.tolist(), predictor.predict_labels(inst, y)) > 0.0


def test_history_leaves_out_earlier_reactions_to_the_same_ai_output() -> None:
    # An AI output delivered in two parts: the professional reacted to the first part (h2)
    # before the output ended; that reaction describes the very output being forecast.
    nodes = [
        Node("h1", "user", "human", "Ask for a draft", "", ((0.0, 10.0),), "0"),
        Node("a1", "claude", "ai", "Draft, in two parts", "", ((10.0, 20.0), (50.0, 60.0)), "0"),
        Node("h2", "user", "human", "Edit the first part", "", ((25.0, 30.0),), "0"),
        Node("h0", "user", "human", "Earlier request", "", ((-40.0, -30.0),), "0"),
        Node("a0", "claude", "ai", "Earlier answer", "", ((-30.0, -20.0),), "0"),
        Node("h3", "user", "human", "Use the earlier answer", "", ((-20.0, -10.0),), "0"),
        Node("h4", "user", "human", "Use the draft", "", ((60.0, 70.0),), "0"),
    ]
    graph = WorkflowGraph(
        SessionInfo("px|s1", "px"),
        [Step("0", "Write")],
        nodes,
        [Edge("h1", "a1"), Edge("a1", "h2"), Edge("h2", "h4"), Edge("h0", "a0"), Edge("a0", "h3")],
        [
            Response("h3", "h0", "a0", "reject"),
            Response("h2", "h1", "a1", "modify"),
            Response("h4", "h1", "a1", "adopt"),
        ],
    )
    inst = build_instances([graph], ["1b+h"]).by_task("1b+h")
    last = next(i for i in inst if i.response is not None and i.response.responder == "h4")
    assert last.history == ("reject",)  # the other session response, not h2's "modify"
