"""Issue 37: the strict reading of an action part, and the actions as tool schemas."""

from __future__ import annotations

from collabsim.core.action_parser import action_from_mapping, parse_one_action
from collabsim.core.actions import ACTION_SPECS, tool_schemas


def test_a_call_in_the_code_string_is_not_a_second_action() -> None:
    result = parse_one_action('EXECUTE_CODE(code="print(\'FINISH()\')")\nThat is all.')
    assert result.action is not None and result.action.args["code"] == "print('FINISH()')"


def test_an_unknown_upper_case_call_is_an_unknown_action_not_a_later_known_one() -> None:
    result = parse_one_action('SUBMIT(answer="x") then FINISH()')
    assert result.action is None and "Unknown action 'SUBMIT'" in (result.error or "")


def test_alone_means_nothing_but_the_action() -> None:
    assert parse_one_action("FINISH()", alone=True).action is not None
    assert parse_one_action("ok FINISH()", alone=True).action is None
    assert parse_one_action("ok FINISH()").action is not None


def test_action_from_mapping_checks_names_and_arguments() -> None:
    ok = action_from_mapping("execute_code", {"code": "x = 1"})
    assert ok.action is not None and ok.action.name == "EXECUTE_CODE"
    assert "missing" in (action_from_mapping("EDITOR_UPDATE", {}).error or "")
    assert action_from_mapping("WAIT_TEAMMATE_CONTINUE", {"max_seconds": 30}).action.args == {
        "max_seconds": "30"}


def test_tool_schemas_follow_the_action_specs() -> None:
    schemas = {s["function"]["name"]: s for s in tool_schemas()}
    assert list(schemas) == list(ACTION_SPECS)
    reject = schemas["REJECT"]["function"]
    assert reject["parameters"]["required"] == ["request_id", "reason"]
    assert set(reject["parameters"]["properties"]) == {"request_id", "reason"}
    assert schemas["FINISH"]["function"]["parameters"]["properties"] == {}
    assert [s["function"]["name"] for s in tool_schemas(("FINISH",))] == ["FINISH"]
