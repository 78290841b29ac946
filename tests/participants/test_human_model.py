"""The behavioural model of scripted collaborators: mistakes
fire on the real archaeology queries, and the mechanisms move outcomes as documented."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.records import Profile
from collabsim.participants.human import AREAS, HUMAN_MISTAKES, HumanConfigError, HumanModel
from collabsim.participants.plan import MistakeModel, apply_mistakes, resolve_plan
from collabsim.participants.query import parse_query
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import load_profile, packaged_profile_keys, team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.model import Task


@pytest.mark.parametrize("key", packaged_profile_keys())
def test_profile_parameters_document_their_source(key: str) -> None:
    params = load_profile(key).params
    for name in ("error_in_area", "error_outside", "confidence_in_area", "confidence_outside",
                 "message_propensity", "assertiveness", "approve_threshold"):
        entry = params[name]
        assert isinstance(entry, dict) and str(entry["source"]).startswith(("prior:", "kolab:"))
    assert params["expertise"] in AREAS
    model = HumanModel.from_params(params)
    assert model.behaviour is not None
    assert model.behaviour.reactions.adopt.source.startswith("kolab:")


def test_a_plain_number_overrides_a_documented_parameter() -> None:
    params = {**load_profile("D").params, "error_in_area": 0.4}
    assert HumanModel.from_params(params).error_in_area == 0.4
    with pytest.raises(HumanConfigError, match="error_outside"):
        HumanModel.from_params({**params, "error_outside": "high"})
    with pytest.raises(HumanConfigError, match="assertiveness"):
        HumanModel.from_params({**params, "assertiveness": 1.5})


def test_expertise_sets_the_error_rate_by_area() -> None:
    d = HumanModel.from_params(load_profile("D").params)
    r = HumanModel.from_params(load_profile("R").params)
    assert d.error_rate("wrong_column_variant") < d.error_rate("wrong_ordinal")
    assert r.error_rate("wrong_ordinal") < r.error_rate("wrong_column_variant")
    assert d.confidence("wrong_year") >= d.approve_threshold > d.confidence("peak_vs_plateau")


def test_own_mistakes_are_drawn_per_session_and_reproducible() -> None:
    model = HumanModel.from_params({**load_profile("D").params,
                                    "error_in_area": 0.5, "error_outside": 0.5})
    draws = [model.draw_mistakes(seed, "D", "archaeology/1/0") for seed in range(40)]
    assert draws == [model.draw_mistakes(seed, "D", "archaeology/1/0") for seed in range(40)]
    assert len(set(draws)) > 5
    assert all(d <= set(HUMAN_MISTAKES) for d in draws)


def test_mistakes_fire_on_the_real_archaeology_queries(archaeology: dict[str, Task]) -> None:
    """Each mistake kind changes the computation of some real archaeology queries (the counts
    are reported in the README Findings)."""
    applies = dict.fromkeys(HUMAN_MISTAKES, 0)
    for task in archaeology.values():
        brief = task.brief()
        plan = resolve_plan(brief, parse_query(brief))
        for kind in HUMAN_MISTAKES:
            applies[kind] += apply_mistakes(plan, {kind}) != plan
    assert len(archaeology) == 38
    assert applies == {"wrong_column_variant": 25, "wrong_ordinal": 8, "peak_vs_plateau": 10,
                       "wrong_window": 6, "misread_query": 20}


def _dr_session(task: Task, structure: str, collaborator: dict[str, Any],
                agent: dict[str, Any]) -> str:
    team = team_from_dict("DR")
    members: dict[str, Any] = {"agent": ScriptedAgent(seed=0, params={**CAREFUL_AGENT, **agent})}
    for profile in team.collaborators:
        members[profile.key] = ScriptedCollaborator(profile, seed=0, params=collaborator)
    # the behavioural model's own effects, without the coordination costs of a team
    config = SessionConfig(task=task, team=team, structure=builtin_structure(structure),
                           coordination=CoordinationSpec.without_costs())
    return run_session_sync(config, members,
                            executor_factory=InProcessExecutor).submitted_hypothesis


def test_a_confidently_wrong_collaborator_moves_a_deferring_agent(
        archaeology: dict[str, Task]) -> None:
    """A collaborator that always misreads objects to the agent's correct draft; an agent
    with deference 1 follows it, one with deference 0 keeps the correct answer."""
    task = archaeology["archaeology/1/0"]  # "increase for the first time": ordinal matters
    wrong = {"error_in_area": 1.0, "error_outside": 1.0, "behaviour": None}
    alone = run_session_sync(SessionConfig(task=task, structure=builtin_structure("single")),
                             {"agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT)},
                             executor_factory=InProcessExecutor).submitted_hypothesis
    follows = _dr_session(task, "default", wrong, {"deference": 1.0})
    keeps = _dr_session(task, "default", wrong, {"deference": 0.0})
    assert keeps == alone
    assert follows != alone


def test_a_collaborator_that_defers_outside_its_area_leaves_the_reading_to_the_agent(
        archaeology: dict[str, Task]) -> None:
    """D misreads the query every time (outside its area) but computes right: voicing every
    disagreement (object_outside 1, the default) it moves a deferring agent off the correct
    answer with its wrong occurrence; deferring outside its area (object_outside 0) it raises
    nothing and the answer stays the agent's own."""
    task = archaeology["archaeology/1/0"]  # "increase for the first time": ordinal matters
    d_only = team_from_dict("D")
    alone = run_session_sync(SessionConfig(task=task, structure=builtin_structure("single")),
                             {"agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT)},
                             executor_factory=InProcessExecutor).submitted_hypothesis

    def with_d(object_outside: float) -> str:
        params = {"error_in_area": 0.0, "error_outside": 1.0, "behaviour": None,
                  "object_outside": object_outside}
        members: dict[str, Any] = {
            "agent": ScriptedAgent(seed=0, params={**CAREFUL_AGENT, "deference": 1.0}),
            "D": ScriptedCollaborator(d_only.collaborators[0], seed=0, params=params)}
        config = SessionConfig(task=task, team=d_only, structure=builtin_structure("default"))
        return run_session_sync(config, members,
                                executor_factory=InProcessExecutor).submitted_hypothesis

    assert with_d(1.0) != alone
    assert with_d(0.0) == alone


def test_silent_adopting_collaborators_change_nothing(archaeology: dict[str, Task]) -> None:
    task = archaeology["archaeology/1/0"]
    mistakes = {"wrong_ordinal": 1.0}
    adopt_all = {"behaviour": {**load_profile("D").params["behaviour"], "reactions": {
        "adopt": {"value": 1.0, "source": "prior:test"},
        "modify": {"value": 0.0, "source": "prior:test"},
        "reject": {"value": 0.0, "source": "prior:test"},
        "concentration": {"value": 1000.0, "source": "prior:test"}}}}
    alone = run_session_sync(SessionConfig(task=task, structure=builtin_structure("single")),
                             {"agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT,
                                                    mistakes=MistakeModel(**mistakes))},
                             executor_factory=InProcessExecutor).submitted_hypothesis
    assert _dr_session(task, "default", adopt_all, {"mistakes": mistakes}) == alone
    careful = {"error_in_area": 0.0, "error_outside": 0.0, "behaviour": None}
    assert _dr_session(task, "default", careful, {"mistakes": mistakes}) != alone


