"""``policy=llm`` with the offline ``collabsim/scripted`` provider acts exactly like
``policy=scripted`` (same seed, mistake and behavioural models on), session by session: on
real archaeology tasks under the published ``everyone`` split and under ``by_profile``
(where each member sees only the facts and domain knowledge it holds), on the generated
suite under ``by_profile``, and on tasks with facts run directly through the engine."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from collabsim.cli.run_app import compose_config
from collabsim.core.knowledge import BY_PROFILE, Fact
from collabsim.experiment.job import run
from collabsim.llm import LLMClient, LLMSettings, call_log_path_for
from collabsim.llm.calllog import read_call_log
from collabsim.participants.llm_policy import build_llm_participants
from collabsim.participants.scripted import build_scripted
from collabsim.participants.state_block import decode_state
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite

# 24/0 is an open ("describe") question
TASKS = "[archaeology/1/0,archaeology/13/0,archaeology/24/0,archaeology/27/0,archaeology/31/0]"


def _actions(store: Path) -> dict[str, list[tuple[object, ...]]]:
    out = {}
    for trace in sorted(store.rglob("trace.jsonl")):
        out[trace.parent.name.rsplit("__", 1)[0]] = _trace_rows(trace)
    return out


def _trace_rows(trace: Path) -> list[tuple[object, ...]]:
    rows = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    return [(r.get("actor"), r.get("action_type"), r.get("status"),
             json.dumps(r.get("args"), sort_keys=True), r.get("t_start"), r.get("t_end"))
            for r in rows]


def _compare_jobs(tmp_path: Path, common: list[str], n_sessions: int) -> dict[str, list]:
    tables = {}
    for name in ("scripted", "llm"):
        cfg = compose_config([*common, f"llm.cache_dir={tmp_path / 'llm'}", "run.progress=false",
                              "run.show_sessions=false", f"policy={name}",
                              f"run.store={tmp_path / name}"])
        tables[name] = run(cfg, tmp_path / f"out-{name}").sessions
    keys = ["task_id", "team", "structure", "seed"]
    scripted = tables["scripted"].sort_values(keys).reset_index(drop=True)
    llm = tables["llm"].sort_values(keys).reset_index(drop=True)
    assert len(scripted) == n_sessions
    for column in (*keys, "status", "turns", "hypothesis", "Performance"):
        assert list(llm[column]) == list(scripted[column]), column
    a, b = _actions(tmp_path / "scripted"), _actions(tmp_path / "llm")
    assert a.keys() == b.keys() and len(a) == len(scripted)
    for session in a:
        assert a[session] == b[session], session
    return a


@pytest.mark.parametrize("knowledge", ["everyone", "by_profile"])
def test_llm_scripted_provider_equals_scripted_session_by_session(
        tmp_path: Path, discoverybench_root: Path, knowledge: str) -> None:
    a = _compare_jobs(tmp_path, [
        "tasks=discoverybench",
        f"tasks.root={discoverybench_root}",
        f"tasks.ids={TASKS}",
        f"tasks.knowledge={knowledge}",
        "team=DR",
        "structure=default_and_scaffolded",
        "seeds=[0,1]",
    ], 5 * 2 * 2)
    # the collaborators did something: some session has a collaborator's chat message
    assert any(row[0] in ("D", "R") and row[1] == "SEND_TEAMMATE_MESSAGE"
               for rows in a.values() for row in rows)


def test_llm_scripted_provider_equals_scripted_on_the_generated_suite_by_profile(
        tmp_path: Path) -> None:
    """The generated suite is where tasks carry facts (suite v2): the same world under
    both policies with the facts withheld from the agent."""
    a = _compare_jobs(tmp_path, [
        "tasks=generated",
        f"tasks.root={tmp_path / 'suite'}",
        "tasks.n_tasks=4",
        "tasks.knowledge=by_profile",
        "team=DR",
        "structure=default_and_scaffolded",
        "seeds=[0]",
        # the agent asks about every open topic, so asking and answering are compared too
        "policy.agent.ask_propensity.value=1.0",
    ], 4 * 2)
    messages = [row[3] for rows in a.values() for row in rows
                if row[1] == "SEND_TEAMMATE_MESSAGE"]
    assert any("[ask topic=" in m for m in messages)
    assert any("[fact topic=" in m for m in messages)


PARAMS = {"agent": {"mistakes": {"wrong_ordinal": 0.5, "ignore_teammate": 0.3}},
          "collaborator": {}}


@pytest.mark.slow
def test_offline_provider_equals_scripted_on_tasks_with_facts_by_profile(tmp_path: Path) -> None:
    """Tasks with a reading fact (held by R) and a data convention (held by D): the offline
    provider rebuilds each member's scripted policy from its prompt's state block, which
    carries exactly that member's facts, and the sessions are event-for-event equal."""
    generated = load_tasks(generate_suite(tmp_path / "suite", n_tasks=2, seed=3)).tasks
    team = team_from_dict("DR")
    offline = LLMSettings(model="collabsim/scripted")
    for i, base in enumerate(generated):
        column = base.datasets[0].columns[-1].name
        reading = Fact("reading", "ordinal", f"Here 'the rise' means the second rise ({i}).",
                       (("ordinal", "2"),))
        convention = Fact("convention", "column", f"Only {column} is valid at this site.",
                          (("column", column),))
        task = replace(base, facts=(reading, convention))
        for structure in ("default", "scaffolded"):
            cfg = SessionConfig(task=task, team=team, structure=builtin_structure(structure),
                                seed=1, max_turns=80, knowledge=BY_PROFILE)
            scripted = {n: build_scripted(n, team.role(n), team.profile(n), seed=1,
                                          params=PARAMS[team.role(n)]) for n in team.members}
            want = asyncio.run(run_session(cfg, scripted, tmp_path / f"s{i}{structure}.jsonl"))
            trace = tmp_path / f"llm{i}{structure}" / "trace.jsonl"
            client = LLMClient().for_session(call_log_path=call_log_path_for(trace))
            llm = build_llm_participants(team, {"agent": offline, "collaborator": offline},
                                         client, 1, scripted_params=PARAMS)
            got = asyncio.run(run_session(cfg, llm, trace))
            assert (got.status, got.submitted_hypothesis, got.counts) == (
                want.status, want.submitted_hypothesis, want.counts)
            assert _trace_rows(trace) == _trace_rows(tmp_path / f"s{i}{structure}.jsonl")
            # what the offline provider read back: each member's own facts, nobody else's
            held = {"agent": (), "D": (convention,), "R": (reading,)}
            read_back = [(c["tag"], decode_state(c["messages"])[0].task)
                         for c in read_call_log(call_log_path_for(trace))]
            assert {tag: {brief.facts for t, brief in read_back if t == tag}
                    for tag, _ in read_back} == {tag: {facts} for tag, facts in held.items()}
            assert {brief.knowledge for _, brief in read_back} == {"by_profile"}
