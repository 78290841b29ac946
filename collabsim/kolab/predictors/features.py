"""Features of an instance's window for the learned predictors, in switchable groups.

Everything is computed from the window graph (no response labels, no step ratings, no node
after the window's cut) and, for history tasks, from :attr:`Instance.history`. Nothing reads
the responder in forecasting tasks, the session's length, its number of responses or steps,
the response index, the instance id or another session. Groups:

* ``text``: two texts turned into LSA components inside each training fold (see
  :mod:`~collabsim.kolab.predictors.learned`): ``output`` (label and detail of the AI node;
  for ratings of the step's AI nodes) and ``request`` (the source node; for ratings the
  step's human nodes). In 1a, where the response is visible, a third text ``response``.
* ``cues``: the interpretable cue counts of :mod:`~collabsim.kolab.predictors.cues`.
* ``structure``: a few window facts: window and AI-output length, elapsed session time at
  the window end, nodes in the window, earlier AI outputs, who acted last, whether the AI
  node sits on a loop edge, whether there is a source; 1a adds the response's length and
  delay. Ratings: the step's nodes, AI share, edges, loops and duration.
* ``history``: in 1b+h the number of earlier responses of the session, their label shares
  with a Laplace prior, recency-weighted shares and the last label; for ratings whether the
  step is the session's first rated one, the previous rating and the number of earlier
  ones. Other adoption tasks have no history.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from collabsim.graphs.model import RESPONSE_LABELS, Node
from collabsim.kolab.instances import Instance
from collabsim.kolab.predictors.baselines import carry_forward
from collabsim.kolab.predictors.cues import CUE_NAMES, cue_counts

FEATURE_GROUPS: tuple[str, ...] = ("text", "cues", "structure", "history")


@dataclass(frozen=True)
class FeatureTable:
    """Label-free inputs of a list of instances.

    Attributes:
        texts: Text column -> one document per instance.
        blocks: Numeric group (``cues``, ``structure``, ``history``) -> (n, d) matrix.
        columns: Numeric group -> column names.
    """

    texts: dict[str, list[str]]
    blocks: dict[str, np.ndarray]
    columns: dict[str, tuple[str, ...]]

    def __len__(self) -> int:
        return len(next(iter(self.texts.values())))


def _dur(node: Node | None) -> float:
    if node is None or node.start is None or node.end is None:
        return 0.0
    return max(0.0, node.end - node.start)


def _log(x: float) -> float:
    return math.log1p(max(0.0, x))


def _text(node: Node | None) -> str:
    if node is None:
        return ""
    return f"{node.label}. {node.detail}"


def _adoption_parts(
    instance: Instance,
) -> tuple[dict[str, str], dict[str, float]]:
    graph = instance.window
    resp = instance.response
    assert resp is not None
    ai = graph.node(resp.ai_node)
    src = graph.node(resp.source) if resp.source is not None and resp.source in graph else None
    start = instance.window_start or 0.0
    end = instance.window_end or 0.0
    earlier = [
        n for n in graph.nodes
        if n.id != ai.id and n.start is not None and ai.start is not None and n.start <= ai.start
    ]  # fmt: skip
    prev = max(earlier, key=lambda n: n.start or 0.0, default=None)
    structure = {
        "log_window_len": _log(end - start),
        "log_elapsed": _log(end),
        "log_ai_len": _log(_dur(ai)),
        "log_ai_chars": _log(len(ai.detail)),
        "n_window_nodes": _log(len(graph)),
        "n_ai_before": _log(sum(n.actor_type == "ai" for n in earlier)),
        "prev_human": float(prev is not None and prev.actor_type == "human"),
        "has_source": float(src is not None),
        "ai_on_loop": float(
            any(e.type == "loop" and ai.id in (e.source, e.target) for e in graph.edges)
        ),
    }
    texts = {"output": _text(ai), "request": _text(src), "response": ""}
    if instance.task == "1a" and resp.responder in graph:
        responder = graph.node(resp.responder)
        texts["response"] = _text(responder)
        structure["log_resp_len"] = _log(_dur(responder))
        gap = (responder.start or 0.0) - (ai.end or 0.0)
        structure["log_resp_gap"] = _log(gap)
    return texts, structure


def _rating_parts(instance: Instance) -> tuple[dict[str, str], dict[str, float]]:
    graph = instance.window
    ai_nodes = [n for n in graph.nodes if n.actor_type == "ai"]
    human_nodes = [n for n in graph.nodes if n.actor_type != "ai"]
    n = len(graph)
    start = instance.window_start or 0.0
    end = instance.window_end or 0.0
    structure = {
        "n_nodes": _log(n),
        "ai_share": len(ai_nodes) / n if n else 0.0,
        "n_edges": _log(len(graph.edges)),
        "n_loop": _log(sum(e.type == "loop" for e in graph.edges)),
        "log_duration": _log(end - start),
    }
    texts = {
        "output": " ".join(_text(x) for x in ai_nodes),
        "request": " ".join(_text(x) for x in human_nodes),
        "response": "",
    }
    return texts, structure


_PRIOR = 1.0
"""Pseudo-responses per label added to the session's earlier labels (Laplace's rule): with
few earlier responses the shares stay near 1/3 instead of jumping to 0 or 1."""
_DECAY = 0.5
"""Weight of an earlier response relative to the next more recent one in the recency
shares (a half-life of one response: recent reactions say most about the next one)."""


def _history(instance: Instance) -> dict[str, float]:
    """The session's earlier adoption labels, summarised without reference to any fold.

    Counts, Laplace-smoothed shares, recency-weighted smoothed shares and the last label.
    The history holds only labels of responses that finished strictly before the window's
    cut (:func:`~collabsim.kolab.instances.build_instances`), so nothing here is later.
    """
    past = [str(h) for h in instance.history]
    n = len(past)
    weights = [_DECAY ** (n - 1 - k) for k in range(n)]  # oldest first
    total_w = sum(weights)
    prior = _PRIOR * len(RESPONSE_LABELS)
    feats = {"log_n_prior": _log(n)}
    for lab in RESPONSE_LABELS:
        hits = [h == lab for h in past]
        feats[f"share_{lab}"] = (sum(hits) + _PRIOR) / (n + prior)
        recent = sum(w for w, hit in zip(weights, hits, strict=True) if hit)
        feats[f"recent_{lab}"] = (recent + _PRIOR) / (total_w + prior)
        feats[f"last_{lab}"] = float(bool(past) and past[-1] == lab)
    return feats


def _rating_history(instance: Instance) -> dict[str, float]:
    """The session's earlier ratings of the same kind: whether any, the last, how many.

    The rating model is centred on the carry-forward rating; these let it learn how a
    first step or a high last rating tends to deviate from it.
    """
    past = [float(h) for h in instance.history]
    return {
        "first_step": float(not past),
        "prev_rating": carry_forward(instance),
        "log_n_prior": _log(len(past)),
    }


def feature_table(instances: Sequence[Instance]) -> FeatureTable:
    """The text columns and numeric groups of ``instances`` (all of one task).

    The ``history`` group is filled for tasks flagged as using history (1b+h) and for the
    rating tasks (the earlier ratings the carry-forward centring reads); for the others it
    has no columns.
    """
    texts: dict[str, list[str]] = {"output": [], "request": [], "response": []}
    cue_rows: list[list[float]] = []
    struct_rows: list[dict[str, float]] = []
    hist_rows: list[dict[str, float]] = []
    for inst in instances:
        if inst.is_rating:
            parts, structure = _rating_parts(inst)
        else:
            parts, structure = _adoption_parts(inst)
        for key, value in parts.items():
            texts[key].append(value)
        cues = cue_counts(parts["output"], parts["request"])
        cue_rows.append([cues[c] for c in CUE_NAMES])
        struct_rows.append(structure)
        if inst.is_rating:
            hist_rows.append(_rating_history(inst))
        else:
            hist_rows.append(_history(inst) if inst.uses_history else {})
    struct_cols = tuple(sorted({k for row in struct_rows for k in row}))
    hist_cols = tuple(sorted({k for row in hist_rows for k in row}))
    n = len(instances)
    blocks = {
        "cues": np.asarray(cue_rows, dtype=float).reshape(n, len(CUE_NAMES)),
        "structure": np.array([[r.get(c, 0.0) for c in struct_cols] for r in struct_rows],
                              dtype=float).reshape(n, len(struct_cols)),  # fmt: skip
        "history": np.array([[r.get(c, 0.0) for c in hist_cols] for r in hist_rows],
                            dtype=float).reshape(n, len(hist_cols)),  # fmt: skip
    }
    columns = {"cues": CUE_NAMES, "structure": struct_cols, "history": hist_cols}
    return FeatureTable(texts, blocks, columns)
