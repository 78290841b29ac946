"""Simulated session trace -> :class:`WorkflowGraph`.

Follows the trace conventions of :mod:`collabsim.core.events`. The rules:

**Nodes.** One node per meaningful participant action: a team message, a code cell, an
editor update, a gate request (status ``pending``), a gate decision (``APPROVE`` /
``REJECT``), a memory entry (``MEMORY_ADD``, ``MEMORY_AGREE``), a submission (``FINISH``),
and the *approved* outcome of a gated action (the action taking effect, e.g. the code
running). Not nodes: environment events (``actor_type == "env"``), ``INVALID`` actions
(nothing happened), *rejected* outcomes (the action never took effect; the ``REJECT``
node carries the decision) and *interrupted* actions (status ``interrupted``: cut off by the
session's end, they never took effect; they draw no edge, make no response and do not move
the steps below). Node id ``e<seq>``; actor = participant name; actor_type
``ai`` for the agent and ``human`` for simulated collaborators; one interval
``(t_start, t_end)`` from the virtual clock (overlaps are concurrency); ``extra`` keeps
``seq``, ``action_type``, ``status`` and, for gates, ``request_id``.

**Steps** (sequential phases, by trace order; empty phases are left out):

1. ``build``: from ``PHASE_START(phase=build)`` until ``PHASE_START(phase=work)``.
2. ``analysis``: the work phase until the first ``EDITOR_UPDATE`` (exploration, code,
   discussion).
3. ``review``: from the first ``EDITOR_UPDATE`` (any status) until the first ``FINISH``
   (drafting, checking and gating the hypothesis).
4. ``submission``: from the first ``FINISH`` (any status, e.g. a gated submit request) on.

A trace without ``PHASE_START`` events starts in the work phase. A step's ``time_range``
is ``(min start, max end)`` of its nodes.

**Edges** (``(u, v)``: v directly follows from u in time, whoever made them - the convention
of the Kolab graphs, where most edges link a node to the next one; repeated pairs are
written once):

* *sequential* (by start time, ties by ``seq``): a node follows from every node that had
  ended by its start (``end(u) <= start(v)``) and that no node follows yet - one such node in
  turn-taking, several when parallel work joins (a merge). When all nodes that had ended are
  already followed, it follows from the one that ended last (a branch: parallel work
  starting from the same point); when nothing had ended yet, from the node that started last
  before it (work begun while another was running). The first node has no predecessor.
  Who answers whom (refs) is not an edge: it is in the responses below and the trace.
* *loop* (edge from the repeating node back to the node whose activity it repeats): an
  ``EXECUTE_CODE`` whose author's previous ``EXECUTE_CODE`` failed (status ``error``); an
  ``EDITOR_UPDATE`` that refs an earlier update by the same participant (a re-edit); a gate
  request whose author's previous request of the same action type was rejected.

**Responses** (a human acting on an AI output):

* a human ``REJECT`` of an AI request -> ``reject``;
* a human ``APPROVE`` of an AI request -> ``adopt``, or ``modify`` when the author's
  previous decided request of the same action type was rejected (by any human): approval
  after requested changes;
* a human ``EDITOR_UPDATE`` that refs an AI ``EDITOR_UPDATE`` (the human edits the agent's
  hypothesis) -> ``modify``;
* a human chat message that objects to an AI output it refs (issue tags ``[issue kind=...]``
  about a draft ``[check draft=<fingerprint>]``, see :mod:`collabsim.participants.claims`)
  -> ``reject``, as Kolab labels a human voicing disagreement with the AI's output; once per
  (human, draft), and not when the message announces the sender's own edit (``[edit
  draft=...]``: the edit is the ``modify``) or comes before the sender's own gate decision
  on the request it refs (the decision is the response);
* a human chat message that checked an AI output it refs and takes it without an issue (a
  ``[check draft=...]`` tag, no issue tag, no edit: "the draft looks right to me", "go
  ahead with your draft") -> ``adopt``, as Kolab labels a human taking the AI's output as it
  is; with the same once-per-(human, draft) and own-decision rules. A draft taken in
  silence has no human node, hence no response;
* a human chat message that answers an AI output by name (``[re=<ref> <label>]``, see
  :mod:`collabsim.participants.participation`: ``<ref>`` the seq of the AI's code cell or
  message, or ``m<fp>`` for the AI memory entry whose text has fingerprint ``<fp>``) ->
  ``<label>`` (adopt / modify / reject, as the comment says from the sender's own reading);
  once per (human, output).

The responder is the human node, ``ai_node`` the AI request / update node, and ``source``
the latest human message among the AI node's refs (for a gate outcome, its request's refs),
or None.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from collabsim.core.events import ENV_ACTIONS, TraceEvent
from collabsim.core.tags import (
    checked_drafts,
    edited_drafts,
    memory_ref,
    parse_replies,
    raises_issues,
)
from collabsim.graphs.kolab_common import GraphDataWarning
from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph

STEP_NAMES: dict[str, str] = {
    "build": "Group-memory build phase",
    "analysis": "Data analysis",
    "review": "Hypothesis drafting and review",
    "submission": "Submission",
}
DECISIONS = frozenset({"APPROVE", "REJECT"})
_SOFTWARE = {
    "SEND_TEAMMATE_MESSAGE": "chat",
    "EXECUTE_CODE": "python",
    "EDITOR_UPDATE": "editor",
    "FINISH": "editor",
    "MEMORY_ADD": "group memory",
    "MEMORY_AGREE": "group memory",
}
_TEXT_ARGS = ("message", "text", "code", "reason", "section")


class TraceFormatError(ValueError):
    """A trace file cannot be read; the message names the file and line."""


def _is_node(ev: TraceEvent) -> bool:
    if ev.actor_type == "env" or ev.action_type in ENV_ACTIONS:
        return False
    if ev.action_type == "INVALID" or ev.action_type == "WAIT_TEAMMATE_CONTINUE":
        return False
    return ev.status not in ("rejected", "interrupted")


def _is_request(ev: TraceEvent) -> bool:
    return ev.status == "pending"


def _label(ev: TraceEvent) -> str:
    verb = {
        "SEND_TEAMMATE_MESSAGE": "message",
        "EXECUTE_CODE": "run code",
        "EDITOR_UPDATE": "update hypothesis",
        "FINISH": "submit",
        "APPROVE": "approve request",
        "REJECT": "reject request",
        "MEMORY_ADD": "add memory entry",
        "MEMORY_AGREE": "agree to memory",
    }.get(ev.action_type, ev.action_type.lower())
    if ev.status == "pending":
        verb = f"request: {verb}"
    elif ev.status == "approved":
        verb = f"{verb} (approved)"
    elif ev.status == "error":
        verb = f"{verb} (error)"
    text = next((str(ev.args[k]) for k in _TEXT_ARGS if ev.args.get(k)), "")
    text = " ".join(text.split())
    return f"{ev.actor}: {verb}" + (f": {text[:80]}" if text else "")


def _detail(ev: TraceEvent) -> str:
    parts = [f"{k}: {ev.args[k]}" for k in _TEXT_ARGS if ev.args.get(k)]
    if ev.observation:
        parts.append(f"observation: {ev.observation}")
    return "\n".join(parts)[:4000]


def _phases(events: Sequence[TraceEvent]) -> dict[int, str]:
    """Map each event seq to its phase key (see module docstring)."""
    phase = "analysis"
    out: dict[int, str] = {}
    seen_editor = seen_finish = False
    for ev in events:
        if ev.action_type == "PHASE_START":
            p = str(ev.args.get("phase", ""))
            if p == "build":
                phase = "build"
            elif p == "work":
                phase = "submission" if seen_finish else "review" if seen_editor else "analysis"
        if phase != "build" and ev.actor_type != "env" and ev.status != "interrupted":
            if ev.action_type == "FINISH":
                seen_finish = True
                phase = "submission"
            elif ev.action_type == "EDITOR_UPDATE" and not seen_finish:
                seen_editor = True
                phase = "review"
        out[ev.seq] = phase
    return out


def graph_from_trace(
    events: Sequence[TraceEvent],
    *,
    session_id: str,
    team: str = "",
    team_description: str = "",
    domain: str = "",
    goal: str = "",
    extra: Mapping[str, Any] | None = None,
) -> WorkflowGraph:
    """Convert a session trace into a workflow graph (rules in the module docstring).

    Args:
        events: The trace, in any order (sorted by ``seq`` here).
        session_id: Session id for the graph.
        team: Team id (``"DR"``, ...), stored as ``SessionInfo.participant_id``.
        team_description: Free text, stored as ``SessionInfo.occupation``.
        domain: Task domain.
        goal: Task query.
        extra: Further session information (task id, structure, seed, ...).

    Returns:
        The graph; odd references (to unknown events) are listed in ``graph.warnings``.
    """
    evs = sorted(events, key=lambda e: e.seq)
    by_seq = {e.seq: e for e in evs}
    phase_of = _phases(evs)
    node_events = [e for e in evs if _is_node(e)]
    node_of = {e.seq: f"e{e.seq}" for e in node_events}
    nodes = [_node(ev, node_of[ev.seq], phase_of[ev.seq]) for ev in node_events]
    decision_on = _decisions(node_events)
    edges = _EdgeBuilder(by_seq, node_of, decision_on)
    follows = _follows(nodes)
    for ev in node_events:
        edges.add_for(ev, follows.get(node_of[ev.seq], ()))
    responses = _responses(evs, by_seq, node_of, decision_on)
    session = SessionInfo(
        session_id=session_id,
        participant_id=team,
        occupation=team_description,
        domain=domain,
        goal=goal,
        extra=dict(extra or {}),
    )
    notes = edges.notes
    for note in notes:
        warnings.warn(f"session {session_id}: {note}", GraphDataWarning, stacklevel=2)
    return WorkflowGraph(
        session, _steps(nodes), nodes, edges.edges, responses,
        [f"session {session_id}: {n}" for n in notes],
    )


def _node(ev: TraceEvent, nid: str, step: str) -> Node:
    """The node of one trace event (module docstring, *Nodes*)."""
    info: dict[str, Any] = {"seq": ev.seq, "action_type": ev.action_type, "status": ev.status}
    if ev.args.get("request_id") is not None:
        info["request_id"] = ev.args["request_id"]
    sw = _SOFTWARE.get(ev.action_type)
    return Node(
        id=nid,
        actor=ev.actor,
        actor_type="ai" if ev.actor_type == "ai" else "human",
        label=_label(ev),
        detail=_detail(ev),
        intervals=((float(ev.t_start), float(max(ev.t_end, ev.t_start))),),
        step=step,
        softwares=(sw,) if sw else (),
        extra=info,
    )


def _decisions(node_events: Sequence[TraceEvent]) -> dict[int, TraceEvent]:
    """Request seq -> the first ``APPROVE`` / ``REJECT`` event that refs it."""
    decision_on: dict[int, TraceEvent] = {}
    for ev in node_events:
        if ev.action_type in DECISIONS:
            for r in ev.refs:
                decision_on.setdefault(r, ev)
    return decision_on


def _steps(nodes: Sequence[Node]) -> list[Step]:
    """The non-empty steps in phase order, each spanning its nodes' time."""
    steps = []
    for key, name in STEP_NAMES.items():
        members = [n for n in nodes if n.step == key]
        if members:
            lo = min(n.intervals[0][0] for n in members)
            hi = max(n.intervals[0][1] for n in members)
            steps.append(Step(key=key, name=name, labels=(name,), time_range=(lo, hi)))
    return steps


