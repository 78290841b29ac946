"""Issue 37 ("LLM teams you can trust"), whole sessions against the stand-in model server.

Each test drives real sessions or jobs of ``policy=llm`` through litellm to the loopback
stand-in server (:mod:`helpers.model_server`), which answers the way chat models do, and names
the issue point it checks in its docstring. Both seats are covered: the agent (team single)
and a collaborator (team DR, structures default and scaffolded).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import model_server as ms

from collabsim.cli.run_app import compose_config, main_with_args
from collabsim.core.errors import LOOP, PROVIDER_ERROR
from collabsim.experiment.job import run
from collabsim.llm import LLMClient, LLMSettings, call_log_path_for
from collabsim.llm.calllog import read_call_log
from collabsim.participants.llm_policy import build_llm_participants
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session
from collabsim.session.results import SessionResult
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite
from collabsim.tasks.model import Task

MODEL = "openai/stand-in"
# (team, structure, the member whose replies a test scripts): both seats
SEATS = [("single", "single", "agent"), ("DR", "default", "D"), ("DR", "scaffolded", "R")]


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> Task:
    root = generate_suite(tmp_path_factory.mktemp("suite"), n_tasks=1, seed=0)
    return load_tasks(root).tasks[0]


def for_member(name: str, script: ms.Script, rest: ms.Script | None = None) -> ms.Script:
    """``script`` for one member's requests (its own request count), ``rest`` for the others."""
    others = rest or ms.session_script()
    seen = {"n": 0}

    def answer(request: Mapping[str, Any], index: int) -> ms.Reply:
        if ms.member(request) != name:
            return others(request, index)
        seen["n"] += 1
        return script(request, seen["n"] - 1)

    return answer


def session(
    server: ms.StandInServer, task: Task, tmp_path: Path, *, team: str = "single",
    structure: str = "single", max_turns: int = 6, seed: int = 0, **settings: Any,
) -> tuple[SessionResult, list[dict[str, Any]]]:
    """Run one ``policy=llm`` session against ``server``; return its result and trace events."""
    spec = team_from_dict(team)
    settings.setdefault("max_retries", 0)
    llm = LLMSettings(model=MODEL, extra={"api_base": server.url}, **settings)
    trace = tmp_path / "trace.jsonl"
    client = LLMClient().for_session(call_log_path=call_log_path_for(trace))
    participants = build_llm_participants(spec, {"agent": llm, "collaborator": llm}, client, seed)
    cfg = SessionConfig(task=task, team=spec, structure=builtin_structure(structure), seed=seed,
                        max_turns=max_turns)
    result = asyncio.run(run_session(cfg, participants, trace))
    client.close()
    return result, [json.loads(line) for line in trace.read_text().splitlines()]


def requests_of(server: ms.StandInServer, name: str) -> list[ms.RecordedRequest]:
    return [r for r in server.requests if r.member == name]


# ------------------------------------------------------------------------------- point 1


@pytest.mark.parametrize(("team", "structure", "name"), SEATS)
def test_an_unknown_action_is_invalid_and_repaired_never_the_finish_in_the_thought(
    model_server, task: Task, tmp_path: Path, team: str, structure: str, name: str
) -> None:
    """Issue 37, point 1: ``THOUGHT: ... I will call FINISH() ... ACTION: SUBMIT(...)`` is an
    INVALID event quoting the parse error after one repair call, never a FINISH."""
    # the answers differ per turn: a model trying again, not a loop
    trap = for_member(name, lambda request, i: ms.unknown_action(f"The peak is in {1850 + i}"))
    server = model_server(trap)
    result, events = session(server, task, tmp_path, team=team, structure=structure,
                             max_turns=3 if team == "single" else 12)
    mine = [e for e in events if e["actor"] == name]
    assert not [e for e in mine if e["action_type"] == "FINISH"], "FINISH taken from the THOUGHT"
    invalid = [e for e in mine if e["action_type"] == "INVALID"]
    assert invalid and all(e["status"] == "error" for e in invalid)
    # the parse error names what is wrong (not a refusal of a FINISH found in the prose)
    assert all(re.search(r"SUBMIT|unknown action", e["observation"], re.IGNORECASE)
               for e in invalid), invalid[0]["observation"]
    asked = requests_of(server, name)
    # each turn: the prompt, then one repair quoting the error (2 requests for that turn)
    assert [r.is_repair for r in asked[:2]] == [False, True]
    assert "SUBMIT" in asked[1].messages[-1]["content"]
    assert len(asked) == 2 * len(invalid)
    if team == "single":
        assert result.status == "max_turns" and not result.submitted_hypothesis


