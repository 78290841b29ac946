"""Issue 37: an unusable reply is an INVALID event, never an action found in its prose."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from collabsim.core.replies import UnusableReply
from collabsim.llm import LLMClient, LLMSettings, call_log_path_for
from collabsim.participants.llm_policy import build_llm_participants
from collabsim.participants.team import TeamSpec
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session
from collabsim.session.orchestrator import Orchestrator
from collabsim.session.structures import builtin_structure
from tests.participants.test_llm_policy import make_task

ISSUE_REPLY = 'THOUGHT: we are done, I will call FINISH() now.\nACTION: SUBMIT(answer="Dagger")'


def _config(max_turns: int = 2) -> SessionConfig:
    return SessionConfig(task=make_task(), team=TeamSpec(), structure=builtin_structure("single"),
                         seed=0, max_turns=max_turns)


def _events(trace: Path) -> list[dict]:
    return [json.loads(line) for line in trace.read_text().splitlines()]


def test_an_unusable_reply_quoting_finish_is_logged_invalid_and_applies_nothing() -> None:
    orch = Orchestrator(_config())
    orch.start()
    assert orch.next_turn() is not None
    orch.submit(UnusableReply("FINISH()", "Unknown action 'SUBMIT'."))
    assert not orch.done, "FINISH() in an unusable reply must never finish the session"
    invalid = orch.state.events[-1]
    assert (invalid.action_type, invalid.status) == ("INVALID", "error")
    assert invalid.observation == "Unknown action 'SUBMIT'."
    assert invalid.args == {"text": "FINISH()"}
    turn = orch.next_turn()
    assert turn is not None and any("Unknown action 'SUBMIT'" in f for f in turn.observation.feedback)
    orch.close()


def test_the_issue_reply_never_finishes_an_llm_session(tmp_path: Path) -> None:
    settings = LLMSettings(model="gpt-4o-mini", extra={"mock_response": ISSUE_REPLY})
    trace = tmp_path / "trace.jsonl"
    client = LLMClient().for_session(call_log_path=call_log_path_for(trace))
    participants = build_llm_participants(TeamSpec(), {"agent": settings}, client, 0)
    result = asyncio.run(run_session(_config(), participants, trace))
    assert result.status == "max_turns" and result.submitted_hypothesis == ""
    invalid = [e for e in _events(trace) if e["action_type"] == "INVALID"]
    assert len(invalid) == 2
    assert all("Unknown action 'SUBMIT'" in e["observation"] for e in invalid)


def test_llm_turns_carry_their_prompt_tokens_scripted_traces_do_not(tmp_path: Path) -> None:
    settings = LLMSettings(model="gpt-4o-mini",
                           extra={"mock_response": 'ACTION: EDITOR_UPDATE(text="Dagger rises")'})
    trace = tmp_path / "trace.jsonl"
    client = LLMClient().for_session(call_log_path=call_log_path_for(trace))
    participants = build_llm_participants(TeamSpec(), {"agent": settings}, client, 0)
    asyncio.run(run_session(_config(), participants, trace))
    edits = [e for e in _events(trace) if e["action_type"] == "EDITOR_UPDATE"]
    assert edits and all(e["llm"]["calls"] == 1 and e["llm"]["prompt_tokens"] > 0
                         for e in edits)
    assert all("llm" not in e for e in _events(trace) if e["actor"] == "env")
