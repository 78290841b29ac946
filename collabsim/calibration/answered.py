"""Do humans react to the AI's output? Per-session shares of answered AI outputs.

An AI output is *answered* when it is the ``ai_node`` of at least one response
(:class:`collabsim.graphs.model.Response`: adopt, modify or reject). Two per-session metrics:

``ai_response_share``
    ``|{o in O : o answered}| / |O|`` over the session's AI outputs ``O``; NaN when ``O`` is
    empty.
``last_ai_responded``
    1.0 when the session's last AI output is answered, else 0.0; NaN when ``O`` is empty. The
    last output holds the AI node with the latest end time (ties: latest start, then the
    later node in the graph's order; a node without a time comes first).

**AI outputs.** In a Kolab graph every AI node is one output (the explorer draws one node
per piece of AI work the human could react to). A simulated graph
(:mod:`collabsim.graphs.from_trace`; its nodes carry ``extra["action_type"]``) has finer
AI nodes, some of which are no output, so on that side:

* an ungated ``FINISH`` (not a gate request or its outcome) is left out: submitting ends the
  session, the submitted hypothesis is the editor update before it, and a Kolab session
  has no such node - it just ends. Counting it would make every simulated session's last AI
  output unanswered by construction;
* the agent's ``MEMORY_AGREE`` is left out: it assents to a teammate's memory entry (a
  reaction, with no content of its own);
* a gated action's request (status ``pending``) and its approved outcome (status
  ``approved``, same ``request_id``) are one output: the same proposal, then taking effect.
  A gate decision answers the request and a teammate's edit may answer the outcome;
* the agent's chat announcement of a draft (a message tagged ``[draft=<fingerprint>]``) is
  one output with the latest AI ``EDITOR_UPDATE`` that ended by the announcement's start:
  collaborators react to the draft in the editor (their responses name the update), and
  the announcement only points them to it.

Everything else the agent does - code cells, other messages, editor updates, memory
entries, gate requests (including a gated submission, which the humans decide on) - is an
output. Responses in simulated graphs arise from gate decisions, edits of the agent's draft,
chat checks of a draft (objections, confirmations) and collaborators' comments that name the
output they answer (``[re=<ref> <label>]``, :mod:`collabsim.participants.participation`; see
:mod:`collabsim.graphs.from_trace`): a code cell, a message or a memory entry is answered only
by a comment written about it.
"""

from __future__ import annotations

import math
import re

from collabsim.graphs.model import Node, WorkflowGraph
from collabsim.participants.behaviour.participation import OutputKind

ANSWERED_METRICS: dict[str, str] = {
    "ai_response_share": "share of AI outputs answered",
    "last_ai_responded": "last AI output answered (0/1)",
}
_ANNOUNCE = re.compile(r"\[draft=[0-9a-f]{8}\]")
_NO_OUTPUT = frozenset({"MEMORY_AGREE"})
# A Kolab AI node's kind, read from its label (the explorer names what the AI did): code it
# wrote, text it drafted for the person, otherwise a chat answer.
_KOLAB_CODE = re.compile(r"\b(code|script|formula|function|query|sql|macro|program|python|regex)",
                         re.IGNORECASE)
_KOLAB_DRAFT = re.compile(r"\b(draft|write|rewrite|revise|rephrase|compose|summar)", re.IGNORECASE)
_SIM_KIND: dict[str, OutputKind] = {
    "EXECUTE_CODE": "code",
    "SEND_TEAMMATE_MESSAGE": "message",
    "MEMORY_ADD": "memory",
    "EDITOR_UPDATE": "draft",
    "FINISH": "draft",
}


def _time_key(node: Node, position: int) -> tuple[float, float, int]:
    end, start = node.end, node.start
    return (
        -math.inf if end is None else end,
        -math.inf if start is None else start,
        position,
    )


def ai_outputs(graph: WorkflowGraph) -> list[list[Node]]:
    """The AI outputs of a graph (module docstring), each as its AI nodes, in node order.

    Args:
        graph: A real (Kolab) or simulated workflow graph.

    Returns:
        One list of nodes per output; a Kolab AI node is an output of its own.
    """
    position = {n.id: i for i, n in enumerate(graph.nodes)}
    ai = sorted(
        (n for n in graph.nodes if n.actor_type == "ai"),
        key=lambda n: (math.inf if n.start is None else n.start, position[n.id]),
    )
    updates = [n for n in ai if n.extra.get("action_type") == "EDITOR_UPDATE" and n.end is not None]
    key_of: dict[str, str] = {}
    groups: dict[str, list[Node]] = {}
    for node in ai:
        action = node.extra.get("action_type")
        key = node.id
        if action is not None:  # a simulated node
            request = node.extra.get("request_id")
            if action in _NO_OUTPUT or (action == "FINISH" and request is None):
                continue
            if request is not None and node.extra.get("status") in ("pending", "approved"):
                key = f"request:{request}"
            elif action == "SEND_TEAMMATE_MESSAGE" and _ANNOUNCE.search(node.detail):
                before = [
                    u
                    for u in updates
                    if node.start is not None and u.end <= node.start  # type: ignore[operator]
                ]
                if before:
                    draft = max(before, key=lambda u: _time_key(u, position[u.id]))
                    key = key_of.get(draft.id, key)
        key_of[node.id] = key
        groups.setdefault(key, []).append(node)
    return sorted(groups.values(), key=lambda nodes: min(position[n.id] for n in nodes))


def output_kind(node: Node) -> OutputKind:
    """The kind of the AI output ``node`` opens (the first node of one of :func:`ai_outputs`).

    A simulated node by its action (a code cell, a chat message, a memory entry, a draft: an
    editor update or a gated submission); a Kolab node by its label: ``code`` when it names
    code (code, script, formula, function, query, SQL, macro, program, Python, regex),
    ``draft`` when it names text written for the person (draft, write, rewrite, revise,
    rephrase, compose, summarise), else ``message`` (a chat answer). Kolab has no memory.
    """
    action = node.extra.get("action_type")
    if action is not None:
        return _SIM_KIND.get(str(action), "message")
    if _KOLAB_CODE.search(node.label):
        return "code"
    if _KOLAB_DRAFT.search(node.label):
        return "draft"
    return "message"


def _answered(graph: WorkflowGraph) -> set[str]:
    return {r.ai_node for r in graph.responses}


def ai_response_share(graph: WorkflowGraph) -> float:
    """Share of the graph's AI outputs that some response answers (NaN without outputs).

    ``|{o : o answered}| / |O|``, an output being answered when any of its nodes is the
    ``ai_node`` of a response (module docstring).
    """
    outputs = ai_outputs(graph)
    if not outputs:
        return math.nan
    answered = _answered(graph)
    return sum(any(n.id in answered for n in o) for o in outputs) / len(outputs)


def last_ai_responded(graph: WorkflowGraph) -> float:
    """1.0 when the last AI output is answered, 0.0 when not, NaN without AI outputs.

    The last output is the one holding the AI node with the latest end time (ties: latest
    start, then graph order).
    """
    outputs = ai_outputs(graph)
    if not outputs:
        return math.nan
    position = {n.id: i for i, n in enumerate(graph.nodes)}
    last = max(outputs, key=lambda o: max(_time_key(n, position[n.id]) for n in o))
    answered = _answered(graph)
    return 1.0 if any(n.id in answered for n in last) else 0.0