@pytest.mark.parametrize(("team", "structure", "name"), SEATS[:2])
def test_two_action_lines_are_invalid_not_the_last_action(
    model_server, task: Task, tmp_path: Path, team: str, structure: str, name: str
) -> None:
    """Issue 37, point 1: with two ``ACTION:`` lines neither runs (no "last one wins")."""
    def doubled(request: Mapping[str, Any], index: int) -> ms.Reply:
        first = ms.action("SEND_TEAMMATE_MESSAGE", message=f"a first action, try {index}")
        return ms.two_actions(first, "FINISH()")

    server = model_server(for_member(name, doubled))
    result, events = session(server, task, tmp_path, team=team, structure=structure,
                             max_turns=2 if team == "single" else 8)
    mine = [e["action_type"] for e in events if e["actor"] == name]
    assert "INVALID" in mine
    assert "FINISH" not in mine and "SEND_TEAMMATE_MESSAGE" not in mine
    assert requests_of(server, name)[1].is_repair
    if team == "single":
        assert result.status == "max_turns"


# ------------------------------------------------------------------------------- point 2


def job_args(server: ms.StandInServer, tmp_path: Path, *more: str) -> list[str]:
    return [
        "tasks.n_tasks=3", f"tasks.root={tmp_path / 'suite'}", "team=single", "seeds=[0]",
        "policy=llm", *ms.llm_overrides(server), "llm.max_retries=0",
        f"llm.cache_dir={tmp_path / 'cache'}", "run.max_concurrency=1", "run.max_turns=6",
        "run.progress=false", *more,
    ]


