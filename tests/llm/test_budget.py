"""Budget limits: a call that could overspend is refused with status budget_exceeded."""

from __future__ import annotations

import pytest

from collabsim.core.errors import SessionAbort
from collabsim.llm.budget import Budget, BudgetExceeded


def test_budget_refuses_a_call_that_could_overspend() -> None:
    budget = Budget(max_tokens=100, max_usd=0.01)
    budget.check(0, 0.0, 100, 0.01)  # exactly at the limit is allowed
    # the engine ends a session on any SessionAbort; a budget refusal must be one
    with pytest.raises(SessionAbort) as info:
        budget.check(50, 0.0, 51, 0.0)
    assert type(info.value) is BudgetExceeded
    assert info.value.status == "budget_exceeded"
    assert "max_tokens=100" in info.value.reason
    with pytest.raises(BudgetExceeded, match="max_usd"):
        budget.check(0, 0.009, 0, 0.002)


def test_unlimited_budget_and_validation() -> None:
    Budget().check(10**12, 10.0**6, 10**9, 1.0)
    assert Budget().unlimited
    with pytest.raises(ValueError):
        Budget(max_tokens=-1)
