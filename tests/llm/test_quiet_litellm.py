"""litellm's own logging stays quiet: no INFO line per call, even with the root at INFO."""

from __future__ import annotations

import logging

from helpers import model_server as ms

from collabsim.llm import LLMClient, LLMSettings
from collabsim.llm.backend import LITELLM_LOGGERS, get_litellm

MSGS = [{"role": "user", "content": "Go."}]


def test_a_call_logs_nothing_from_litellm_at_info(model_server, caplog, capfd) -> None:
    """Under Hydra the root logger is at INFO; litellm printed two lines per call."""
    caplog.set_level(logging.INFO)  # the root logger, as a Hydra job sets it
    server = model_server(ms.numbered())
    settings = LLMSettings(model="hosted_vllm/stub", extra={"api_base": server.url})
    assert LLMClient().complete_sync(MSGS, settings).text == "reply 1"
    LLMClient().complete_sync(MSGS, LLMSettings(model="gpt-4o-mini", extra={"mock_response": "x"}))
    litellm_records = [r for r in caplog.records if r.name.startswith("LiteLLM")]
    assert litellm_records == []
    err = capfd.readouterr().err
    assert "LiteLLM" not in err, err


def test_litellm_loggers_are_at_warning() -> None:
    litellm = get_litellm()
    assert litellm.set_verbose is False
    for name in LITELLM_LOGGERS:
        assert logging.getLogger(name).level == logging.WARNING, name