class _EdgeBuilder:
    """The graph's edges, added node by node in trace order (module docstring, *Edges*).

    Attributes:
        edges: The edges so far, each (u, v, type) once.
        notes: Odd references found (to unknown events).
    """

    def __init__(
        self,
        by_seq: Mapping[int, TraceEvent],
        node_of: Mapping[int, str],
        decision_on: Mapping[int, TraceEvent],
    ) -> None:
        self._by_seq = by_seq
        self._node_of = node_of
        self._decision_on = decision_on
        self.edges: list[Edge] = []
        self.notes: list[str] = []
        self._seen: set[tuple[str, str, str]] = set()
        self._last_code: dict[str, TraceEvent] = {}
        self._last_request: dict[tuple[str, str], TraceEvent] = {}

    def add_for(self, ev: TraceEvent, follows: Sequence[str]) -> None:
        """Add the edges into ``ev``'s node (it follows ``follows``) and its loops."""
        nid = self._node_of[ev.seq]
        for u in follows:
            self._add(u, nid)
        self._reedit_loops(ev, nid)
        self._code_loop(ev, nid)
        self._request_loop(ev, nid)

    def _add(self, u: str, v: str, etype: str = "sequential") -> None:
        if u != v and (u, v, etype) not in self._seen:
            self._seen.add((u, v, etype))
            self.edges.append(Edge(u, v, etype))  # type: ignore[arg-type]

    def _reedit_loops(self, ev: TraceEvent, nid: str) -> None:
        """Loops from an editor update to the same participant's updates it refs."""
        for r in ev.refs:
            ref = self._by_seq.get(r)
            if ref is None:
                self.notes.append(f"event {ev.seq} refs unknown event {r}")
                continue
            if (
                r in self._node_of
                and ref.actor == ev.actor
                and ev.action_type == "EDITOR_UPDATE" == ref.action_type
                and ev.status != "approved"  # an outcome refs its own request
            ):
                self._add(nid, self._node_of[r], "loop")

    def _code_loop(self, ev: TraceEvent, nid: str) -> None:
        """A loop from a code cell to its author's previous cell when that one failed."""
        if ev.action_type != "EXECUTE_CODE":
            return
        prev_code = self._last_code.get(ev.actor)
        if ev.status != "approved" and prev_code is not None and prev_code.status == "error":
            self._add(nid, self._node_of[prev_code.seq], "loop")
        self._last_code[ev.actor] = ev

    def _request_loop(self, ev: TraceEvent, nid: str) -> None:
        """A loop from a gate request to its author's previous rejected one of its type."""
        if not _is_request(ev):
            return
        key = (ev.actor, ev.action_type)
        prev_req = self._last_request.get(key)
        if prev_req is not None:
            verdict = self._decision_on.get(prev_req.seq)
            if verdict is not None and verdict.action_type == "REJECT":
                self._add(nid, self._node_of[prev_req.seq], "loop")
        self._last_request[key] = ev


