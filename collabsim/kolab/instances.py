"""Kolab benchmark instances and their leak-free windows.

Tasks (one instance per labelled response for 1a-1d, per rated step for 2a/2b):

* ``1a`` recognition: the workflow from the source node's start through the responder's end
  (the human response is visible).
* ``1b`` forecasting: from the source node's start through the AI node's end (the response is
  not visible). When a response has no source, the window starts at the AI node.
* ``1c-k1``/``1c-k2``/``1c-k3``: the 1b window plus the ``k`` steps preceding the session's
  last step. Only responses whose source node (the AI node when there is no source) and AI
  node both lie in the session's **last** step (the last entry of ``graph.steps``) qualify,
  and only when that step has at least ``k`` preceding steps (no truncated context).
* ``1d``: the whole workflow from the session's start through the AI node's end.
* ``1b+h``: the 1b window plus the **history**: the labels of the session's responses whose
  responder had finished strictly before the window's cut (oldest first). Responses to the
  same AI node, responses by the same responder node and other sessions of the participant
  are never part of it.
* ``2a`` collaboration satisfaction / ``2b`` output quality: the subgraph of the rated step
  (all nodes whose ``step`` is that step's key). Their history is the same rating of the
  session's earlier steps (in plan order), read by the carry-forward baseline and by the
  learned rating model, which is centred on it.

**Time cut.** A window has anchors (source, AI node, and in 1a the responder) and an end
``window_end`` (the AI node's end; the responder's end in 1a). A non-anchor node belongs to the
window iff one of its intervals starts in ``[window_start, cut)`` (1c/1d: any start before
``cut``), where ``cut = window_end`` for 1a and ``cut = min(window_end, responder start)`` for
forecasting. The end is exclusive because in the explorer data 110 of 247 forecasting windows
would otherwise hold a node that starts exactly when the AI output ends, i.e. the human's next
action. Forecasting windows never contain the responder, even when it starts before the AI
node ends (this happens once). Kept nodes lose intervals starting after the window end, and
interval ends are capped at ``window_end``, so no timing after the end leaks. Nodes without
time are left out.

**No label leak.** Window graphs carry no responses (their labels are the targets) and no step
ratings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from collabsim.graphs.model import Node, Response, Step, WorkflowGraph

ADOPTION_TASKS: tuple[str, ...] = ("1a", "1b", "1b+h", "1c-k1", "1c-k2", "1c-k3", "1d")
HISTORY_TASKS: tuple[str, ...] = ("1b+h",)
"""Tasks whose inputs add the session's earlier labels (flagged as history in reports)."""
RATING_TASKS: tuple[str, ...] = ("2a", "2b")
ALL_TASKS: tuple[str, ...] = ADOPTION_TASKS + RATING_TASKS

TASK_DESCRIPTIONS: dict[str, str] = {
    "1a": "recognition: source start -> responder end (response visible)",
    "1b": "forecasting: source start -> AI node end (response hidden)",
    "1b+h": "1b + labels of the session's responses finished strictly before the cut (history)",
    "1c-k1": "1b + 1 preceding step (source and AI node in the session's last step)",
    "1c-k2": "1b + 2 preceding steps (source and AI node in the session's last step)",
    "1c-k3": "1b + 3 preceding steps (source and AI node in the session's last step)",
    "1d": "session start -> AI node end (response hidden)",
    "2a": "collaboration-satisfaction rating 1-5 of a step (input: the step's subgraph)",
    "2b": "output-quality rating 1-5 of a step (input: the step's subgraph)",
}


