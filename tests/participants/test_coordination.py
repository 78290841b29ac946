"""The coordination costs and remedies the scripted participants carry out
(collabsim.core.coordination): misapplied chat suggestions, transactive memory, gate owners'
checks and the team-chosen owners."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from helpers.observations import sample_observation

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.records import ChatMessage, GateRequest, MemoryView
from collabsim.participants.agent_plan import FixRules, PlanFold, fold_objection
from collabsim.participants.claims import Issue
from collabsim.participants.misapplication import competing_messages, misapplier
from collabsim.participants.owner_routing import choose_owners, hinge_area, recorded_areas
from collabsim.participants.plan import AnalysisPlan
from collabsim.participants.query import QuerySemantics
from collabsim.participants.scripted import ScriptedCollaborator
from collabsim.participants.state_block import observation_from_dict, observation_to_dict
from collabsim.participants.team import load_profile

CHAT = (ChatMessage(0, 1.0, "agent", "draft"), ChatMessage(1, 2.0, "D", "a"),
        ChatMessage(2, 3.0, "R", "b"), ChatMessage(3, 4.0, "D", "c"),
        ChatMessage(4, 5.0, "agent", "ok"), ChatMessage(5, 6.0, "R", "d"))


def test_competing_messages_are_the_unanswered_teammate_messages_before_it() -> None:
    assert competing_messages(CHAT, CHAT[3], "agent") == 2  # a and b came before c
    assert competing_messages(CHAT, CHAT[1], "agent") == 0
    assert competing_messages(CHAT, CHAT[5], "agent") == 0  # the agent answered since


def test_the_misapplication_rate_grows_with_competing_messages_and_falls_with_criteria() -> None:
    spec = CoordinationSpec(misapplication=0.2, misapplication_per_message=0.1,
                            criteria_factor=0.6)
    assert spec.misapplication_rate(0, criteria=False) == pytest.approx(0.2)
    assert spec.misapplication_rate(2, criteria=False) == pytest.approx(0.4)
    assert spec.misapplication_rate(2, criteria=True) == pytest.approx(0.24)
    off = replace(spec, transactive_memory=False)
    assert off.misapplication_rate(2, criteria=True) == pytest.approx(0.4)
    assert CoordinationSpec(misapplication=0.9, misapplication_per_message=0.5
                            ).misapplication_rate(3, criteria=False) == 1.0


@pytest.mark.parametrize("bad", [{"misapplication": 1.5}, {"loafing": -0.1},
                                 {"attention_messages": -1}])
def test_a_bad_coordination_value_names_its_setting(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=f"coordination.{next(iter(bad))}"):
        CoordinationSpec(**bad)
    with pytest.raises(ValueError, match="unknown setting"):
        CoordinationSpec().with_values({"misaplication": 0.1})


SEMANTICS = QuerySemantics(relation="rise", variables=("Dagger",), ordinal=2,
                           window=(-3000, -1000))
PLAN = AnalysisPlan(relation="rise", dataset="finds.csv", columns=("Dagger",), ordinal=2,
                    window=(-3000, -1000))


def _rules(spec: CoordinationSpec, binding: frozenset[str] = frozenset(),
           mistakes: frozenset[str] = frozenset()) -> FixRules:
    brief = sample_observation().task
    return FixRules(brief, SEMANTICS, mistakes, binding, lambda m, k: True,
                    misapplier(spec, 0, "agent", brief, SEMANTICS, mistakes, CHAT, False))


def test_a_followed_chat_suggestion_can_lose_part_of_the_query() -> None:
    objection = (CHAT[1], (("wrong_column_variant", {"column": "Dagger"}),))
    always = fold_objection(PlanFold(PLAN), objection, _rules(CoordinationSpec(misapplication=1.0)))
    assert len(always.distortions) == 1
    lost = always.distortions[0]
    assert lost in ("wrong_ordinal", "wrong_window", "misread_query")  # not peak/plateau: no peak
    assert always.plan != PLAN  # redone under the distorted reading
    never = fold_objection(PlanFold(PLAN), objection,
                           _rules(CoordinationSpec(misapplication=0.0,
                                                   misapplication_per_message=0.0)))
    assert never.distortions == () and never.plan == PLAN
    # the agent's own mistakes are never drawn as a distortion
    own = fold_objection(PlanFold(PLAN), objection, _rules(
        CoordinationSpec(misapplication=1.0),
        mistakes=frozenset({"wrong_ordinal", "wrong_window", "misread_query"})))
    assert own.distortions == ()


def test_a_gate_owners_binding_fix_lands_as_stated() -> None:
    objection = (CHAT[1], (("wrong_column_variant", {"column": "Dagger"}),))
    fold = fold_objection(PlanFold(PLAN), objection,
                          _rules(CoordinationSpec(misapplication=1.0), binding=frozenset({"D"})))
    assert fold.distortions == () and fold.plan == PLAN


def test_the_distortion_is_drawn_once_per_suggestion() -> None:
    objection = (CHAT[1], (("wrong_column_variant", {"column": "Dagger"}),))
    rules = _rules(CoordinationSpec(misapplication=0.5))
    first = [fold_objection(PlanFold(PLAN), objection, rules).distortions for _ in range(3)]
    assert first[0] == first[1] == first[2]


# ------------------------------------------------------------------------ owner routing
def _memory(entries: dict[str, tuple[str, ...]]) -> MemoryView:
    return MemoryView(sections={"expertise": (), "trust": (), "plan": (),
                                "evidence_criteria": (), "gates": (), **entries})


D_ENTRY = ("Expertise D (data analysis): variable mapping, raw vs interpolated column "
           "variants, windows, extremes and n-th events; validates numbers by recomputing them.")
R_ENTRY = ("Expertise R (researcher): query semantics - first vs second, peak vs highest "
           "sustained values, increase vs decrease, bounded periods.")


def _build_obs(memory: MemoryView) -> Any:
    return replace(sample_observation(), teammates=("D", "R"), phase="build",
                   structure="scaffolded", memory=memory)


def test_recorded_areas_read_who_claims_what() -> None:
    obs = _build_obs(_memory({"expertise": (D_ENTRY, R_ENTRY)}))
    assert recorded_areas(obs) == {"D": "computation", "R": "semantics"}
    assert recorded_areas(_build_obs(_memory({"expertise": (R_ENTRY,)}))) == {"R": "semantics"}


def test_the_task_hinges_on_the_area_with_more_open_decisions() -> None:
    # second rise in a bounded period: two semantic decisions, one column
    assert hinge_area(SEMANTICS, PLAN) == "semantics"
    # a first peak... no: the highest value of two gap-filled series, nothing bounded
    plain = QuerySemantics(relation="growth_max", variables=("a", "b"))
    combined = AnalysisPlan(relation="growth_max", dataset="f.csv",
                            columns=("a_inter", "b_inter"), raw_columns=("a", "b"))
    assert hinge_area(replace(plain, relation="describe"), combined) == "computation"
    # ties go to semantics
    one = AnalysisPlan(relation="describe", dataset="f.csv", columns=("a",), raw_columns=("a",))
    assert hinge_area(QuerySemantics(relation="describe", variables=("a",), ordinal=2), one) \
        == "semantics"


def test_the_team_chooses_owners_from_its_record_and_the_task() -> None:
    obs = _build_obs(_memory({"expertise": (D_ENTRY, R_ENTRY)}))
    fallback = (("EDITOR_UPDATE", "R"), ("FINISH", "D"))
    assert choose_owners(obs, SEMANTICS, PLAN, fallback) == fallback
    computation = AnalysisPlan(relation="describe", dataset="f.csv",
                               columns=("a_inter", "b_inter"), raw_columns=("a", "b"))
    assert choose_owners(obs, QuerySemantics(relation="describe", variables=("a", "b")),
                         computation, fallback) == (("EDITOR_UPDATE", "D"), ("FINISH", "R"))
    # nothing recorded: the configured proposal; one teammate: it owns both
    assert choose_owners(_build_obs(_memory({})), SEMANTICS, PLAN, fallback) == fallback
    only_d = replace(_build_obs(_memory({"expertise": (D_ENTRY,)})), teammates=("D",))
    assert choose_owners(only_d, SEMANTICS, PLAN, fallback) == (
        ("EDITOR_UPDATE", "D"), ("FINISH", "D"))


# ------------------------------------------------------------ collaborators' remedies
DRAFT = "Around 2300 BCE, the number of Dagger began to increase for the first time."


def _collaborator_obs(**kw: Any) -> Any:
    base = replace(sample_observation(role="collaborator"), me="D", profile=load_profile("D"),
                   teammates=("agent", "R"), structure="default", time=500.0,
                   editor_text=DRAFT)
    return replace(base, **kw)


def test_with_a_transactive_memory_a_collaborator_raises_only_its_areas_issues() -> None:
    d = ScriptedCollaborator(load_profile("D"), params={"object_outside": 1.0})
    outside = Issue("wrong_ordinal", "Use the second rise.", (("ordinal", "2"),))
    inside = Issue("wrong_column_variant", "Use the gap-filled column.",
                   (("column", "Dagger_inter"),))
    found = (outside, inside)
    plain = _collaborator_obs()
    assert d.voiced(plain, "f", found) == found
    recorded = _collaborator_obs(memory=_memory({"expertise": (D_ENTRY,)}))
    assert d.voiced(recorded, "f", found) == (inside,)
    switched_off = replace(recorded, coordination=CoordinationSpec(transactive_memory=False))
    assert d.voiced(switched_off, "f", found) == found


def test_a_gate_owners_decision_is_its_check_not_the_adopt_draw(monkeypatch: Any) -> None:
    """An owner whose own check disputes the request rejects (or first says why) whatever
    its adopt/modify/reject draw; with gate_checks off the adopt draw approves it."""
    d = ScriptedCollaborator(load_profile("D"))
    sure = Issue("wrong_year", "The rise is around 2100 BCE.",
                 (("column", "Dagger"), ("ordinal", "1")))
    monkeypatch.setattr(d, "issues", lambda obs, text: (sure,))
    monkeypatch.setattr(d, "reaction", lambda obs, fp, disagrees: "adopt")
    request = GateRequest("r1", 1, 490.0, "agent", "D", "FINISH")
    obs = _collaborator_obs(pending_for_me=(request,), gates={"FINISH": "D"},
                            available_actions=("APPROVE", "REJECT", "WAIT_TEAMMATE_CONTINUE"))
    assert d.decide(obs).startswith("REJECT")
    off = replace(obs, coordination=CoordinationSpec(gate_checks=False))
    assert d.decide(off).startswith("APPROVE")
    # another area's point (its fix sets only R's topics) is not D's to decide
    theirs = Issue("wrong_ordinal", "Use the second rise.", (("ordinal", "2"),))
    monkeypatch.setattr(d, "issues", lambda obs, text: (theirs,))
    assert d.decide(obs).startswith("APPROVE")


def test_a_non_default_coordination_travels_in_the_offline_state_block() -> None:
    obs = replace(sample_observation(), coordination=CoordinationSpec(loafing=0.5))
    data = observation_to_dict(obs)
    assert observation_from_dict(data).coordination == CoordinationSpec(loafing=0.5)
    # the default is left out, so prompts (and LLM cache keys) stay as they were
    assert "coordination" not in observation_to_dict(sample_observation())


def test_a_readers_comment_on_a_shared_result_names_what_its_reading_disputes() -> None:
    """R's comment on a result of the first rise, when it reads the second asked, carries
    the ordinal as a suggestion (an issue tag the agent may take up); routed by area, D
    raises none of R's points where the memory records who knows what."""
    from collabsim.participants.cells import AnalysisResult
    from collabsim.participants.participation import AgentOutput, _suggested, reading_issues
    result = AnalysisResult(relation="rise", ordinal=1, columns=("Dagger",), window=None,
                            year=-2300)
    found = reading_issues(SEMANTICS, result)
    assert [i.kind for i in found] == ["wrong_ordinal", "wrong_window"]
    assert dict(found[0].fix) == {"ordinal": "2"}
    assert reading_issues(replace(SEMANTICS, ordinal=1, window=None), result) == ()
    output = AgentOutput("7", "code", 10.0, "RESULT ...")
    r = ScriptedCollaborator(load_profile("R"))
    said = _suggested(r, _collaborator_obs(me="R", profile=load_profile("R")), output, found)
    assert "[issue kind=wrong_ordinal fix=ordinal:2]" in said
    d = ScriptedCollaborator(load_profile("D"))
    routed = _collaborator_obs(memory=_memory({"expertise": (D_ENTRY,)}))
    assert _suggested(d, routed, output, found) == ""
