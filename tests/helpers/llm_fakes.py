"""Small fakes of the LLM tests: a sleep that records its delays, a provider-call counter."""

from __future__ import annotations

from typing import Any

import pytest

from collabsim.llm.backend import get_litellm


class Recorder:
    """Fake sleep that records requested delays without waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def count_provider_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count calls that reach litellm (``count["calls"]``) by wrapping ``acompletion``."""
    litellm = get_litellm()
    real = litellm.acompletion
    count = {"calls": 0}

    async def counting(*args: Any, **kwargs: Any) -> Any:
        count["calls"] += 1
        return await real(*args, **kwargs)

    monkeypatch.setattr(litellm, "acompletion", counting)
    return count
