"""Cost reporting from call logs: totals per participant, cached vs billed."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.llm import LLMClient, LLMSettings
from collabsim.llm.calllog import summarize_call_logs
from collabsim.llm.costs import find_call_logs, main

MSGS = [{"role": "user", "content": "Go."}]


def test_costs_per_tag_from_call_logs(tmp_path: Path, capsys) -> None:
    settings = LLMSettings(model="gpt-4o-mini", extra={"mock_response": "FINISH()"})
    cache = tmp_path / "cache"
    for run in ("a", "b"):  # b is served from the cache
        client = LLMClient(cache_dir=cache).for_session(
            call_log_path=tmp_path / run / "s1" / "llm_calls.jsonl"
        )
        client.complete_sync(MSGS, settings, tag="agent")
        client.complete_sync(MSGS + [{"role": "user", "content": "More."}], settings, tag="D")
    logs = find_call_logs(tmp_path)
    assert len(logs) == 2
    ledger = summarize_call_logs(logs)
    assert ledger.tag("agent").calls == 2 and ledger.tag("agent").cached_calls == 1
    assert ledger.total.billed_usd == ledger.total.cost_usd / 2 > 0
    assert main([str(tmp_path / "b")]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    # run b was served from the cache: every call cached, nothing billed
    assert rows["agent"][:3] == ["1", "1", "0"] and rows["TOTAL"][:3] == ["2", "2", "0"]
    assert float(rows["TOTAL"][4]) > 0 and float(rows["TOTAL"][5]) == 0.0
    assert main([str(tmp_path)]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    assert rows["TOTAL"][:3] == ["4", "2", "0"]
    assert float(rows["TOTAL"][5]) == pytest.approx(float(rows["TOTAL"][4]) / 2, abs=2e-6)