@dataclass(frozen=True)
class Instance:
    """One benchmark instance.

    Attributes:
        task: Task id (one of :data:`ALL_TASKS`).
        instance_id: ``"<session>/<task>/r<response index>"`` or ``".../s<step key>"``.
        session_id: Session the instance comes from.
        participant_id: The professional (the grouping unit for cross-validation).
        target: Adoption label (``adopt``/``modify``/``reject``) or rating 1-5.
        window_start: Start of the window in seconds: the source start (1a/1b), the earliest
            kept node (1c/1d) or the earliest step node (2a/2b).
        window_end: End of the window in seconds; no window node starts after it.
        window: The input workflow graph (no responses, no step ratings).
        response: The response predicted (adoption tasks), else None.
        response_index: Index of that response in the session's ``responses``.
        step_key: The rated step (rating tasks), or the step of the AI node.
        context_steps: Keys of the preceding steps added as context (1c).
        history: Earlier labels of the session, oldest first: adoption labels (1b+h; empty
            for other adoption tasks) or the same rating of earlier steps (2a/2b).
        warnings: Data-quality notes about this instance.
    """

    task: str
    instance_id: str
    session_id: str
    participant_id: str
    target: str | int
    window_start: float | None
    window_end: float | None
    window: WorkflowGraph = field(compare=False, repr=False)
    response: Response | None = None
    response_index: int | None = None
    step_key: str | None = None
    context_steps: tuple[str, ...] = ()
    history: tuple[str | int, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def is_rating(self) -> bool:
        """True for the rating tasks 2a/2b."""
        return self.task in RATING_TASKS

    @property
    def uses_history(self) -> bool:
        """True for tasks whose inputs include the session's earlier labels."""
        return self.task in HISTORY_TASKS

    @property
    def ai_node(self) -> Node | None:
        """The AI node whose output is judged (adoption tasks), as cut into the window."""
        if self.response is None:
            return None
        return self.window.node(self.response.ai_node)

    @property
    def source_node(self) -> Node | None:
        """The requesting human node, or None (rating tasks or responses without a source)."""
        if self.response is None or self.response.source is None:
            return None
        return self.window.node(self.response.source)


@dataclass(frozen=True)
class InstanceSet:
    """Instances plus notes on what was skipped and why."""

    instances: tuple[Instance, ...]
    notes: tuple[str, ...] = ()

    def by_task(self, task: str) -> list[Instance]:
        """Instances of one task, in build order."""
        return [i for i in self.instances if i.task == task]

    def counts(self, tasks: Sequence[str] = ALL_TASKS) -> dict[str, int]:
        """Number of instances per task (0 for tasks without instances)."""
        return count_instances(self.instances, tasks)


def expand_tasks(spec: Iterable[str]) -> tuple[str, ...]:
    """Normalise a task list: ``"1c"`` expands to its three k variants; order follows ALL_TASKS.

    Raises:
        ValueError: On an unknown task name.
    """
    wanted: set[str] = set()
    for raw in spec:
        name = raw.strip().lower()
        if not name:
            continue
        if name == "1c":
            wanted.update(t for t in ALL_TASKS if t.startswith("1c-"))
        elif name in ALL_TASKS:
            wanted.add(name)
        else:
            raise ValueError(f"unknown Kolab task {raw!r}; known: 1c, {', '.join(ALL_TASKS)}")
    return tuple(t for t in ALL_TASKS if t in wanted)


def count_instances(
    instances: Iterable[Instance], tasks: Sequence[str] = ALL_TASKS
) -> dict[str, int]:
    """Count instances per task; every task in ``tasks`` appears (possibly with 0)."""
    counter = Counter(i.task for i in instances)
    return {t: counter.get(t, 0) for t in tasks}


def build_instances(
    graphs: Iterable[WorkflowGraph], tasks: Sequence[str] = ALL_TASKS
) -> InstanceSet:
    """Build the instances of ``tasks`` from every graph, in graph then response/step order.

    Args:
        graphs: Session graphs (e.g. from ``collabsim.graphs.kolab_io.load_explorer``).
        tasks: Task ids (see :func:`expand_tasks`).

    Returns:
        The instances and notes on skipped responses/steps.
    """
    tasks = expand_tasks(tasks)
    instances: list[Instance] = []
    notes: list[str] = []
    for graph in graphs:
        for task in tasks:
            if task in RATING_TASKS:
                built, skipped = _rating_instances(graph, task)
            else:
                built, skipped = _adoption_instances(graph, task)
            instances.extend(built)
            notes.extend(skipped)
    return InstanceSet(tuple(instances), tuple(notes))


# --------------------------------------------------------------------------- windows


def _starts(node: Node) -> list[float]:
    return [s for s, _ in node.intervals]


def _clip(node: Node, end: float, *, inclusive: bool) -> Node | None:
    """Keep intervals starting before ``end`` (or at it when inclusive), ends capped at end."""
    kept = tuple(
        (s, min(e, end)) for s, e in node.intervals if (s <= end if inclusive else s < end)
    )
    if not kept:
        return None
    return replace(node, intervals=kept)


def _strip_steps(steps: Sequence[Step]) -> tuple[Step, ...]:
    return tuple(replace(s, collaboration=None, quality=None) for s in steps)


def _window_graph(graph: WorkflowGraph, keep: dict[str, Node]) -> WorkflowGraph:
    """The graph restricted to ``keep`` (clipped nodes), without responses or ratings."""
    nodes = [keep[n.id] for n in graph.nodes if n.id in keep]
    edges = [e for e in graph.edges if e.source in keep and e.target in keep]
    return WorkflowGraph(graph.session, _strip_steps(graph.steps), nodes, edges, (), graph.warnings)


def _last_step_context(graph: WorkflowGraph, k: int) -> tuple[str, tuple[str, ...]] | None:
    """(last step key, keys of the k preceding steps) or None when fewer than k precede."""
    if not graph.steps or len(graph.steps) - 1 < k:
        return None
    pos = len(graph.steps) - 1
    return graph.steps[pos].key, tuple(s.key for s in graph.steps[pos - k : pos])


def _drawn_as_warnings(ai: Node, responder: Node) -> list[str]:
    """Warnings for a response whose AI node or responder is drawn as the other kind of actor."""
    warnings: list[str] = []
    if ai.actor_type != "ai":
        warnings.append(f"ai_node {ai.id} is drawn as {ai.actor_type}")
    if responder.actor_type != "human":
        warnings.append(f"responder {responder.id} is drawn as {responder.actor_type}")
    return warnings


def _window_cut(task: str, ai: Node, responder: Node) -> tuple[float, float]:
    """(window end, cut) of a response's window.

    Recognition (1a) ends with the responder and cuts there; forecasting ends with the AI node
    and cuts at the earlier of that end and the responder's start.
    """
    if task == "1a":
        window_end = responder.end
        cut = window_end
    else:
        window_end = ai.end
        cut = min(window_end, responder.start) if responder.start is not None else window_end
    assert window_end is not None and cut is not None
    return window_end, cut


def _in_window(
    node: Node, task: str, window_start: float, cut: float, context_steps: tuple[str, ...]
) -> bool:
    """Whether a non-anchor node belongs to the window (one of its intervals starts inside).

    1d takes every start before the cut; the others take starts in ``[window_start, cut)``,
    and 1c also any start before the cut of a node in one of the preceding context steps.
    """
    starts = _starts(node)
    if task == "1d":
        return any(s < cut for s in starts)
    if any(window_start <= s < cut for s in starts):
        return True
    return node.step in context_steps and any(s < cut for s in starts)


def _window_nodes(
    graph: WorkflowGraph,
    task: str,
    responder: Node,
    anchor_ids: set[str],
    bounds: tuple[float, float, float],
    context_steps: tuple[str, ...],
) -> dict[str, Node]:
    """The window's nodes, clipped: anchors up to the window end, the others up to the cut.

    Forecasting windows never hold the responder.

    Args:
        graph: The session graph.
        task: Task id.
        responder: The response's responder node.
        anchor_ids: Ids of the anchor nodes.
        bounds: (window start, window end, cut).
        context_steps: Keys of the preceding steps a 1c window adds (else empty).
    """
    window_start, window_end, cut = bounds
    keep: dict[str, Node] = {}
    for node in graph.nodes:
        if task != "1a" and node.id == responder.id:
            continue
        if node.id in anchor_ids:
            clipped = _clip(node, window_end, inclusive=True)
        elif _in_window(node, task, window_start, cut, context_steps):
            clipped = _clip(node, cut, inclusive=False)
        else:
            clipped = None
        if clipped is not None:
            keep[node.id] = clipped
    return keep


def _adoption_instances(graph: WorkflowGraph, task: str) -> tuple[list[Instance], list[str]]:
    sid = graph.session.session_id
    out: list[Instance] = []
    notes: list[str] = []
    k = int(task[-1]) if task.startswith("1c-") else 0
    context = _last_step_context(graph, k) if k else None
    if k and context is None:
        return out, notes
    context_steps = context[1] if context else ()
    for idx, resp in enumerate(graph.responses):
        ai = graph.node(resp.ai_node)
        responder = graph.node(resp.responder)
        source = graph.node(resp.source) if resp.source is not None else None
        first = source if source is not None else ai
        if context is not None and (first.step != context[0] or ai.step != context[0]):
            continue  # 1c: the source (else the AI node) and the AI node in the last step
        warnings = _drawn_as_warnings(ai, responder)
        anchors = [n for n in (source, ai) if n is not None]
        if task == "1a":
            anchors.append(responder)
        if any(n.start is None for n in anchors):
            notes.append(f"{sid} response {idx} ({task}): an anchor node has no time; skipped")
            continue
        window_start = min(n.start for n in anchors if n.start is not None)
        window_end, cut = _window_cut(task, ai, responder)
        anchor_ids = {n.id for n in anchors}
        keep = _window_nodes(
            graph, task, responder, anchor_ids, (window_start, window_end, cut), context_steps
        )
        if task == "1d" or k:
            starts = [n.start for n in keep.values() if n.start is not None]
            window_start = min(starts, default=window_start)
        history = _label_history(graph, resp, cut) if task in HISTORY_TASKS else ()
        out.append(
            Instance(
                task=task,
                instance_id=f"{sid}/{task}/r{idx}",
                session_id=sid,
                participant_id=graph.session.participant_id,
                target=resp.label,
                window_start=window_start,
                window_end=window_end,
                window=_window_graph(graph, keep),
                response=resp,
                response_index=idx,
                step_key=ai.step,
                context_steps=context_steps,
                history=history,
                warnings=tuple(warnings),
            )
        )
    return out, notes


def _label_history(graph: WorkflowGraph, current: Response, cut: float) -> tuple[str, ...]:
    """Labels of this session's responses finished strictly before ``cut``, by responder end.

    Only the session's own graph is read, so other sessions of the participant never enter.
    Responses to the same AI node or by the same responder node are left out: they describe
    the very reaction being forecast.
    """
    done: list[tuple[float, int, str]] = []
    for idx, other in enumerate(graph.responses):
        if other.ai_node == current.ai_node or other.responder == current.responder:
            continue
        end = graph.node(other.responder).end
        if end is not None and end < cut:
            done.append((end, idx, other.label))
    return tuple(label for _, _, label in sorted(done))


def _rating_instances(graph: WorkflowGraph, task: str) -> tuple[list[Instance], list[str]]:
    sid = graph.session.session_id
    attr = "collaboration" if task == "2a" else "quality"
    out: list[Instance] = []
    notes: list[str] = []
    earlier: list[int] = []
    for step in graph.steps:
        rating = getattr(step, attr)
        if rating is None:
            continue
        history = tuple(earlier)
        earlier.append(int(rating))
        members = {n.id: n for n in graph.nodes if n.step == step.key}
        if not members:
            notes.append(f"{sid} step {step.key} ({task}): rated but has no nodes; skipped")
            continue
        starts = [n.start for n in members.values() if n.start is not None]
        ends = [n.end for n in members.values() if n.end is not None]
        out.append(
            Instance(
                task=task,
                instance_id=f"{sid}/{task}/s{step.key}",
                session_id=sid,
                participant_id=graph.session.participant_id,
                target=int(rating),
                window_start=min(starts, default=None),
                window_end=max(ends, default=None),
                window=_window_graph(graph, members),
                step_key=step.key,
                history=history,
            )
        )
    return out, notes