def _follows(nodes: Sequence[Node]) -> dict[str, list[str]]:
    """Node id -> the ids it directly follows in time (module docstring, *sequential*).

    ``nodes`` are in ``seq`` order, each with one interval.
    """
    span = [n.intervals[0] for n in nodes]
    seen: list[int] = []  # positions in ``nodes`` already placed, in start order
    followed: set[int] = set()
    out: dict[str, list[str]] = {}
    for i in sorted(range(len(nodes)), key=lambda k: (span[k][0], k)):
        ended = [j for j in seen if span[j][1] <= span[i][0]]
        preds = [j for j in sorted(ended) if j not in followed]
        if not preds and ended:  # a branch from the latest completed node
            preds = [max(ended, key=lambda j: (span[j][1], span[j][0], j))]
        elif not preds and seen:  # begun while the latest-started node was running
            preds = [seen[-1]]
        followed.update(preds)
        out[nodes[i].id] = [nodes[j].id for j in preds]
        seen.append(i)
    return out


def _source(
    ai_ev: TraceEvent, by_seq: Mapping[int, TraceEvent], node_of: Mapping[int, str]
) -> str | None:
    """Latest human message among the AI node's refs (via its request for an outcome)."""
    refs = list(ai_ev.refs)
    if ai_ev.status in ("approved", "rejected") and refs and refs[0] in by_seq:
        refs = list(by_seq[refs[0]].refs)
    msgs = [
        r
        for r in refs
        if r in by_seq and r in node_of and by_seq[r].actor_type == "human" and by_seq[r].is_message
    ]
    return node_of[max(msgs)] if msgs else None


