"""LLM hypothesis judge through the project's LLM client (litellm mock responses, offline)."""

from __future__ import annotations

import json

import pytest

from collabsim.llm.client import LLMClient, LLMSettings
from collabsim.metrics.judge_llm import JudgeReplyError, LLMJudge, parse_json_object

GOLD = "Around 1100 BCE, the Depots peaked."


def judge_with(reply: str) -> LLMJudge:
    return LLMJudge(LLMSettings(model="gpt-4o-mini", extra={"mock_response": reply}), LLMClient())


def test_llm_judge_returns_hypothesis_score_from_model_json() -> None:
    reply = json.dumps({
        "context": 1, "context_recall": 1, "gold_variables": ["Depot"],
        "submitted_variables": ["Depot", "Sickle"], "matched_gold_variables": ["Depot"],
        "matched_submitted_variables": ["Depot"], "relation": 0.5, "rationale": "close",
    })
    score = judge_with("Here you go:\n```json\n" + reply + "\n```").score(
        "Around 1100 BCE depots and sickles peaked.", GOLD
    )
    assert score.variable_f1 == pytest.approx(2 / 3)
    assert score.performance == pytest.approx(1.0 * (2 / 3) * 0.5)
    assert score.context_recall == 1.0 and score.judge == "llm:gpt-4o-mini"
    assert score.rationale == "close"


def test_llm_judge_prompt_holds_gold_and_hypothesis() -> None:
    prompt = judge_with("{}").render("depots peak 1100 BCE", GOLD)
    assert GOLD in prompt and "depots peak 1100 BCE" in prompt and '"relation"' in prompt


def test_unparseable_reply_raises() -> None:
    with pytest.raises(JudgeReplyError):
        judge_with("I think it matches.").score("depots peak 1100 BCE", GOLD)


def test_empty_hypothesis_needs_no_model_call() -> None:
    assert judge_with("not json").score("", GOLD).performance == 0.0


def test_parse_json_object_skips_chatter() -> None:
    assert parse_json_object('note {bad} then {"a": 1}') == {"a": 1}


def test_llm_initiative_classifier_and_process_judge() -> None:
    from collabsim.core.events import TraceEvent
    from collabsim.metrics.initiative import LLMInitiativeClassifier, initiative_counts
    from collabsim.metrics.process import LLMProcessJudge
    from collabsim.metrics.reference import load_reference, packaged_reference_path

    events = [
        TraceEvent(0, 0, 1, "D", "human", "SEND_TEAMMATE_MESSAGE", {"message": "ok"}),
        TraceEvent(1, 1, 2, "agent", "ai", "SEND_TEAMMATE_MESSAGE", {"message": "hm"}),
    ]
    yes = LLMSettings(model="gpt-4o-mini", extra={"mock_response": '{"initiative": true}'})
    counts = initiative_counts(events, ["agent", "D"], LLMInitiativeClassifier(yes, LLMClient()))
    assert counts == {"agent": 1, "D": 1}  # the model, not the rules, decided
    ref = load_reference(packaged_reference_path("archaeology/1/0"))
    judge = LLMProcessJudge(
        LLMSettings(model="gpt-4o-mini", extra={"mock_response": '{"score": 1.7}'}), LLMClient()
    )
    assert judge.score("C_wf", events, ref) == 1.0  # clipped to [0, 1]
    with pytest.raises(KeyError):
        judge.score("unknown", events, ref)