def test_profile_block_without_behaviour_keeps_custom_profiles_working() -> None:
    custom = Profile(key="X", title="x", guidance="check things", params={})
    model = ScriptedCollaborator(custom).human
    assert model.behaviour is None and model.error_rate("wrong_ordinal") == 0.0


def _traced_session(task: Task, structure: str, seed: int, trace: Path) -> None:
    team = team_from_dict("DR")
    members: dict[str, Any] = {"agent": ScriptedAgent(seed=seed, params={**CAREFUL_AGENT,
        "deference": 0.5, "mistakes": {"wrong_ordinal": 0.5, "wrong_column_variant": 0.5}})}
    for profile in team.collaborators:
        members[profile.key] = ScriptedCollaborator(profile, seed=seed)
    config = SessionConfig(task=task, team=team, structure=builtin_structure(structure),
                           seed=seed)
    run_session_sync(config, members, trace, executor_factory=InProcessExecutor)


def test_same_seed_gives_byte_identical_traces_with_the_behavioural_model(
        archaeology: dict[str, Task], tmp_path: Path) -> None:
    task = archaeology["archaeology/27/0"]
    differs = False
    for seed in (0, 1, 2):
        for structure in ("default", "scaffolded"):
            a, b = tmp_path / f"a{seed}{structure}.jsonl", tmp_path / f"b{seed}{structure}.jsonl"
            _traced_session(task, structure, seed, a)
            _traced_session(task, structure, seed, b)
            assert a.read_bytes() == b.read_bytes(), (seed, structure)
            differs |= a.read_bytes() != (tmp_path / f"a0{structure}.jsonl").read_bytes()
    assert differs  # the seed does change what the simulated people do