def _responses(
    evs: Sequence[TraceEvent],
    by_seq: Mapping[int, TraceEvent],
    node_of: Mapping[int, str],
    decision_on: Mapping[int, TraceEvent],
) -> list[Response]:
    """The humans' responses to AI outputs, in trace order (module docstring, *Responses*)."""
    out: list[Response] = []
    # (AI author, action type) -> was the author's latest decided request rejected?
    rejected: dict[tuple[str, str], bool] = {}
    objected: set[tuple[str, str]] = set()  # (human, draft fingerprint) already counted
    memory = {memory_ref(str(e.args.get("text", ""))): e.seq for e in evs
              if e.actor_type == "ai" and e.action_type == "MEMORY_ADD" and e.seq in node_of}
    for ev in evs:
        if ev.actor_type != "human" or ev.seq not in node_of:
            continue
        if ev.action_type in DECISIONS:
            out += _decision_responses(ev, by_seq, node_of, rejected)
        elif ev.is_message:
            checked = _checked(ev, by_seq, node_of, decision_on, objected)
            if checked is not None:
                ai_ref, label = checked
                out.append(Response(node_of[ev.seq], _source(by_seq[ai_ref], by_seq, node_of),
                                    node_of[ai_ref], label))  # type: ignore[arg-type]
            out += _reply_responses(ev, by_seq, node_of, memory, objected)
        elif ev.action_type == "EDITOR_UPDATE":
            out += _edit_responses(ev, by_seq, node_of)
    return out


