"""Process metrics C_wf, S_hyp, A_profile on hand-made traces."""

from __future__ import annotations

import math

import pytest

from collabsim.core.events import TraceEvent
from collabsim.metrics.process import (
    hypothesis_support,
    node_score,
    profile_alignment,
    trace_view,
    workflow_coverage,
)
from collabsim.metrics.reference import ReferenceWorkflow, load_reference, packaged_reference_path

CLAIM = "Around 2300 BCE, the number of daggers began to increase for the first time."


@pytest.fixture(scope="module")
def ref() -> ReferenceWorkflow:
    return load_reference(packaged_reference_path("archaeology/1/0"))  # Dagger first rise


def code(seq: int, actor: str, src: str, out: str, status: str = "ok") -> TraceEvent:
    kind = "ai" if actor == "agent" else "human"
    return TraceEvent(seq, seq, seq + 1, actor, kind, "EXECUTE_CODE", {"code": src}, status, out)  # type: ignore[arg-type]


def say(seq: int, actor: str, text: str, action: str = "SEND_TEAMMATE_MESSAGE") -> TraceEvent:
    kind = "ai" if actor == "agent" else "human"
    key = "text" if action == "EDITOR_UPDATE" else "message"
    return TraceEvent(seq, seq, seq + 1, actor, kind, action, {key: text})  # type: ignore[arg-type]


FULL = [
    TraceEvent(0, 0, 0, "env", "env", "SESSION_START"),
    code(1, "D", "print(b[['Dagger']].to_string())", "       Dagger\nCE\n-2400  -0.58\n-2300   0.80"),
    code(2, "agent", "d = b['Dagger'].diff()\nprint('first rise:', int(d[d > 0].index[0]))",
         "first rise: -2300"),
    say(3, "R", "The query asks for the first rise, not the peak - is -2300 the first one?"),
    say(4, "agent", CLAIM, "EDITOR_UPDATE"),
]


def test_full_trace_covers_the_workflow(ref: ReferenceWorkflow) -> None:
    assert workflow_coverage(FULL, ref) == 1.0


def test_keywords_without_evidence_are_partial(ref: ReferenceWorkflow) -> None:
    talk = [say(1, "agent", "I will take Dagger and its diff"), say(2, "agent", "first rise 2300")]
    view = trace_view(talk)
    assert node_score(ref.node("load"), view) == 0.5
    assert node_score(ref.node("compute"), view) == 0.5
    # best path: load, compute, check ("first"), claim ("2300")
    assert workflow_coverage(talk, ref) == pytest.approx((0.5 + 0.5 + 1.0 + 1.0) / 4)


def test_empty_trace_covers_nothing(ref: ReferenceWorkflow) -> None:
    assert workflow_coverage([], ref) == 0.0


def test_pending_or_rejected_actions_do_not_count(ref: ReferenceWorkflow) -> None:
    pending = [code(1, "agent", "d = b['Dagger'].diff()", "first rise: -2300", status="pending"),
               code(2, "agent", "d = b['Dagger'].diff()", "first rise: -2300", status="rejected")]
    assert workflow_coverage(pending, ref) == 0.0


def test_supported_claim_scores_one(ref: ReferenceWorkflow) -> None:
    assert hypothesis_support(CLAIM, FULL, ref) == 1.0


def test_missing_ordinal_halves_the_relation_check(ref: ReferenceWorkflow) -> None:
    claim = "Around 2300 BCE, the number of daggers increased."
    assert hypothesis_support(claim, FULL, ref) == pytest.approx((0.5 + 1 + 1) / 3)


def test_claim_without_trace_evidence_is_unsupported(ref: ReferenceWorkflow) -> None:
    claim = "Around 1500 BCE, the number of daggers increased for the first time."
    assert hypothesis_support(claim, FULL, ref) == pytest.approx((1 + 0 + 0.5) / 3)
    assert hypothesis_support(CLAIM, [], ref) == pytest.approx((1 + 0 + 0) / 3)
    assert hypothesis_support("", FULL, ref) == 0.0


def test_profile_alignment(ref: ReferenceWorkflow) -> None:
    profiles = {"D": "D", "R": "R"}
    assert profile_alignment(FULL, profiles, ref) == 1.0
    off = [say(1, "D", "I like this."), say(2, "R", "Is this really the first rise?")]
    assert profile_alignment(off, profiles, ref) == 0.5
    generic = [say(1, "D", "Row 12 has value 3.1.")]  # fits D, no workflow need
    assert profile_alignment(generic, profiles, ref) == 0.5
    assert math.isnan(profile_alignment(FULL, {}, ref))
    assert math.isnan(profile_alignment([say(1, "agent", "x")], profiles, ref))


@pytest.mark.parametrize(("trace", "expected"), [
    # load 1 (Dagger in code and output), compute 0.5 (-2300 printed, no diff), check 0,
    # claim 0: best path load-compute-claim = 1.5 / 3
    (FULL[:2], 0.5),
    # load 0.5 (daggers named, nothing printed), compute 0, check 1 ("first"), claim 1
    # ("-2300" said): best path load-compute-check-claim = 2.5 / 4
    (FULL[3:], 0.625),
    ([], 0.0),
])
def test_workflow_coverage_of_partial_traces(
    ref: ReferenceWorkflow, trace: list[TraceEvent], expected: float
) -> None:
    assert workflow_coverage(trace, ref) == pytest.approx(expected)


@pytest.mark.parametrize(("claim", "trace", "expected"), [
    # relation 1, scope 1 (2300 BCE printed), evidence (variable 1 + year 1) / 2
    (CLAIM, FULL[:2], 1.0),
    # relation 1, nothing printed: scope 0, evidence 0
    (CLAIM, [], 1 / 3),
    # no relation word, no year: relation 0, scope 0, evidence (Dagger traced 1 + year 0) / 2
    ("daggers", FULL, 1 / 6),
    # wrong relation, unsupported year, a variable the completion does not name
    ("Around 4000 BCE sickles peaked.", FULL, 0.0),
    ("", FULL, 0.0),
])
def test_hypothesis_support_by_hand(
    ref: ReferenceWorkflow, claim: str, trace: list[TraceEvent], expected: float
) -> None:
    assert hypothesis_support(claim, trace, ref) == pytest.approx(expected)
