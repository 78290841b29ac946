"""Process metrics: the team's trace against the task's reference workflow graph.

All three are deterministic functions of the trace events and the reference workflow
(:mod:`collabsim.metrics.reference`), each in [0, 1].

*Effective actions* are team actions (:func:`collabsim.metrics.activity.is_team_action`) or
gate outcome events with status ``ok``, ``approved`` or ``error`` (a pending request has not
taken effect; a rejected one never does, nor one ``interrupted`` by the session's end).
Their *text* is the code of ``EXECUTE_CODE``, the message, editor text, memory entry or gate
reason/comment. *Code outputs* are the ``observation`` of effective ``EXECUTE_CODE`` events
with status ``ok``/``approved``.

Keyword matching is case-insensitive substring matching; a keyword ``"a|b"`` matches either.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from collabsim.core.events import TraceEvent
from collabsim.domain.relations import ordinal, relation_tags, variable_directions
from collabsim.domain.time_expr import (
    DEFAULT_PERIODS,
    extract_time_anchors,
    strip_frame,
    years_in_text,
)
from collabsim.domain.variables import VariableLexicon, canonical_column, variables_match
from collabsim.metrics.activity import TEAM_ACTOR_TYPES, as_events
from collabsim.metrics.initiative import action_text
from collabsim.metrics.judge_llm import ask_json, load_prompt
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.metrics.reference import RELATION_REQUIREMENTS, ReferenceWorkflow, RefNode
from collabsim.tasks.model import Task, TaskBrief

_EFFECTIVE = frozenset({"ok", "approved", "error"})
_TEXT_ACTIONS = frozenset({"EXECUTE_CODE", "SEND_TEAMMATE_MESSAGE", "EDITOR_UPDATE",
                           "MEMORY_ADD", "REJECT", "APPROVE"})


@dataclass(frozen=True)
class TraceView:
    """What the process metrics read from a trace.

    Attributes:
        actions: ``(actor, actor_type, action_type, text)`` of effective text actions.
        outputs: Code outputs.
        code: Code of effective ``EXECUTE_CODE`` actions.
    """

    actions: tuple[tuple[str, str, str, str], ...]
    outputs: tuple[str, ...]
    code: tuple[str, ...]


def trace_view(events: Iterable[TraceEvent | Mapping[str, Any]]) -> TraceView:
    """Extract effective action texts and code outputs from trace events."""
    actions: list[tuple[str, str, str, str]] = []
    outputs: list[str] = []
    code: list[str] = []
    for e in as_events(events):
        if e.actor_type not in TEAM_ACTOR_TYPES or e.status not in _EFFECTIVE:
            continue
        if e.action_type not in _TEXT_ACTIONS:
            continue
        text = action_text(e)
        if text:
            actions.append((e.actor, e.actor_type, e.action_type, text))
        if e.action_type == "EXECUTE_CODE":
            code.append(text)
            if e.status in ("ok", "approved") and e.observation:
                outputs.append(e.observation)
    return TraceView(tuple(actions), tuple(outputs), tuple(code))


def _kw_hit(keyword: str, text: str) -> bool:
    low = text.lower()
    return any(alt.strip().lower() in low for alt in keyword.split("|") if alt.strip())


def node_score(node: RefNode, view: TraceView) -> float:
    """Score one reference node against a trace: 1 satisfied, 0.5 partial, 0 missing.

    * keywords met = one effective action's text mentions every keyword of the node (a node
      without keywords counts as met);
    * evidence node: 1 when keywords are met AND one code output contains every
      ``expected_output`` substring; 0.5 when only one of the two holds; else 0;
    * reasoning node: 1 when keywords are met; 0.5 when at least one keyword is mentioned
      somewhere; else 0. A reasoning node without keywords is met vacuously by any
      effective text action (it cannot be observed more precisely).
    """
    texts = [t for _, _, _, t in view.actions]
    kws = node.keywords
    kw_ok = not kws or any(all(_kw_hit(k, t) for k in kws) for t in texts)
    if node.kind == "evidence" and node.expected_output:
        ev_ok = any(all(x in out for x in node.expected_output) for out in view.outputs)
        if kw_ok and ev_ok:
            return 1.0
        return 0.5 if (kw_ok and kws) or ev_ok else 0.0
    if kw_ok:
        return 1.0 if texts else 0.0
    return 0.5 if any(_kw_hit(k, t) for k in kws for t in texts) else 0.0


def workflow_coverage(
    events: Iterable[TraceEvent | Mapping[str, Any]] | TraceView, reference: ReferenceWorkflow
) -> float:
    """Workflow Coverage C_wf.

    C_wf = max over acceptable paths p in P of (1/|p|) * sum_{v in p} s(v), with node score
    s(v) in {0, 0.5, 1} from :func:`node_score`.

    Returns:
        C_wf in [0, 1] (0 for a reference without paths).
    """
    view = events if isinstance(events, TraceView) else trace_view(events)
    scores = {n.id: node_score(n, view) for n in reference.nodes}
    best = 0.0
    for path in reference.paths:
        if path:
            best = max(best, sum(scores.get(v, 0.0) for v in path) / len(path))
    return best


def _relation_check(hypothesis: str, reference: ReferenceWorkflow, lex: VariableLexicon) -> float:
    comp = reference.completion
    tags = relation_tags(hypothesis)
    groups = RELATION_REQUIREMENTS.get(comp.relation)
    ok = all(tags & g for g in groups) if groups else bool(tags)
    if comp.directions and len(comp.directions) == len(comp.variables):
        claimed = variable_directions(hypothesis, lex)
        for var, d in zip(comp.variables, comp.directions, strict=True):
            want = "increase" if d == "up" else "decrease"
            got = claimed.get(canonical_column(var), set())
            if got and want not in got:
                return 0.0
    if not ok:
        return 0.0
    need = reference.required_ordinal
    if need is not None and ordinal(hypothesis) != need:
        return 0.5
    return 1.0


def hypothesis_support(
    hypothesis: str,
    events: Iterable[TraceEvent | Mapping[str, Any]] | TraceView,
    reference: ReferenceWorkflow,
    task: Task | TaskBrief | None = None,
) -> float:
    """Hypothesis Support S_hyp: is the submitted claim supported by the trace under C?

    S_hyp = (relation + scope + evidence) / 3 with

    * relation: 1 when the claim's relation tags meet the completion relation's requirements
      (:data:`~collabsim.metrics.reference.RELATION_REQUIREMENTS`) and its ordinal matches
      the required one; 0.5 when only the ordinal is wrong or missing; 0 otherwise or when a
      completion variable is claimed to move against its completion direction;
    * scope (claim anchors restating the query's window are ignored, see
      :func:`~collabsim.domain.time_expr.strip_frame`): share of completion years y that the
      claim dates within ``tolerance_years``
      by an anchor that is itself within ``tolerance_years`` of a year printed in some code
      output of the trace (1.0 when the completion has no years);
    * evidence: mean of (a) some claimed variable matching a completion variable appears in
      the trace's code or code outputs and (b) some claimed time anchor is within
      ``tolerance_years`` of a year printed in a code output (1.0 without completion years).

    An empty hypothesis scores 0.

    Returns:
        S_hyp in [0, 1].
    """
    if not hypothesis or not hypothesis.strip():
        return 0.0
    view = events if isinstance(events, TraceView) else trace_view(events)
    comp = reference.completion
    tol = comp.tolerance_years
    judge = RuleJudge(tolerance_years=tol)
    lex = judge.lexicon(task)
    periods = judge.periods_for(task) if task is not None else dict(DEFAULT_PERIODS)
    anchors = strip_frame(extract_time_anchors(hypothesis, periods), judge.query_frame(task))
    seen_years = set().union(*(years_in_text(o) for o in view.outputs)) if view.outputs else set()

    def supported(lo: int, hi: int) -> bool:
        return any(lo - tol <= y <= hi + tol for y in seen_years)

    relation = _relation_check(hypothesis, reference, lex)
    if comp.years:
        hits = [
            any(a.lo - tol <= y <= a.hi + tol and supported(a.lo, a.hi) for a in anchors)
            for y in comp.years
        ]
        scope = sum(hits) / len(hits)
        year_ev = 1.0 if any(supported(a.lo, a.hi) for a in anchors) else 0.0
    else:
        scope = year_ev = 1.0
    wanted = {canonical_column(v) for v in comp.variables}
    claimed = {v for v in lex.variables(hypothesis) if any(variables_match(v, w) for w in wanted)}
    traced = lex.variables("\n".join(view.code + view.outputs))
    var_ev = 1.0 if any(variables_match(c, t) for c in claimed for t in traced) else 0.0
    if not wanted:
        var_ev = 1.0
    return (relation + scope + (var_ev + year_ev) / 2) / 3


_D_FEATURE = re.compile(
    r"\d|\bcolumn|\bwindow|\bbin|\bidxmax|\bidxmin|\bdiff\b|\bmean\b|\bmax\b|\bmin\b|"
    r"\bcompute|\brecompute|\bvalue|\bz[- ]?value|\bfilter|\bnumber", re.IGNORECASE)
_R_FEATURE = re.compile(
    r"\bfirst\b|\bsecond\b|\bthird\b|\bordinal|\bwording|\bquery\b|\bquestion|\bask(?:s|ed)?\b|"
    r"\bperiod\b|\bphase\b|\bcentur|\bmillenn|neolithic|bronze age|\bcaveat|\bhowever\b|"
    r"\bbut\b|\buncertain|\bambigu|\bcareful|\bmight\b|\bmay\b|\bsupport|\bevidence|"
    r"\bclaim|\bhypothes|\bsustained|\bpeak|\bplateau|\bsimultan|\bincreas|\bdecreas|"
    r"\brise|\bdecline|\bhighest|\blowest", re.IGNORECASE)
PROFILE_KINDS: Mapping[str, str] = {"D": "evidence", "R": "reasoning"}


def _fits_profile(profile: str, action_type: str, text: str) -> bool:
    if profile == "D":
        return action_type == "EXECUTE_CODE" or bool(_D_FEATURE.search(text))
    return bool(_R_FEATURE.search(text))


def _meets_need(profile: str, text: str, reference: ReferenceWorkflow) -> bool:
    kind = PROFILE_KINDS[profile]
    for node in reference.nodes:
        if node.kind != kind:
            continue
        if any(_kw_hit(k, text) for k in node.keywords):
            return True
        if any(x in text for x in node.expected_output):
            return True
    if profile == "R":
        groups = RELATION_REQUIREMENTS.get(reference.completion.relation, ())
        tags = relation_tags(text)
        return any(tags & g for g in groups) or (
            reference.required_ordinal is not None and ordinal(text) is not None
        )
    return False


def profile_alignment(
    events: Iterable[TraceEvent | Mapping[str, Any]] | TraceView,
    profiles: Mapping[str, str],
    reference: ReferenceWorkflow,
) -> float:
    """Profile Alignment A_profile: do collaborators' contributions fit their profile?

    Contributions are the effective text actions of human collaborators whose profile is
    ``D`` (data analysis) or ``R`` (researcher). Each scores

    * 1 when it fits its author's profile (D: code, numbers, columns, windows, computations;
      R: wording, ordinals, relation words, periods, caveats, evidential support) AND meets
      a need of the workflow for that profile (D: mentions a keyword/expected output of an
      evidence node; R: a keyword of a reasoning node, a relation tag the completion
      relation requires, or an ordinal when one is required);
    * 0.5 when it fits the profile but not the workflow's needs;
    * 0 when it does not fit the profile.

    A_profile = mean over contributions.

    Args:
        events: The session's trace events.
        profiles: Member name -> profile key (``{"D": "D", "R": "R"}``); members with other
            keys are ignored.
        reference: The task's reference workflow.

    Returns:
        A_profile in [0, 1]; NaN when no collaborator has a D/R profile (``single``/solo)
        or the collaborators made no contribution.
    """
    known = {m: p for m, p in profiles.items() if p in PROFILE_KINDS}
    if not known:
        return math.nan
    view = events if isinstance(events, TraceView) else trace_view(events)
    scores: list[float] = []
    for actor, actor_type, action_type, text in view.actions:
        if actor_type != "human" or actor not in known:
            continue
        p = known[actor]
        if not _fits_profile(p, action_type, text):
            scores.append(0.0)
        else:
            scores.append(1.0 if _meets_need(p, text, reference) else 0.5)
    return sum(scores) / len(scores) if scores else math.nan


_METRIC_DEFINITIONS: Mapping[str, str] = {
    "C_wf": "Workflow coverage: for the best acceptable path, the mean over its nodes of 1 "
            "(the team did and showed this step), 0.5 (partly) or 0 (missing).",
    "S_hyp": "Hypothesis support: mean of three checks - the claim states the required "
             "relation, its time scope is backed by evidence printed in the trace, and the "
             "claimed variable and year appear in the team's code outputs.",
    "A_profile": "Profile alignment: share of the human collaborators' contributions that fit "
                 "their profile (D = data analysis: code, numbers, columns, windows; R = "
                 "researcher: wording, ordinals, relations, periods, caveats) and what the "
                 "workflow needs from that profile.",
}


class LLMProcessJudge:
    """Model-graded process metrics (prompt ``prompts/process_judge.txt``), optional.

    Args:
        settings: ``collabsim.llm.client.LLMSettings``.
        client: ``collabsim.llm.client.LLMClient`` (fresh when None).
        max_trace_chars: Trace text shown to the model.
    """

    def __init__(self, settings: Any, client: Any | None = None, max_trace_chars: int = 12000):
        self.settings = settings
        self.client = client
        self.max_trace_chars = max_trace_chars

    def score(
        self,
        metric: str,
        events: Iterable[TraceEvent | Mapping[str, Any]],
        reference: ReferenceWorkflow,
        task: Task | TaskBrief | None = None,
        hypothesis: str = "",
    ) -> float:
        """Grade ``metric`` (``C_wf``, ``S_hyp`` or ``A_profile``); the reply is clipped to [0, 1].

        Raises:
            KeyError: Unknown metric.
        """
        definition = _METRIC_DEFINITIONS[metric]
        lines: Sequence[str] = [
            f"[{e.seq}] {e.actor} ({e.actor_type}) {e.action_type} {e.status}: "
            f"{action_text(e)[:400]}" + (f"\n  -> {e.observation[:400]}" if e.observation else "")
            for e in as_events(events)
            if e.actor_type != "env"
        ]
        prompt = load_prompt("process_judge.txt").substitute(
            query=task.query if task is not None else "(not given)",
            reference=reference.model_dump_json(indent=1)[: self.max_trace_chars],
            trace="\n".join(lines)[-self.max_trace_chars :] or "(empty)",
            hypothesis=hypothesis or "(none)",
            metric=metric,
            metric_definition=definition,
        )
        obj = ask_json(prompt, self.settings, self.client, tag=f"process-judge:{metric}")
        try:
            value = float(obj.get("score", 0.0))
        except (TypeError, ValueError):
            value = 0.0
        return 0.0 if math.isnan(value) else min(1.0, max(0.0, value))