def _decision_responses(
    ev: TraceEvent,
    by_seq: Mapping[int, TraceEvent],
    node_of: Mapping[int, str],
    rejected: dict[tuple[str, str], bool],
) -> list[Response]:
    """A human gate decision's responses to the AI requests it refs.

    ``reject``; ``adopt``, or ``modify`` when the author's previous decided request of the
    same type was rejected. ``rejected`` (by AI author and action type) is updated.
    """
    out: list[Response] = []
    for r in ev.refs:
        req = by_seq.get(r)
        if req is None or req.actor_type != "ai" or r not in node_of or not _is_request(req):
            continue
        key = (req.actor, req.action_type)
        if ev.action_type == "REJECT":
            label = "reject"
            rejected[key] = True
        else:
            label = "modify" if rejected.get(key) else "adopt"
            rejected[key] = False
        out.append(
            Response(node_of[ev.seq], _source(req, by_seq, node_of), node_of[r], label)
        )  # type: ignore[arg-type]
    return out


def _edit_responses(
    ev: TraceEvent, by_seq: Mapping[int, TraceEvent], node_of: Mapping[int, str]
) -> list[Response]:
    """``modify`` responses of a human editor update to the AI updates it refs."""
    out: list[Response] = []
    for r in ev.refs:
        ref = by_seq.get(r)
        if (
            ref is not None
            and r in node_of
            and ref.actor_type == "ai"
            and ref.action_type == "EDITOR_UPDATE"
        ):
            out.append(Response(node_of[ev.seq], _source(ref, by_seq, node_of), node_of[r], "modify"))
    return out


def _reply_responses(
    ev: TraceEvent,
    by_seq: Mapping[int, TraceEvent],
    node_of: Mapping[int, str],
    memory: Mapping[str, int],
    seen: set[tuple[str, str]],
) -> list[Response]:
    """The responses of a human message answering AI outputs by name (``[re=...]``), once
    per (human, output); a reference to no AI node of the graph is none."""
    out: list[Response] = []
    for ref, label in parse_replies(str(ev.args.get("message", ""))):
        seq = memory.get(ref) if ref.startswith("m") else int(ref)
        target = by_seq.get(seq) if seq is not None else None
        key = (ev.actor, f"re:{seq}")
        if target is None or seq not in node_of or target.actor_type != "ai" or key in seen:
            continue
        seen.add(key)
        out.append(Response(node_of[ev.seq], _source(target, by_seq, node_of), node_of[seq],
                            label))  # type: ignore[arg-type]
    return out


