"""Disk cache: canonical keys without credentials, atomic entries, exact replay."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from collabsim.llm.cache import CacheEntry, DiskCache, cache_key, is_secret_param

MSGS = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]


def test_key_depends_on_model_messages_and_sampling_params_only() -> None:
    base = cache_key("m", MSGS, {"temperature": 0.0, "max_tokens": 10})
    assert base == cache_key("m", MSGS, {"max_tokens": 10, "temperature": 0.0})
    assert base != cache_key("m2", MSGS, {"temperature": 0.0, "max_tokens": 10})
    assert base != cache_key("m", MSGS[:1], {"temperature": 0.0, "max_tokens": 10})
    assert base != cache_key("m", MSGS, {"temperature": 0.7, "max_tokens": 10})
    # transport settings and credentials do not change what a model answers
    assert base == cache_key(
        "m",
        MSGS,
        {"temperature": 0.0, "max_tokens": 10, "timeout": 5, "api_key": "sk-secret-1234567"},
    )


def test_secret_parameter_names() -> None:
    for name in ("api_key", "extra_headers", "azure_ad_token", "aws_secret_access_key"):
        assert is_secret_param(name), name
    for name in ("max_tokens", "temperature", "top_p", "mock_response", "stop"):
        assert not is_secret_param(name), name


def test_put_get_roundtrip_and_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "c")
    key = cache_key("m", MSGS, {})
    assert cache.get(key) is None
    entry = CacheEntry(key, "m", "m-2024", "FINISH()", 12, 3, 0.5, True)
    path = cache.put(entry)
    assert cache.get(key) == entry
    assert len(cache) == 1
    assert not list(path.parent.glob(".tmp-*")), "temporary files must not be left behind"
    path.write_text("{not json", encoding="utf-8")
    assert cache.get(key) is None


def test_an_entry_appears_whole_or_not_at_all(tmp_path: Path, monkeypatch) -> None:
    """Issue 38 item 10: a reader never sees a partial entry, a failed write leaves nothing."""
    import os

    cache = DiskCache(tmp_path / "c")
    entry = CacheEntry(cache_key("m", MSGS, {}), "m", "m", "FINISH()" * 100, 1, 1, 0.0, True)
    target = cache.path_for(entry.key)
    real_replace = os.replace
    seen: list[bool] = []

    def checking_replace(src: str, dst: str) -> None:
        assert not Path(dst).exists(), "the entry must not be visible before it is complete"
        assert json.loads(Path(src).read_text(encoding="utf-8"))["text"] == entry.text
        seen.append(True)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", checking_replace)
    cache.put(entry)
    assert seen and cache.get(entry.key) == entry
    target.unlink()

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        cache.put(entry)
    assert list((tmp_path / "c").rglob("*")) == [target.parent], "no entry, no temporary file"
    assert len(cache) == 0


def test_a_write_in_flight_is_not_an_entry(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "c")
    key = cache_key("m", MSGS, {})
    cache.put(CacheEntry(key, "m", "m", "x", 1, 1, 0.0, True))
    (cache.path_for(key).parent / ".tmp-abc123.json").write_text("{", encoding="utf-8")
    assert len(cache) == 1


def test_failed_and_cancelled_calls_store_nothing(tmp_path: Path) -> None:
    from helpers.observations import sample_observation

    from collabsim.llm import LLMCallError, LLMClient, LLMSettings
    from collabsim.llm.backend import get_litellm
    from collabsim.participants import offline_provider  # noqa: F401 - collabsim/* models
    from collabsim.participants.state_block import encode_state

    root = LLMClient(cache_dir=tmp_path / "c")
    auth = get_litellm().AuthenticationError("bad key", llm_provider="openai", model="gpt-4o-mini")
    failing = LLMSettings(model="gpt-4o-mini", extra={"mock_response": auth})
    with pytest.raises(LLMCallError):
        root.complete_sync(MSGS, failing)
    msgs = [{"role": "user", "content": encode_state(sample_observation(), {"kind": "fixed"})}]
    slow = LLMSettings(model="collabsim/scripted-latency", extra={"latency_ms": 5000})

    async def cancel_mid_call() -> None:
        call = asyncio.ensure_future(root.complete(msgs, slow))
        await asyncio.sleep(0.2)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(cancel_mid_call())
    assert len(root.cache) == 0 and not [p for p in (tmp_path / "c").rglob("*") if p.is_file()]
