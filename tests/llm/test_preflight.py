"""The pre-flight key check (issue 37, point 2): which models need a key that is not set."""

from __future__ import annotations

import pytest

from collabsim.llm.preflight import missing_credentials, required_keys

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY")


@pytest.fixture()
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def test_a_hosted_model_without_its_key_is_named_with_the_variable(no_keys) -> None:
    assert missing_credentials(["openai/x", "anthropic/claude-3-5-haiku-latest"]) == [
        "openai/x needs OPENAI_API_KEY, which is not set in the environment",
        "anthropic/claude-3-5-haiku-latest needs ANTHROPIC_API_KEY, which is not set in the "
        "environment",
    ]
    assert required_keys("deepseek/deepseek-chat") == ["DEEPSEEK_API_KEY"]


def test_a_key_in_the_environment_satisfies_the_check(no_keys, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "dummy-test-key")
    assert missing_credentials(["openai/x", "gpt-4o-mini"]) == []


def test_offline_models_local_servers_and_mocks_need_no_key(no_keys) -> None:
    assert missing_credentials([
        "collabsim/scripted",
        "collabsim/scripted-latency-100",
        ("openai/x", {"api_base": "http://127.0.0.1:8000/v1"}),
        ("hosted_vllm/Qwen/Qwen2.5-7B-Instruct", {"api_base": "http://127.0.0.1:8000/v1"}),
        # Ollama's server address has a default; it is not a credential
        "ollama_chat/llama3.1",
        ("gpt-4o-mini", {"mock_response": "ACTION: FINISH()"}),
    ]) == []


def test_a_model_listed_twice_is_named_once_and_an_api_base_only_frees_its_own_entry(
        no_keys) -> None:
    lines = missing_credentials([
        ("openai/x", {"api_base": "http://127.0.0.1:8000/v1"}), "openai/x", "openai/x"])
    assert lines == ["openai/x needs OPENAI_API_KEY, which is not set in the environment"]
