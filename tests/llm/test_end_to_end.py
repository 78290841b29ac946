"""The whole LLM path through the session engine, offline (acceptance 1, 3, 5, 6).

``collabsim/scripted`` answers by rebuilding the scripted policies from the rendered prompt,
so an LLM session must take the same decisions as a scripted one; a rerun must come
entirely from the cache with a byte-identical trace; a tiny budget ends only its own
session; and no API key from the environment reaches any file a run writes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from helpers.llm_fakes import count_provider_calls

from collabsim.llm import Budget, LLMClient, LLMSettings, call_log_path_for, gather_bounded
from collabsim.llm.calllog import read_call_log
from collabsim.participants.llm_policy import build_llm_participants
from collabsim.participants.scripted import build_scripted
from collabsim.participants.team import TeamSpec, team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session
from collabsim.session.results import SessionResult, write_result
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite
from collabsim.tasks.model import Task

SEED = 1
PARAMS = {"agent": {"mistakes": {"wrong_ordinal": 0.5, "ignore_teammate": 0.3}}, "collaborator": {}}
OFFLINE = LLMSettings(model="collabsim/scripted")


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Task, ...]:
    root = generate_suite(tmp_path_factory.mktemp("suite"), n_tasks=3, seed=0)
    report = load_tasks(root)
    assert len(report.tasks) == 3 and not report.problems
    return report.tasks


def config(task: Task, team: TeamSpec, structure: str = "scaffolded") -> SessionConfig:
    return SessionConfig(task=task, team=team, structure=builtin_structure(structure),
                         seed=SEED, max_turns=80)


def llm_session(
    task: Task, team: TeamSpec, root: LLMClient, out: Path, budget: Budget | None = None,
    settings: LLMSettings = OFFLINE, structure: str = "scaffolded",
) -> tuple[SessionResult, LLMClient]:
    trace = out / "trace.jsonl"
    client = root.for_session(budget=budget, call_log_path=call_log_path_for(trace))
    participants = build_llm_participants(
        team, {"agent": settings, "collaborator": settings}, client, SEED, scripted_params=PARAMS
    )
    result = asyncio.run(run_session(config(task, team, structure), participants, trace))
    return result, client


@pytest.fixture()
def provider_calls(monkeypatch) -> dict[str, int]:
    return count_provider_calls(monkeypatch)


@pytest.mark.slow
def test_offline_llm_team_submits_what_the_scripted_team_submits(
    tasks: tuple[Task, ...], tmp_path: Path
) -> None:
    team = team_from_dict("DR")
    for i, task in enumerate(tasks):
        scripted = {
            n: build_scripted(n, team.role(n), team.profile(n), seed=SEED,
                              params=PARAMS[team.role(n)])
            for n in team.members
        }
        expected = asyncio.run(run_session(config(task, team), scripted, tmp_path / f"s{i}.jsonl"))
        result, client = llm_session(task, team, LLMClient(), tmp_path / f"llm{i}")
        # two gate owners who disagree (one of them confidently wrong) can block each other
        # until max_turns, or until the agent gives up on an editor its owner keeps
        # rejecting (then the FINISH owner submits what the editor holds, possibly nothing);
        # the LLM path must do exactly the same
        assert expected.status in ("finished", "max_turns")
        assert expected.submitted_hypothesis or expected.counts["R"].get(
            "REJECT", 0) >= 3
        assert result.status == expected.status
        assert result.submitted_hypothesis == expected.submitted_hypothesis
        assert result.counts == expected.counts
        assert result.policy == "llm"
        usage = client.usage
        assert set(usage.by_tag) == {"agent", "D", "R"}
        assert usage.total.calls == len(read_call_log(tmp_path / f"llm{i}" / "trace.llm_calls.jsonl"))


def test_rerun_is_served_from_the_cache_with_an_identical_trace(
    tasks: tuple[Task, ...], tmp_path: Path, provider_calls: dict[str, int]
) -> None:
    team = team_from_dict("DR")
    first, c1 = llm_session(tasks[0], team, LLMClient(cache_dir=tmp_path / "cache"), tmp_path / "a")
    assert provider_calls["calls"] == c1.usage.total.provider_calls > 0
    provider_calls["calls"] = 0
    second, c2 = llm_session(tasks[0], team, LLMClient(cache_dir=tmp_path / "cache"), tmp_path / "b")
    assert provider_calls["calls"] == 0
    total = c2.usage.total
    assert (total.provider_calls, total.cached_calls) == (0, c1.usage.total.calls)
    assert total.billed_usd == 0.0
    assert (tmp_path / "a" / "trace.jsonl").read_bytes() == (tmp_path / "b" / "trace.jsonl").read_bytes()
    assert second.submitted_hypothesis == first.submitted_hypothesis


def test_tiny_budget_ends_its_session_and_the_sweep_goes_on(
    tasks: tuple[Task, ...], tmp_path: Path
) -> None:
    team = team_from_dict("D")
    root = LLMClient(max_concurrency=4)
    budgets = [None, Budget(max_tokens=4000), None]

    async def one(i: int) -> SessionResult:
        trace = tmp_path / f"s{i}" / "trace.jsonl"
        client = root.for_session(budget=budgets[i], call_log_path=call_log_path_for(trace))
        participants = build_llm_participants(
            team, {"agent": OFFLINE, "collaborator": OFFLINE}, client, SEED, scripted_params=PARAMS
        )
        return await run_session(config(tasks[i], team, "default"), participants, trace)

    results = asyncio.run(gather_bounded([lambda i=i: one(i) for i in range(3)], 3))
    assert [r.status for r in results] == ["finished", "budget_exceeded", "finished"]
    assert "token budget" in (results[1].error or "")
    end = json.loads((tmp_path / "s1" / "trace.jsonl").read_text().splitlines()[-1])
    assert end["action_type"] == "SESSION_END" and end["args"]["status"] == "budget_exceeded"


def test_unparseable_replies_become_invalid_events_in_the_trace(
    tasks: tuple[Task, ...], tmp_path: Path
) -> None:
    settings = LLMSettings(model="gpt-4o-mini", extra={"mock_response": "Let me think."})
    cfg = SessionConfig(task=tasks[0], team=TeamSpec(), structure=builtin_structure("single"),
                        seed=SEED, max_turns=2)
    trace = tmp_path / "trace.jsonl"
    client = LLMClient().for_session(call_log_path=call_log_path_for(trace))
    participants = build_llm_participants(TeamSpec(), {"agent": settings}, client, SEED)
    result = asyncio.run(run_session(cfg, participants, trace))
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    invalid = [e for e in events if e["action_type"] == "INVALID"]
    assert result.status == "max_turns"
    assert len(invalid) == 2 and all(e["status"] == "error" for e in invalid)
    assert all("No action found" in e["observation"] for e in invalid)
    assert len(read_call_log(call_log_path_for(trace))) == 4, "one repair call per turn"


def test_no_api_key_reaches_any_written_file(
    tasks: tuple[Task, ...], tmp_path: Path, monkeypatch
) -> None:
    keys = {
        "OPENAI_API_KEY": "sk-test-" + "A1b2C3d4" * 4,
        "ANTHROPIC_API_KEY": "sk-ant-test-" + "Z9y8X7w6" * 4,
        "DEEPSEEK_API_KEY": "plainsecretvalue-0123456789",
    }
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    team = team_from_dict("DR")
    result, client = llm_session(tasks[1], team, LLMClient(cache_dir=tmp_path / "cache"),
                                 tmp_path / "run")
    mocked = LLMSettings(model="gpt-4o-mini", extra={"mock_response": "FINISH()"})
    llm_session(tasks[1], TeamSpec(), LLMClient(cache_dir=tmp_path / "cache"), tmp_path / "run2",
                settings=mocked, structure="single")
    write_result(tmp_path / "run" / "result.json", result)
    (tmp_path / "run" / "usage.json").write_text(json.dumps(client.usage.to_dict()))
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 6
    for path in files:
        data = path.read_bytes()
        for value in keys.values():
            assert value.encode() not in data, f"{path} contains an API key"
