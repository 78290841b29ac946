"""What a session page tells beside the timeline: the header, the transcript and metric cards.

* **Header** - the task question, who worked on it under which structure, the submitted
  hypothesis, Performance and the judge's factors (context x variable F1 x relation). The
  gold hypothesis is added only when the caller asks for it (``show_gold``): by default a
  page never contains it.
* **Transcript** - every trace event in order (who said, ran, edited, requested or decided
  what, with the output), each linked to its timeline node (``node``; None for events that
  are not nodes: environment events, invalid or rejected actions). A Kolab graph has no
  trace: its transcript is its nodes in time order, with their label and detail.
* **Cards** - the collaboration-dynamics figures of the graph (as the Kolab explorer prints
  them per session), the step ratings where the data has them, and for a simulated session
  its activity and initiative metrics.

Everything here is plain JSON-ready data; ``assets/viewer.js`` draws it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from collabsim.core.events import TraceEvent
from collabsim.graphs.model import WorkflowGraph

#: the judge's factors, in the order of the product, with what each measures
FACTORS: tuple[tuple[str, str, str], ...] = (
    ("context", "context", "time context of the claim vs the gold (F1)"),
    ("variable_f1", "variable F1", "variables named in claim and gold (F1)"),
    ("relation", "relation", "same relation 1, partly 0.5, different 0"),
)
_TEXT_ARGS = ("message", "code", "text", "section", "reason")
_SKIPPED = frozenset({"WAIT_TEAMMATE_CONTINUE"})


def _number(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return str(value)


def outcome_of(performance: float | None, status: str = "") -> str:
    """The picker's outcome class: ``correct`` (Performance 1), ``partial``, ``wrong``
    (0), or ``not scored`` (no Performance, e.g. a failed session)."""
    if performance is None:
        return "not scored"
    if performance >= 0.999:
        return "correct"
    return "wrong" if performance <= 0.0 else "partial"


def transcript_from_trace(events: Sequence[TraceEvent], graph: WorkflowGraph) -> list[dict[str, Any]]:
    """One entry per trace event (waits left out), in ``seq`` order, linked to graph nodes.

    Entry keys: ``seq``, ``t`` (start, end), ``actor``, ``who`` (``ai``/``human``/``env``),
    ``act`` (action type), ``status``, ``text`` (message, code or editor text), ``note``
    (request id, reason, memory section, phase), ``out`` (observation), ``refs`` and
    ``node`` (timeline node id or None).
    """
    node_ids = {n.id for n in graph.nodes}
    out = []
    for ev in sorted(events, key=lambda e: e.seq):
        if ev.action_type in _SKIPPED:
            continue
        args = ev.args or {}
        main = "message" if "message" in args else "code" if "code" in args else "text"
        notes = []
        if args.get("request_id") is not None:
            notes.append(f"request {args['request_id']}")
        keys = ("phase", "status") if ev.actor_type == "env" else ("section", "reason")
        notes += [f"{key}: {args[key]}" for key in keys if args.get(key)]
        if ev.action_type == "SESSION_START" and args.get("members"):
            notes.append("members: " + ", ".join(map(str, args["members"])))
        node = f"e{ev.seq}"
        out.append({
            "seq": ev.seq,
            "t": [round(float(ev.t_start), 2), round(float(ev.t_end), 2)],
            "actor": ev.actor,
            "who": ev.actor_type,
            "act": ev.action_type,
            "status": ev.status,
            "text": _text(args.get(main)) if ev.actor_type != "env" else "",
            "note": "; ".join(notes),
            "out": ev.observation or "",
            "refs": list(ev.refs),
            "node": node if node in node_ids else None,
        })
    return out


def transcript_from_graph(graph: WorkflowGraph) -> list[dict[str, Any]]:
    """A graph without a trace (Kolab): its nodes in start-time order as transcript entries."""
    steps = {s.key: s.name for s in graph.steps}

    def start(node: Any) -> float:
        return node.intervals[0][0] if node.intervals else math.inf

    ordered = sorted(enumerate(graph.nodes), key=lambda p: (start(p[1]), p[0]))
    out = []
    for pos, (_, node) in enumerate(ordered):
        lo = node.intervals[0][0] if node.intervals else None
        hi = node.intervals[-1][1] if node.intervals else None
        out.append({
            "seq": pos,
            "t": [lo, hi] if lo is not None else None,
            "actor": node.actor,
            "who": node.actor_type,
            "act": "",
            "status": "",
            "text": node.label,
            "note": "; ".join(x for x in (steps.get(node.step or "", ""),
                                          ", ".join(node.softwares)) if x),
            "out": node.detail,
            "refs": [],
            "node": node.id,
        })
    return out


def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "\u2013"
    return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"


def graph_cards(graph: WorkflowGraph) -> list[dict[str, str]]:
    """Collaboration-dynamics cards (the Kolab explorer's per-session figures) and ratings."""
    from collabsim.metrics.dynamics import dynamics_row

    row = dynamics_row(graph)

    def num(key: str) -> float | None:
        return _number(row.get(key))

    cards = [
        {"label": "edges", "value": _fmt(num("edges_total"), 0),
         "hint": f"{_fmt(num('edges_crossing'), 0)} crossing human\u2194AI"},
        {"label": "crossing share", "value": _fmt(num("h_cross")),
         "hint": "crossing edges / all edges"},
        {"label": "branch \u00b7 merge \u00b7 loop",
         "value": f"{_fmt(num('branch'), 0)} \u00b7 {_fmt(num('merge'), 0)} \u00b7 "
                  f"{_fmt(num('loop'), 0)}",
         "hint": f"density (Br+L)/E {_fmt(num('density_w'))}"},
        {"label": "human burstiness", "value": _fmt(num("human_burstiness")),
         "hint": f"memory {_fmt(num('human_memory'))} over {_fmt(num('human_events'), 0)} "
                 "human events"},
        {"label": "handoff burstiness", "value": _fmt(num("handoff_burstiness")),
         "hint": f"memory {_fmt(num('handoff_memory'))} over {_fmt(num('handoff_events'), 0)} "
                 "handoffs"},
        {"label": "responses", "value": _fmt(num("responses_total"), 0),
         "hint": f"adopt {_fmt(num('responses_adopt'), 0)}, modify "
                 f"{_fmt(num('responses_modify'), 0)}"},
        {"label": "retention", "value": _fmt(num("retention_strict")),
         "hint": f"strict (adopt share); broad {_fmt(num('retention_broad'))}"},
    ]
    collab = [s.collaboration for s in graph.steps if s.collaboration is not None]
    quality = [s.quality for s in graph.steps if s.quality is not None]
    if collab or quality:
        cards.append({
            "label": "step ratings",
            "value": f"{_fmt(sum(collab) / len(collab)) if collab else chr(8211)} \u00b7 "
                     f"{_fmt(sum(quality) / len(quality)) if quality else chr(8211)}",
            "hint": f"mean collaboration \u00b7 quality (1\u20135) over {len(graph.steps)} steps",
        })
    return cards


def _row_cards(row: Mapping[str, Any]) -> list[dict[str, str]]:
    cards = []
    for key, label, hint in (
        ("W_human", "W_human", "non-message actions by the simulated humans"),
        ("M_team", "M_team", "messages by all members"),
        ("H_init_norm", "H_init,norm", "initiative entropy (1 = equal shares)"),
        ("H_init_work", "H_init,norm (work)", "initiative entropy over the work phase only"),
        ("C_wf", "C_wf", "workflow coverage of the reference steps"),
        ("objections", "objections", "collaborators' objections to a draft"),
    ):
        value = _number(row.get(key))
        if value is not None:
            cards.append({"label": label, "value": _fmt(value, 0 if value == int(value) else 2),
                          "hint": hint})
    return cards


def simulated_header(
    graph: WorkflowGraph,
    result: Mapping[str, Any] | None = None,
    row: Mapping[str, Any] | None = None,
    *,
    question: str = "",
    gold: str | None = None,
) -> dict[str, Any]:
    """Header of a simulated session.

    Args:
        graph: The session's graph (its ``session.extra`` names task, team, structure, seed).
        result: The session's ``result.json`` (status, submitted hypothesis, turns).
        row: Its metrics row (``Performance`` and the judge's factors), when known.
        question: The task question (default: the graph's goal).
        gold: The gold hypothesis; only pass it when the user asked to see it.
    """
    result = result or {}
    row = row or {}
    extra = graph.session.extra
    perf = _number(row.get("Performance"))
    status = _text(row.get("status") or result.get("status"))
    facts = [
        ("task", _text(row.get("task_id") or extra.get("task_id") or result.get("task_id"))),
        ("team", _text(row.get("team") or extra.get("team") or graph.session.participant_id)),
        ("structure", _text(row.get("structure") or extra.get("structure"))),
        ("seed", _text(row.get("seed") if row.get("seed") is not None else extra.get("seed"))),
        ("policy", _text(row.get("policy") or result.get("policy") or extra.get("policy"))),
        ("status", status),
        ("turns", _text(row.get("turns") or result.get("turns"))),
    ]
    seconds = _number(result.get("virtual_seconds"))
    if seconds is None and _number(row.get("virtual_min")) is not None:
        seconds = float(row["virtual_min"]) * 60
    if seconds is not None:
        facts.append(("virtual time", f"{seconds / 60:.1f} min"))
    if graph.session.domain:
        facts.append(("domain", graph.session.domain))
    hypothesis = _text(row.get("hypothesis") or result.get("submitted_hypothesis"))
    factors = [{"label": label, "value": _number(row.get(key)), "hint": hint}
               for key, label, hint in FACTORS]
    header: dict[str, Any] = {
        "kind": "simulated",
        "question": question or graph.session.goal,
        "facts": [[k, v] for k, v in facts if v],
        "hypothesis": hypothesis,
        "performance": perf,
        "outcome": outcome_of(perf, status),
        "factors": factors,
        "judge": _text(row.get("judge")),
        "error": _text(result.get("error")),
        "cards": _row_cards(row) + graph_cards(graph),
    }
    if gold is not None:
        header["gold"] = gold
    return header


def kolab_header(graph: WorkflowGraph) -> dict[str, Any]:
    """Header of a recorded (Kolab) session: who, what, and its metric cards."""
    info = graph.session
    facts = [("participant", info.participant_id), ("occupation", info.occupation),
             ("category", info.domain)]
    times = [t for n in graph.nodes for iv in n.intervals for t in iv]
    if times:
        facts.append(("recorded", f"{(max(times) - min(times)) / 60:.1f} min"))
    return {
        "kind": "kolab",
        "question": info.goal,
        "facts": [[k, v] for k, v in facts if v],
        "hypothesis": "",
        "performance": None,
        "outcome": "recorded",
        "factors": [],
        "judge": "",
        "error": "",
        "cards": graph_cards(graph),
    }