def test_a_server_dying_mid_run_gives_provider_errors_left_out_and_rerun_on_resume(
    model_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37, point 2: when the server dies after the first session, the other sessions end
    ``provider_error``, are in no aggregate, the run says so in its summary and exit code, and a
    resume after a restart runs exactly those sessions."""
    answer = ms.session_script()
    # the first session takes 3 calls (EXECUTE_CODE, EDITOR_UPDATE, FINISH); then it dies
    server = model_server(lambda request, i: ms.dead() if i == 3 else answer(request, i))
    job = tmp_path / "job"
    code = main_with_args(job_args(server, tmp_path, f"hydra.run.dir={job}"))
    summary = capsys.readouterr().out.strip().splitlines()[-1]

    sessions = pd.read_csv(job / "sessions.csv")
    statuses = sorted(sessions["status"])
    assert statuses == ["finished", PROVIDER_ERROR, PROVIDER_ERROR], statuses
    failed = sessions[sessions["status"] == PROVIDER_ERROR]
    assert failed["Performance"].map(math.isnan).all()
    aggregate = pd.read_csv(job / "aggregate.csv")
    assert list(aggregate["n_sessions"]) == [1]
    assert aggregate["Performance_mean"].iloc[0] == sessions.loc[
        sessions["status"] == "finished", "Performance"].iloc[0]
    assert PROVIDER_ERROR in (job / "report.txt").read_text()
    assert code != 0
    assert PROVIDER_ERROR in summary and "2" in summary, summary

    served = {r.prompt.split("Question: ", 1)[1].split("\n", 1)[0] for r in server.of_life(0)}
    assert len(served) == 2  # the finished session's and the first failed one's question
    server.restart()
    code = main_with_args(job_args(server, tmp_path, f"run.store={job}",
                                   f"hydra.run.dir={tmp_path / 'resume'}"))
    resumed = capsys.readouterr().out.strip().splitlines()[-1]
    assert code == 0
    assert resumed.startswith("2 sessions run, 1 reused from the store"), resumed
    again = {r.prompt.split("Question: ", 1)[1].split("\n", 1)[0] for r in server.of_life(1)}
    finished_query = next(iter(served - again))
    assert len(again) == 2 and finished_query not in again
    assert len(server.of_life(1)) == 6  # 3 calls for each failed session, nothing more
    table = pd.read_csv(tmp_path / "resume" / "sessions.csv")
    assert sorted(table["status"]) == ["finished"] * 3


@pytest.mark.parametrize(("team", "structure"), [("single", "single"), ("DR", "default")])
def test_an_authentication_error_is_a_provider_error_without_retries(
    model_server, task: Task, tmp_path: Path, team: str, structure: str
) -> None:
    """Issue 37, point 2: a rejected key (401) is not retried and ends the session as
    ``provider_error`` (never scored), whichever seat's call it is."""
    server = model_server(ms.always(ms.unauthorized()))
    result, events = session(server, task, tmp_path, team=team, structure=structure,
                             max_retries=3)
    assert len(server.requests) == 1
    assert result.status == PROVIDER_ERROR
    assert events[-1]["action_type"] == "SESSION_END"
    assert events[-1]["args"]["status"] == PROVIDER_ERROR


# ------------------------------------------------------------------------------- point 3


def seeds_cfg(server: ms.StandInServer, tmp_path: Path, store: str) -> dict[str, Any]:
    return compose_config([
        "tasks.n_tasks=1", f"tasks.root={tmp_path / 'suite'}", "team.compositions=[single,DR]",
        "structure=default", "seeds=[0,1,2]", "policy=llm", *ms.llm_overrides(server),
        "llm.max_retries=0", f"llm.cache_dir={tmp_path / 'cache'}", "run.max_concurrency=8",
        "run.max_turns=10", f"run.store={tmp_path / store}", "run.progress=false",
    ])


def traces(store: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in sorted(store.glob("sessions/*/trace.jsonl"))}


def test_seeds_are_independent_samples_and_a_cached_rerun_at_concurrency_8_is_identical(
    model_server, tmp_path: Path
) -> None:
    """Issue 37, point 3: seeds of one configuration make distinct first calls (no reply reused
    across seeds), and a rerun from the cache at ``run.max_concurrency=8`` is byte-identical
    with no request to the server."""
    # a sampling model: equal prompts get different replies (the cell prints the request index)
    server = model_server(ms.session_script(sampled=True))
    first = run(seeds_cfg(server, tmp_path, "store1"), tmp_path / "out1")
    assert len(first.sessions) == 6 and set(first.sessions["status"]) == {"finished"}
    for name in ("agent", "D", "R"):
        opening = [r for r in requests_of(server, name) if re.search(r"This is your turn 1\b", r.prompt)
                   and not r.is_repair]
        bodies = {json.dumps(r.body, sort_keys=True) for r in opening}
        seeds = 3 if name != "agent" else 6  # the agent sits in both team compositions
        assert len(opening) == seeds and len(bodies) == seeds, name
    logs = list((tmp_path / "store1").glob("sessions/*/*llm_calls.jsonl"))
    assert len(logs) == 6
    assert not [c for log in logs for c in read_call_log(log) if c["cached"]]

    before = len(server.requests)
    second = run(seeds_cfg(server, tmp_path, "store2"), tmp_path / "out2")
    assert (second.summary.ran, second.summary.reused) == (6, 0)
    assert len(server.requests) == before, "a fully cached rerun called the server"
    one, two = traces(tmp_path / "store1"), traces(tmp_path / "store2")
    assert one.keys() == two.keys() and len(one) == 6
    assert [k for k in one if one[k] != two[k]] == []


# ------------------------------------------------------------------------------- point 4


@pytest.mark.parametrize("model", ["deepseek/deepseek-chat", "hosted_vllm/stand-in"])
def test_retry_after_is_honoured_for_every_provider(model_server, model: str) -> None:
    """Issue 37, point 4: a 429 with ``Retry-After: 7`` makes the client wait at least 7 s,
    also for ``deepseek/`` and ``hosted_vllm/`` (headers in ``litellm_response_headers``)."""
    server = model_server(ms.sequence(ms.rate_limited(7), ms.well_formed("FINISH()")))
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    client = LLMClient(sleep=sleep)
    settings = LLMSettings(model=model, max_retries=2, extra={"api_base": server.url})
    reply = asyncio.run(client.complete([{"role": "user", "content": "go"}], settings))
    assert reply.text.endswith("FINISH()") and len(server.requests) == 2
    assert len(delays) == 1 and delays[0] >= 7.0, delays


# ------------------------------------------------------------------------------- point 5


@pytest.mark.parametrize(("team", "structure", "name"), SEATS[:2])
def test_a_reply_cut_at_max_tokens_is_repaired_never_executed(
    model_server, task: Task, tmp_path: Path, team: str, structure: str, name: str
) -> None:
    """Issue 37, point 5: a reply cut at ``max_tokens`` (``finish_reason="length"``) is never
    executed; the turn is a repair."""
    whole = ms.well_formed(ms.action("EXECUTE_CODE", code=ms.STAND_IN_CODE))
    script = ms.sequence(ms.cut_at_max_tokens(), whole, then=ms.session_script())
    server = model_server(for_member(name, script))
    _, events = session(server, task, tmp_path, team=team, structure=structure, max_turns=4)
    cells = [e["args"].get("code") for e in events if e["action_type"] == "EXECUTE_CODE"]
    assert ms.CUT_CODE not in cells, "the cut cell was executed"
    assert ms.STAND_IN_CODE in cells
    asked = requests_of(server, name)
    assert [r.is_repair for r in asked[:2]] == [False, True]


# ------------------------------------------------------------------------------- point 8


def single_job(server: ms.StandInServer, tmp_path: Path, max_turns: int) -> list[str]:
    """One session of team single (as ``collabsim run`` arguments)."""
    args = job_args(server, tmp_path, f"hydra.run.dir={tmp_path / 'job'}")
    return [*(a for a in args if not a.startswith(("tasks.n_tasks", "run.max_turns"))),
            "tasks.n_tasks=1", f"run.max_turns={max_turns}"]


def test_a_loop_ends_the_session_as_loop_and_is_scored(model_server, tmp_path: Path) -> None:
    """Issue 37, point 8: the same action again and again ends the session with status
    ``loop``, before ``run.max_turns``; a loop is the model's behaviour, so it is scored."""
    same = ms.well_formed(ms.action("EXECUTE_CODE", code='print("again")'))
    server = model_server(ms.always(same))
    main_with_args(single_job(server, tmp_path, max_turns=20))
    sessions = pd.read_csv(tmp_path / "job" / "sessions.csv")
    assert list(sessions["status"]) == [LOOP]
    assert not math.isnan(sessions["Performance"].iloc[0])
    assert len(server.requests) < 20


def test_litellm_prints_no_line_per_call(
    model_server, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 37, point 8: litellm's own INFO lines (two per call) are silenced."""
    server = model_server(ms.session_script())
    capfd.readouterr()
    assert main_with_args(single_job(server, tmp_path, max_turns=6)) == 0
    out, err = capfd.readouterr()
    assert len(server.requests) == 3
    chatter = [line for line in (out + err).splitlines()
               if re.search(r"LiteLLM.*INFO|INFO.*LiteLLM|LiteLLM completion\(\)", line)]
    assert chatter == []


def test_json_style_replies_are_accepted_without_a_repair_call(
    model_server, task: Task, tmp_path: Path
) -> None:
    """Issue 37, point 8: ``{"action": ..., "args": ...}`` replies are actions, not a repair."""
    server = model_server(ms.sequence(
        ms.json_in_text("EDITOR_UPDATE", {"text": ms.STAND_IN_HYPOTHESIS}),
        ms.json_in_text("FINISH")))
    result, _ = session(server, task, tmp_path, max_turns=4)
    assert result.status == "finished"
    assert result.submitted_hypothesis == ms.STAND_IN_HYPOTHESIS
    assert len(server.requests) == 2 and not any(r.is_repair for r in server.requests)


# ------------------------------------------------------------------------------- point 9


def test_the_agent_sees_each_code_cell_once(model_server, task: Task, tmp_path: Path) -> None:
    """Issue 37, point 9: a code cell appears once in the agent's prompt, not again in the
    action history."""
    server = model_server(ms.session_script())
    result, _ = session(server, task, tmp_path, max_turns=9)
    assert result.status == "finished"
    last = requests_of(server, "agent")[-1]
    assert "stand-in cell" in last.prompt and last.prompt.count(ms.STAND_IN_CODE) == 1


def test_the_agent_sees_its_turn_budget(model_server, task: Task, tmp_path: Path) -> None:
    """Issue 37, point 9: the agent's prompt states its turn budget (``max_turns``)."""
    server = model_server(ms.always(ms.well_formed(ms.action("WAIT_TEAMMATE_CONTINUE"))))
    session(server, task, tmp_path, max_turns=9)
    first = requests_of(server, "agent")[0]
    assert re.search(r"turn[^\n]*\b9\b", first.prompt, re.IGNORECASE), "no turn budget shown"


def test_the_team_history_in_the_agents_prompt_is_in_time_order(
    model_server, task: Task, tmp_path: Path
) -> None:
    """Issue 37, point 9: the action history the agent sees is in time order, also while its
    collaborators work in parallel (their actions land after they start)."""

    def collaborator(request: Mapping[str, Any], index: int) -> ms.Reply:
        if index % 3 == 0:
            return ms.well_formed(ms.action("SEND_TEAMMATE_MESSAGE", message=f"note {index}"))
        return ms.well_formed(ms.action("EXECUTE_CODE", code=f'print("check {index}")'))

    def agent(request: Mapping[str, Any], index: int) -> ms.Reply:
        return ms.well_formed(ms.action("EXECUTE_CODE", code=f'print("step {index}")'))

    server = model_server(ms.session_script(agent=agent, collaborator=collaborator))
    session(server, task, tmp_path, team="DR", structure="default", max_turns=10)
    shown = []
    for request in requests_of(server, "agent"):
        history = request.prompt.split("## Team action history", 1)[1].split("\n## ", 1)[0]
        shown.append([float(t) for t in re.findall(r"\[t=(\d+(?:\.\d+)?)s\]", history)])
    assert max(len(times) for times in shown) >= 8
    assert [times for times in shown if times != sorted(times)] == []


def test_the_collaborators_calibrated_behaviour_reaches_its_prompt(
    model_server, task: Task, tmp_path: Path
) -> None:
    """Issue 37, point 9: the fitted behaviour of a simulated human (message propensity,
    assertiveness, error rates) is in its prompts: two D's differing only in it get
    different prompts."""
    import dataclasses

    spec = team_from_dict("D")
    quiet = dataclasses.replace(spec.profile("D"), params={
        **dict(spec.profile("D").params),
        "message_propensity": {"value": 0.02}, "assertiveness": {"value": 0.95},
        "error_in_area": {"value": 0.45}})
    prompts = []
    for profile in (spec.profile("D"), quiet):
        server = model_server(ms.session_script())
        team = dataclasses.replace(spec, collaborators=(profile,))
        llm = LLMSettings(model=MODEL, max_retries=0, extra={"api_base": server.url})
        participants = build_llm_participants(team, {"agent": llm, "collaborator": llm},
                                              LLMClient().for_session(), 0)
        cfg = SessionConfig(task=task, team=team, structure=builtin_structure("default"),
                            seed=0, max_turns=2)
        asyncio.run(run_session(cfg, participants, tmp_path / f"{len(prompts)}.jsonl"))
        prompts.append(["\n".join(str(m["content"]) for m in r.messages)
                        for r in requests_of(server, "D")][0])
    assert prompts[0] != prompts[1]


# ------------------------------------------------------------------------------- point 6


def test_a_session_stays_inside_the_models_context_window(
    model_server, task: Task, tmp_path: Path
) -> None:
    """Issue 37, point 6: with ``context_tokens`` set, the prompts of a long session are kept
    inside the window (history trimmed) instead of the provider refusing them."""
    window = 3500

    def agent(request: Mapping[str, Any], index: int) -> ms.Reply:
        code = f'print("\\n".join(f"{index} {{i}} {{i * i}} {{i ** 0.5:.6f}}" for i in range(120)))'
        return ms.well_formed(ms.action("EXECUTE_CODE", code=code))

    def model(request: Mapping[str, Any], index: int) -> ms.Reply:
        sent = sum(len(str(m.get("content") or "")) for m in request["messages"]) // 4
        return ms.context_overflow(window) if sent > window else agent(request, index)

    server = model_server(model)
    result, events = session(server, task, tmp_path, max_turns=8, context_tokens=window,
                             max_tokens=256)
    assert result.status == "max_turns", result.error
    assert sum(e["action_type"] == "EXECUTE_CODE" for e in events) == 8


# ------------------------------------------------------------------------------- point 7


def test_sessions_csv_has_the_tokens_and_dollars_of_each_session(
    model_server, tmp_path: Path
) -> None:
    """Issue 37, point 7: tokens and dollars per session are in ``sessions.csv`` (a priced
    model: ``deepseek/deepseek-chat``), equal to the session's call log."""
    server = model_server(ms.session_script())
    args = [a for a in single_job(server, tmp_path, max_turns=6)
            if not a.startswith(("llm.agent.model", "llm.collaborator.model"))]
    assert main_with_args([*args, "llm.agent.model=deepseek/deepseek-chat",
                           "llm.collaborator.model=deepseek/deepseek-chat"]) == 0
    sessions = pd.read_csv(tmp_path / "job" / "sessions.csv")
    (log,) = (tmp_path / "job").glob("sessions/*/*llm_calls.jsonl")
    calls = read_call_log(log)
    usd = sum(c["cost_usd"] for c in calls)
    tokens = sum(c["prompt_tokens"] + c["completion_tokens"] for c in calls)
    assert len(calls) == 3 and usd > 0
    usd_columns = [c for c in sessions if "usd" in c.lower()]
    assert any(math.isclose(sessions[c].iloc[0], usd, rel_tol=1e-6) for c in usd_columns), (
        usd_columns)
    row = sessions.iloc[0]
    assert row["prompt_tokens"] + row["completion_tokens"] == tokens


def test_max_usd_for_a_model_without_a_price_is_refused_before_the_run(
    model_server, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 37, point 7: ``llm.budget.max_usd`` cannot be enforced for a model litellm has no
    price for: one line naming the setting, exit 2, no session run."""
    server = model_server(ms.session_script())
    capfd.readouterr()
    code = main_with_args([*single_job(server, tmp_path, max_turns=6), "llm.budget.max_usd=0.5"])
    err = capfd.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and re.search(r"llm\.prices|max_usd", err[0]), err
    assert server.requests == [] and not (tmp_path / "job" / "sessions.csv").exists()


# ------------------------------------------------------------------ native tool calling


def test_native_tool_calls_drive_a_session_where_the_model_supports_them(
    model_server, task: Task, tmp_path: Path
) -> None:
    """Issue 37, what to build: with tool calling on, the actions are sent as litellm
    ``tools`` (``tool_choice="auto"``) and a native tool call is the action."""
    server = model_server(ms.sequence(
        ms.tool_call("EDITOR_UPDATE", {"text": ms.STAND_IN_HYPOTHESIS}), ms.tool_call("FINISH")))
    result, _ = session(server, task, tmp_path, max_turns=4, tool_calling="on")
    assert result.status == "finished"
    assert result.submitted_hypothesis == ms.STAND_IN_HYPOTHESIS
    assert len(server.requests) == 2
    sent = server.requests[0].params
    names = {t["function"]["name"] for t in sent["tools"]}
    assert {"EXECUTE_CODE", "EDITOR_UPDATE", "FINISH"} <= names and sent["tool_choice"] == "auto"


def test_the_client_reports_finish_reason_and_tool_calls(model_server) -> None:
    """Issue 37, points 5 and what to build: ``LLMReply.finish_reason`` / ``tool_calls`` carry
    what the provider sent (a cut reply is ``"length"``)."""
    server = model_server(ms.sequence(ms.cut_at_max_tokens(),
                                      ms.tool_call("FINISH", arguments="{}")))
    settings = LLMSettings(model=MODEL, max_retries=0, extra={"api_base": server.url})
    client = LLMClient()
    cut = asyncio.run(client.complete([{"role": "user", "content": "a"}], settings))
    assert cut.finish_reason == "length"
    call = asyncio.run(client.complete([{"role": "user", "content": "b"}], settings))
    assert call.finish_reason == "tool_calls"
    assert [(c.name, c.arguments) for c in call.tool_calls] == [("FINISH", "{}")]
