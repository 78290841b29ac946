"""Open ("describe") questions get computed content that mistakes and teammates can change."""

from __future__ import annotations

from collabsim.participants.cells import compute_cell, parse_result
from collabsim.participants.claims import check_numbers, check_wording
from collabsim.participants.plan import apply_mistakes, resolve_plan
from collabsim.participants.query import parse_query
from collabsim.participants.wording import draft_hypothesis
from collabsim.tasks.model import Task
from tests.helpers.executors import run_cell


def test_a_describe_query_is_answered_from_the_data_and_a_dropped_window_shows(
        archaeology: dict[str, Task]) -> None:
    # "What is the relationship of amber finds and number of monuments between 3400-3000 BCE?"
    task = archaeology["archaeology/24/0"]
    semantics = parse_query(task.brief())
    plan = resolve_plan(task.brief(), semantics)
    assert plan.relation == "describe" and plan.window == (-3400, -3000)
    cwd = str(task.datasets[0].path.parent)
    right = parse_result(run_cell(compute_cell(plan), cwd))
    wrong = parse_result(run_cell(compute_cell(apply_mistakes(plan, {"wrong_window"})), cwd))
    assert right is not None and wrong is not None
    assert [c for c, _ in right.trends] == list(plan.columns) and right.corr is not None
    draft, mistaken = draft_hypothesis(right, semantics), draft_hypothesis(wrong, semantics)
    assert draft.startswith("Between 3400 BCE and 3000 BCE,") and "related (r = " in draft
    assert mistaken.startswith("Over the whole observed record") and mistaken != draft
    # D (own computation right) and R (reading the period) both object to the mistaken one
    assert [i.kind for i in check_numbers(mistaken, right, wrong)] == ["wrong_window"]
    assert [i.kind for i in check_wording(semantics, mistaken)] == ["wrong_window"]
    assert check_numbers(draft, right, right) == () and check_wording(semantics, draft) == ()
