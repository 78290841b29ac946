"""Scripted policies decide from the observation alone; teammates' issues and gates steer them."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from collabsim.core.action_parser import parse_action
from collabsim.core.coordination import CoordinationSpec
from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, CodeCell, GateRequest, MemoryView, Profile
from collabsim.core.tags import draft_fingerprint, found_cells, parse_issues
from collabsim.participants.analysis import COMPUTE_MARK, INSPECT_MARK, MistakeModel
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator, build_scripted
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.model import Task
from tests.helpers.executors import run_cell
from tests.helpers.participants import CAREFUL_AGENT

D = Profile("D", "data analysis", "check numbers", {"recompute_claims": True})
R = Profile("R", "researcher", "check wording", {"check_wording": True})


def _action(text: str) -> tuple[str, dict[str, str]]:
    parsed = parse_action(text)
    assert parsed.action is not None, parsed.error
    return parsed.action.name, dict(parsed.action.args)


@pytest.fixture(scope="module")
def tasks(generated_200: Path) -> dict[str, Task]:
    """The first generated task of every reference category (all nine occur by task 60)."""
    out: dict[str, Task] = {}
    for t in load_tasks(generated_200).tasks[:60]:
        out.setdefault(json.loads(t.reference_workflow_path.read_text())["category"], t)
    return out


def _obs(task: Task, me: str = "agent", **kw: object) -> Observation:
    base = Observation(
        me=me, role="agent" if me == "agent" else "collaborator",
        profile={"D": D, "R": R}.get(me), teammates=tuple(m for m in ("agent", "D", "R")
                                                          if m != me),
        time=100.0, structure="default", phase="work", task=task.brief(),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def _play_agent(agent: ScriptedAgent, task: Task, obs: Observation) -> Observation:
    """Apply the agent's code actions (and its message sharing what they found) to the
    observation until it wants something else."""
    cwd = task.datasets[0].path.parent
    for _ in range(5):
        name, args = _action(agent.decide(obs))
        if name == "SEND_TEAMMATE_MESSAGE" and found_cells(args["message"]):
            shared = ChatMessage(len(obs.chat) + 100, obs.time, obs.me, args["message"])
            obs = replace(obs, chat=(*obs.chat, shared), turn=obs.turn + 1)
            continue
        if name != "EXECUTE_CODE":
            return obs
        cell = CodeCell(len(obs.code_cells) + 1, obs.time, obs.me, args["code"],
                        run_cell(args["code"], cwd), True)
        obs = replace(obs, code_cells=(*obs.code_cells, cell), turn=obs.turn + 1)
    return obs


def test_agent_runs_cells_then_drafts_then_finishes_alone(tasks: dict[str, Task]) -> None:
    task = tasks["nth_rise"]
    agent = ScriptedAgent(seed=0, params=CAREFUL_AGENT)
    obs = _obs(task, teammates=())
    name, args = _action(asyncio.run(agent.act(obs)))
    assert name == "EXECUTE_CODE" and args["code"].startswith(INSPECT_MARK)
    obs = _play_agent(agent, task, obs)
    assert [c.code.splitlines()[0] for c in obs.code_cells] == [INSPECT_MARK, COMPUTE_MARK]
    assert "RESULT relation=rise" in obs.code_cells[-1].output
    name, args = _action(agent.decide(obs))
    completion = json.loads(task.reference_workflow_path.read_text())["completion"]
    nth = {2: "second", 3: "third"}[completion["ordinal"]]
    assert name == "EDITOR_UPDATE"
    assert args["text"].startswith(f"Around {-completion['years'][0]} BCE")
    assert f"for the {nth} time" in args["text"]
    assert _action(agent.decide(replace(obs, editor_text=args["text"])))[0] == "FINISH"


def test_decisions_depend_only_on_observation_and_seed(tasks: dict[str, Task]) -> None:
    task = tasks["peak"]
    obs = _play_agent(ScriptedAgent(seed=5, params=CAREFUL_AGENT), task, _obs(task))
    a, b = ScriptedAgent(seed=5, params=CAREFUL_AGENT), ScriptedAgent(seed=5, params=CAREFUL_AGENT)
    b.decide(_obs(tasks["plateau"]))  # other history in the cache must not matter
    assert a.decide(obs) == b.decide(obs)
    d1, d2 = ScriptedCollaborator(D, seed=1), ScriptedCollaborator(D, seed=1)
    assert d1.decide(_obs(task, "D")) == d2.decide(_obs(task, "D"))


def _with_column_issue(task: Task, agent: ScriptedAgent, **kw: object) -> Observation:
    obs = _play_agent(agent, task, _obs(task, **kw))
    inter = agent.context(task.brief()).plan.columns[0]
    text = ("You used the raw column. [issue kind=wrong_column_variant "
            f"fix=column:{inter}] [check draft=00000000]")
    return replace(obs, chat=(*obs.chat, ChatMessage(50, 90.0, "D", text)))


def test_ignore_teammate_in_default_but_gates_bind(tasks: dict[str, Task]) -> None:
    task = tasks["peak"]
    forced = {"wrong_column_variant": 1.0}
    listener = ScriptedAgent(seed=0, params=CAREFUL_AGENT, mistakes=MistakeModel(**forced))
    obs = _with_column_issue(task, listener)
    plan, applied, ignored = listener.current_plan(obs)
    assert plan == listener.context(task.brief()).plan and applied == ["wrong_column_variant"]
    name, args = _action(listener.decide(obs))
    assert name == "EXECUTE_CODE" and plan.columns[0] in args["code"]

    stubborn = ScriptedAgent(seed=0, params=CAREFUL_AGENT,
                             mistakes=MistakeModel(ignore_teammate=1.0, **forced))
    obs = _with_column_issue(task, stubborn)
    plan, applied, ignored = stubborn.current_plan(obs)
    assert plan == stubborn.context(task.brief()).mistaken_plan and ignored
    assert _action(stubborn.decide(obs))[0] == "EDITOR_UPDATE"

    gated = _with_column_issue(task, stubborn, gates={"FINISH": "D"})
    plan, applied, _ = stubborn.current_plan(gated)
    assert plan == stubborn.context(task.brief()).plan and applied


def test_r_flags_ordinal_and_relation_mismatch_in_chat(tasks: dict[str, Task]) -> None:
    task = tasks["nth_fall"]
    r = ScriptedCollaborator(R, seed=0)
    draft = "Around 2000 BCE, amber began to increase for the first time."
    name, args = _action(r.decide(_obs(task, "R", editor_text=draft)))
    assert name == "SEND_TEAMMATE_MESSAGE"
    kinds = {k for k, _ in parse_issues(args["message"])}
    assert {"wrong_ordinal", "wrong_relation"} <= kinds
    assert draft_fingerprint(draft) in args["message"]
    chat = (ChatMessage(9, 100.0, "R", args["message"]),)
    assert _action(r.decide(_obs(task, "R", editor_text=draft, chat=chat)))[0] == \
        "WAIT_TEAMMATE_CONTINUE"


def test_d_recomputes_then_flags_a_wrong_year(tasks: dict[str, Task]) -> None:
    task = tasks["first_rise"]
    d = ScriptedCollaborator(D, seed=0)
    obs = _obs(task, "D", editor_text="Around 4900 BCE, daggers began to increase for the "
                                      "first time.")
    name, args = _action(d.decide(obs))
    assert name == "EXECUTE_CODE" and args["code"].startswith(COMPUTE_MARK)
    output = run_cell(args["code"], task.datasets[0].path.parent)
    year = json.loads(task.reference_workflow_path.read_text())["completion"]["years"][0]
    assert f"year={year}" in output
    obs = replace(obs, code_cells=(CodeCell(3, 50.0, "D", args["code"], output, True),))
    name, args = _action(d.decide(obs))
    assert name == "SEND_TEAMMATE_MESSAGE"
    assert "wrong_year" in {k for k, _ in parse_issues(args["message"])}
    assert f"{-year} BCE" in args["message"]
    # a pending FINISH by the agent on that draft is rejected with the reason
    request = GateRequest("g1", 12, 99.0, "agent", "D", "FINISH", {})
    chat = (ChatMessage(13, 100.0, "D", args["message"]),)
    name, args = _action(d.decide(replace(obs, chat=chat, pending_for_me=(request,))))
    assert name == "REJECT" and args["request_id"] == "g1" and "BCE" in args["reason"]
    good = f"Around {-year} BCE, daggers began to increase for the first time."
    name, args = _action(d.decide(replace(obs, editor_text=good, pending_for_me=(request,))))
    assert (name, args["request_id"]) == ("APPROVE", "g1")


def test_build_phase_memory_and_gates(tasks: dict[str, Task]) -> None:
    task = tasks["peak"]
    sections = {s: () for s in ("expertise", "trust", "plan", "evidence_criteria", "gates")}
    agent = ScriptedAgent(seed=0, params=CAREFUL_AGENT)
    memory = MemoryView(sections=sections)
    added: dict[str, list[str]] = {s: [] for s in sections}
    fixed = CoordinationSpec(chosen_owners=False)  # the agent's configured proposal
    for _ in range(10):
        obs = _obs(task, phase="build", structure="scaffolded", memory=memory,
                   coordination=fixed)
        name, args = _action(agent.decide(obs))
        if name != "MEMORY_ADD":
            break
        added[args["section"]].append(args["text"])
        memory = MemoryView(sections={s: tuple(v) for s, v in added.items()})
    assert name == "MEMORY_AGREE"
    assert added["gates"] == ["EDITOR_UPDATE: R", "FINISH: D"]
    assert added["plan"] and added["evidence_criteria"] and added["expertise"]
    done = MemoryView(sections=memory.sections, agreed=("agent",))
    assert _action(agent.decide(_obs(task, phase="build", memory=done)))[0] == \
        "WAIT_TEAMMATE_CONTINUE"
    collaborator = build_scripted("R", "collaborator", R, seed=0)
    name, args = _action(collaborator.decide(_obs(task, "R", phase="build", memory=memory)))
    assert name == "MEMORY_ADD" and "R" in args["text"]