def _checked(
    ev: TraceEvent,
    by_seq: Mapping[int, TraceEvent],
    node_of: Mapping[int, str],
    decision_on: Mapping[int, TraceEvent],
    seen: set[tuple[str, str]],
) -> tuple[int, str] | None:
    """The AI node a human chat message's check responds to, with its label (``reject``
    with an issue, ``adopt`` without: module docstring), or None."""
    text = str(ev.args.get("message", ""))
    checked = checked_drafts(text)
    if not checked or edited_drafts(text):
        return None
    label = "reject" if raises_issues(text) else "adopt"
    for r in ev.refs:
        ref = by_seq.get(r)
        if ref is None or r not in node_of or ref.actor_type != "ai":
            continue
        verdict = decision_on.get(r)
        if _is_request(ref) and verdict is not None and verdict.actor == ev.actor:
            return None  # its own gate decision on the request is the response
        key = (ev.actor, checked[0])
        if key in seen:
            return None
        seen.add(key)
        return r, label
    return None


def read_trace(path: str | Path) -> list[TraceEvent]:
    """Read a JSONL trace file.

    A truncated last line (a crash while writing) is skipped with a warning; any other bad
    line raises.

    Raises:
        TraceFormatError: Naming the file and line.
    """
    path = Path(path)
    try:
        # "\n" only: str.splitlines() also breaks at U+2028 and other separators that a
        # trace written before they were escaped may hold inside a string
        lines = path.read_text(encoding="utf-8").split("\n")
    except OSError as err:
        raise TraceFormatError(f"{path}: {err}") from err
    events: list[TraceEvent] = []
    numbered = [(i + 1, line) for i, line in enumerate(lines) if line.strip()]
    for pos, (lineno, line) in enumerate(numbered):
        try:
            events.append(TraceEvent.from_dict(json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
            if pos == len(numbered) - 1 and isinstance(err, json.JSONDecodeError):
                warnings.warn(
                    f"{path}:{lineno}: truncated last line skipped", GraphDataWarning, stacklevel=2
                )
                continue
            raise TraceFormatError(f"{path}:{lineno}: bad trace event: {err}") from err
    return events


def graph_from_trace_file(
    path: str | Path, *, session_id: str | None = None, **info: Any
) -> WorkflowGraph:
    """Read a JSONL trace and convert it with :func:`graph_from_trace`.

    Session information comes from the keyword arguments, else from the ``SESSION_START``
    event's args when present (``task_id``, ``team``, ``structure``, ``seed``, ``domain``,
    ``query``). The default session id is the task/team/structure/seed when known, else the
    file's stem (its folder's name for a file called ``trace.jsonl``).

    Raises:
        TraceFormatError: Naming the file when it cannot be read.
    """
    path = Path(path)
    events = read_trace(path)
    start = next((e for e in events if e.action_type == "SESSION_START"), None)
    args: Mapping[str, Any] = start.args if start is not None else {}
    extra = {k: args[k] for k in ("task_id", "team", "structure", "seed", "policy") if k in args}
    extra["trace_path"] = str(path)
    if session_id is None:
        if {"task_id", "team", "structure", "seed"} <= set(args):
            session_id = f"{args['task_id']}|{args['team']}|{args['structure']}|seed{args['seed']}"
        else:
            session_id = path.parent.name if path.stem == "trace" else path.stem
    info.setdefault("team", str(args.get("team", "")))
    info.setdefault("domain", str(args.get("domain", "")))
    info.setdefault("goal", str(args.get("query", args.get("goal", ""))))
    info.setdefault("extra", extra)
    return graph_from_trace(events, session_id=session_id, **info)
