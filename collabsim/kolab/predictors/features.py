"""Features of an instance's window for the learned predictors.

Everything is computed from the window graph (which holds no response labels and no step
ratings) and from the step plan (step names and order, known before the session). Numeric
features:

* structure: nodes, human/AI nodes, AI share, edges, loop edges, crossing edges and their
  share, branch nodes (out-degree > 1) and merge nodes (in-degree > 1) inside the window;
* timing: window length, AI-node length, source length, source-end-to-AI-start gap, time of
  the window end since session start (log seconds);
* position: step position in the plan (0 = first, 1 = last), number of steps, last-step flag;
* who acted last before the AI output (human / AI / nobody), AI outputs earlier in the window;
* loop/branch context of the AI node: on a loop edge, its in/out-degree, the source's
  out-degree;
* 1a only (the response is visible): responder length, gap from AI end to responder start,
  nodes in between;
* rating tasks: the same structure and timing over the step's subgraph.

Texts: ``focus`` (label and detail of the AI node and the source; for ratings every node of
the step), ``response`` (label and detail of the responder, 1a only: the key evidence of
recognition gets its own vocabulary block) and ``context`` (labels of all window nodes).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from collabsim.graphs.model import Node, WorkflowGraph
from collabsim.kolab.instances import Instance

TEXT_COLUMNS: tuple[str, ...] = ("focus", "response", "context")


def _dur(node: Node | None) -> float:
    if node is None or node.start is None or node.end is None:
        return 0.0
    return max(0.0, node.end - node.start)


def _log(x: float) -> float:
    return math.log1p(max(0.0, x))


def _structure(graph: WorkflowGraph) -> dict[str, float]:
    nodes = graph.nodes
    n = len(nodes)
    n_ai = sum(node.actor_type == "ai" for node in nodes)
    out_deg: Counter[str] = Counter(e.source for e in graph.edges)
    in_deg: Counter[str] = Counter(e.target for e in graph.edges)
    n_edges = len(graph.edges)
    crossing = sum(graph.is_crossing(e) for e in graph.edges)
    return {
        "n_nodes": float(n),
        "n_human": float(n - n_ai),
        "n_ai": float(n_ai),
        "ai_share": n_ai / n if n else 0.0,
        "n_edges": float(n_edges),
        "n_loop": float(sum(e.type == "loop" for e in graph.edges)),
        "n_crossing": float(crossing),
        "crossing_share": crossing / n_edges if n_edges else 0.0,
        "n_branch": float(sum(d > 1 for d in out_deg.values())),
        "n_merge": float(sum(d > 1 for d in in_deg.values())),
    }


def _text(node: Node | None) -> str:
    if node is None:
        return ""
    return f"{node.label}. {node.detail}"


def _step_position(graph: WorkflowGraph, key: str | None) -> dict[str, float]:
    keys = [s.key for s in graph.steps]
    n = len(keys)
    if key is None or key not in keys:
        return {"step_pos": 0.5, "n_steps": float(n), "is_last_step": 0.0, "step_missing": 1.0}
    pos = keys.index(key)
    return {
        "step_pos": pos / (n - 1) if n > 1 else 0.0,
        "n_steps": float(n),
        "is_last_step": float(pos == n - 1),
        "step_missing": 0.0,
    }


def instance_features(instance: Instance) -> dict[str, Any]:
    """Numeric features plus the ``focus`` and ``context`` texts of one instance."""
    graph = instance.window
    feats: dict[str, Any] = _structure(graph)
    start = instance.window_start or 0.0
    end = instance.window_end or 0.0
    feats["log_window_len"] = _log(end - start)
    feats["log_time_since_start"] = _log(end)
    feats.update(_step_position(graph, instance.step_key))
    feats["context"] = " ".join(n.label for n in graph.nodes)
    resp = instance.response
    if resp is None:
        feats["focus"] = " ".join(_text(n) for n in graph.nodes)
        return feats
    ai = graph.node(resp.ai_node)
    src = graph.node(resp.source) if resp.source is not None and resp.source in graph else None
    feats["has_source"] = float(src is not None)
    feats["log_ai_len"] = _log(_dur(ai))
    feats["log_src_len"] = _log(_dur(src))
    gap = (ai.start - src.end) if src and ai.start is not None and src.end is not None else 0.0
    feats["log_src_ai_gap"] = _log(gap)
    feats["ai_drawn_human"] = float(ai.actor_type != "ai")
    earlier = sorted(
        (
            n
            for n in graph.nodes
            if n.id not in {ai.id}
            and n.start is not None
            and ai.start is not None
            and n.start <= ai.start
        ),
        key=lambda n: n.start or 0.0,
    )
    prev = earlier[-1] if earlier else None
    feats["prev_human"] = float(prev is not None and prev.actor_type == "human")
    feats["prev_ai"] = float(prev is not None and prev.actor_type == "ai")
    feats["n_ai_before"] = float(sum(n.actor_type == "ai" for n in earlier))
    feats["ai_on_loop"] = float(
        any(e.type == "loop" and ai.id in (e.source, e.target) for e in graph.edges)
    )
    feats["ai_in_degree"] = float(sum(e.target == ai.id for e in graph.edges))
    feats["ai_out_degree"] = float(sum(e.source == ai.id for e in graph.edges))
    feats["src_out_degree"] = float(
        sum(e.source == src.id for e in graph.edges) if src is not None else 0
    )
    focus = [_text(ai), _text(src)]
    if instance.task == "1a" and resp.responder in graph:
        responder = graph.node(resp.responder)
        feats["log_resp_len"] = _log(_dur(responder))
        r_gap = (
            responder.start - ai.end if responder.start is not None and ai.end is not None else 0.0
        )
        feats["log_resp_gap"] = _log(r_gap)
        feats["n_between"] = float(
            sum(
                1
                for n in graph.nodes
                if n.start is not None
                and ai.end is not None
                and responder.start is not None
                and ai.end <= n.start < responder.start
                and n.id != responder.id
            )
        )
        feats["response"] = _text(responder)
    feats["focus"] = " ".join(t for t in focus if t)
    return feats


def feature_table(instances: Sequence[Instance]) -> tuple[list[dict[str, Any]], list[str]]:
    """Feature dicts of all instances (missing numeric features filled with 0) and the
    sorted numeric column names."""
    rows = [instance_features(i) for i in instances]
    numeric = sorted({k for row in rows for k in row if k not in TEXT_COLUMNS})
    for row in rows:
        for key in numeric:
            row.setdefault(key, 0.0)
        for key in TEXT_COLUMNS:
            row.setdefault(key, "")
    return rows, numeric