def test_the_own_check_shifts_each_persons_reaction_by_the_data_given_ratio() -> None:
    model = HumanModel.from_params(load_profile("D").params)
    check = model.behaviour.check
    assert check is not None and check.disagree_adopt.source.startswith("kolab:")
    agree, disagree = [], []
    for seed in range(400):
        base = model.reaction_rates(seed, "D", "t")
        a = model.reaction_rates(seed, "D", "t", disagrees=False)
        d = model.reaction_rates(seed, "D", "t", disagrees=True)
        # the same person (per-person spread kept), shifted: a disagreeing check makes
        # adopting less and rejecting more likely, for every person
        assert d.adopt <= base.adopt <= a.adopt and d.reject >= base.reject >= a.reject
        ratio = check.given(True) / check.reference()
        expected = base.as_array() * ratio / (base.as_array() * ratio).sum()
        assert d.as_array() == pytest.approx(expected)
        agree.append(a.adopt)
        disagree.append(d.adopt)
    # over-reliance (adopting despite a disagreeing check) is frequent, as in the data
    assert 0.35 < np.mean(disagree) < 0.6 < np.mean(agree) < 0.75


def test_the_reaction_to_a_draft_follows_what_the_own_check_found() -> None:
    collab = ScriptedCollaborator(load_profile("D"), seed=0)
    obs = SimpleNamespace(task=SimpleNamespace(task_id="archaeology/0/0"))
    labels = {flag: [ScriptedCollaborator(load_profile("D"), seed=s).reaction(
        obs, "abcd1234", disagrees=flag) for s in range(300)] for flag in (False, True)}
    shares = {f: {k: v.count(k) / 300 for k in ("adopt", "reject")} for f, v in labels.items()}
    assert shares[True]["adopt"] < shares[False]["adopt"] - 0.08
    assert shares[True]["reject"] > shares[False]["reject"] + 0.04
    # one draw per person and draft: whoever adopts a draft it disputes adopts it when it
    # agrees too, and whoever rejects one it agrees with rejects it when it disagrees
    for agree_label, disagree_label in zip(labels[False], labels[True], strict=True):
        assert disagree_label != "adopt" or agree_label == "adopt"
        assert agree_label != "reject" or disagree_label == "reject"
    assert collab.reaction(obs, "abcd1234", disagrees=True) == labels[True][0]


def test_a_nested_behaviour_override_changes_one_value_and_a_bad_one_is_named() -> None:
    # e.g. +team.profiles.D.params.behaviour.reactions.concentration.value=2 on the command line
    team = team_from_dict({"collaborators": [
        {"key": "D", "params": {"behaviour": {"reactions": {"concentration": {"value": 2.0}}}}}]})
    model = HumanModel.from_params(team.collaborators[0].params)
    packaged = HumanModel.from_params(load_profile("D").params).behaviour
    assert model.behaviour.reactions.concentration.value == 2.0
    assert model.behaviour.reactions.adopt == packaged.reactions.adopt  # the rest is kept
    assert model.behaviour.timing == packaged.timing and model.behaviour.check == packaged.check
    off = team_from_dict({"collaborators": [{"key": "D", "params": {"behaviour": None}}]})
    assert HumanModel.from_params(off.collaborators[0].params).behaviour is None
    with pytest.raises(ValueError, match=r"\(D\): behaviour: check\.agree_\* rates"):
        team_from_dict({"collaborators": [{"key": "D", "params": {
            "behaviour": {"check": {"agree_adopt": {"value": 0.9}}}}}]})
