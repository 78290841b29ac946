"""Cost reporting from call logs: totals per participant, cached vs billed."""

from __future__ import annotations

from pathlib import Path

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
    out = capsys.readouterr().out
    assert "TOTAL" in out and "agent" in out and "billed" in out
