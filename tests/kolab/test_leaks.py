"""Leak audits: what a forecasting input may and may not see, and the learned model's folds.

Each test guards one leak and fails when that guard is removed: the strict time cut, the
responder's exclusion, window-only features, same-session history finished strictly before
the cut (and the history features built from it), the rating centring on earlier steps
only, fitting on the training fold only, and (the sum of all of these) a model given shuffled labels scoring at chance.
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


def test_history_holds_only_responses_finished_strictly_before_the_cut(
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
            and (graph.node(r.responder).end or np.inf) < cut
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
            # 1e-12 relative: BLAS summation order differs by CPU in the last digit; a
            # transductive fit moves a prediction by far more
            assert by_id[iid] == pytest.approx(pred, rel=1e-12, abs=1e-12), iid
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


# ----------------------------------------------------------------------------- history features


def _history_block(instances: list[Instance]) -> dict[str, tuple[float, ...]]:
    table = feature_table(instances)
    return {i.instance_id: tuple(table.blocks["history"][k].round(12))
            for k, i in enumerate(instances)}  # fmt: skip


def _flip(label: str) -> str:
    return "reject" if label != "reject" else "adopt"


def test_history_features_read_only_labels_finished_strictly_before_the_cut(
    explorer_graphs: list[WorkflowGraph],
) -> None:
    """Relabel every response an instance may not see: its history features must not move.

    Not visible: responses whose responder ends at or after the cut, other responses to the
    same AI node or by the same responder, and every other session. Relabelling one visible
    response does move them, so the audit can fail.
    """
    graphs = [g for g in explorer_graphs if len(g.responses) >= 5][:4]
    moved = 0
    for graph in graphs:
        instances = build_instances([graph], ["1b+h"]).by_task("1b+h")
        base = _history_block(instances)
        for inst in instances[1:]:
            assert inst.response is not None and inst.window_end is not None
            start = graph.node(inst.response.responder).start
            cut = min(inst.window_end, start if start is not None else np.inf)
            visible = {
                k for k, r in enumerate(graph.responses)
                if r.ai_node != inst.response.ai_node and r.responder != inst.response.responder
                and (graph.node(r.responder).end or np.inf) < cut
            }  # fmt: skip
            hidden = tuple(r if k in visible else replace(r, label=_flip(r.label))
                           for k, r in enumerate(graph.responses))  # fmt: skip
            other = WorkflowGraph(graph.session, graph.steps, graph.nodes, graph.edges, hidden)
            # another session of someone else, relabelled wholesale, built alongside
            stranger = next(g for g in explorer_graphs if g.session.participant_id
                            != graph.session.participant_id)  # fmt: skip
            flipped_stranger = WorkflowGraph(
                stranger.session, stranger.steps, stranger.nodes, stranger.edges,
                tuple(replace(r, label=_flip(r.label)) for r in stranger.responses),
            )  # fmt: skip
            together = build_instances([other, flipped_stranger], ["1b+h"]).by_task("1b+h")
            again = _history_block(together)
            assert again[inst.instance_id] == base[inst.instance_id], inst.instance_id
            if visible:
                k = min(visible)
                shown = tuple(replace(r, label=_flip(r.label)) if j == k else r
                              for j, r in enumerate(graph.responses))  # fmt: skip
                one = WorkflowGraph(graph.session, graph.steps, graph.nodes, graph.edges, shown)
                changed = _history_block(build_instances([one], ["1b+h"]).by_task("1b+h"))
                moved += changed[inst.instance_id] != base[inst.instance_id]
    assert moved > 10


def test_a_response_ending_exactly_at_the_cut_is_not_history() -> None:
    # h1's reaction to a0 ends at 20.0, exactly when a1 (the output forecast) ends.
    nodes = [
        Node("h0", "user", "human", "Ask", "", ((0.0, 5.0),), "0"),
        Node("a0", "claude", "ai", "Answer", "", ((5.0, 10.0),), "0"),
        Node("h1", "user", "human", "Use it and ask more", "", ((10.0, 20.0),), "0"),
        Node("a1", "claude", "ai", "Second answer", "", ((12.0, 20.0),), "0"),
        Node("h2", "user", "human", "Use the second", "", ((21.0, 30.0),), "0"),
    ]
    responses = [Response("h1", "h0", "a0", "reject"), Response("h2", "h1", "a1", "adopt")]
    graph = WorkflowGraph(SessionInfo("py|s1", "py"), [Step("0", "Ask")], nodes,
                          [Edge("h0", "a0"), Edge("a0", "h1"), Edge("h1", "a1"),
                           Edge("a1", "h2")], responses)  # fmt: skip
    inst = build_instances([graph], ["1b+h"]).by_task("1b+h")
    second = next(i for i in inst if i.response is not None and i.response.ai_node == "a1")
    assert second.history == ()
    later = replace(nodes[2], intervals=((10.0, 19.5),))
    graph2 = WorkflowGraph(graph.session, graph.steps, [*nodes[:2], later, *nodes[3:]],
                           graph.edges, responses)  # fmt: skip
    inst2 = build_instances([graph2], ["1b+h"]).by_task("1b+h")
    assert next(i for i in inst2 if i.response and i.response.ai_node == "a1").history == (
        "reject",
    )


def test_rating_centring_reads_only_earlier_steps_of_the_same_session(
    explorer_graphs: list[WorkflowGraph],
) -> None:
    """A step's carry-forward offset and history features ignore its own and later ratings."""
    from collabsim.kolab.predictors.learned import carry_forward_offsets

    graph = max(explorer_graphs, key=lambda g: sum(s.collaboration is not None for s in g.steps))
    base = build_instances([graph], ["2a"]).by_task("2a")
    assert len(base) >= 3
    offsets = carry_forward_offsets(base)
    hist = _history_block(base)
    moved = 0
    for pos, inst in enumerate(base):
        keys = [i.step_key for i in base]
        changed_steps = tuple(
            replace(s, collaboration=1 if (s.collaboration or 0) > 1 else 5)
            if s.key in keys[pos:] else s for s in graph.steps
        )  # fmt: skip
        other = WorkflowGraph(graph.session, changed_steps, graph.nodes, graph.edges,
                              graph.responses)  # fmt: skip
        again = build_instances([other], ["2a"]).by_task("2a")
        assert carry_forward_offsets(again)[pos] == offsets[pos]
        assert _history_block(again)[inst.instance_id] == hist[inst.instance_id]
        if pos + 1 < len(base):
            moved += carry_forward_offsets(again)[pos + 1] != offsets[pos + 1]
    assert moved >= len(base) // 2  # the next step does see the changed rating
