"""Disk cache: canonical keys without credentials, atomic entries, exact replay."""

from __future__ import annotations

from pathlib import Path

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
