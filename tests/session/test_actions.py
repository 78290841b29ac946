"""Action language: lenient parsing, exact formatting, helpful errors, fuzzing."""

from __future__ import annotations

import pytest
from helpers.participants import fuzz_strings
from hypothesis import given, settings
from hypothesis import strategies as st

from collabsim.core.action_parser import parse_action
from collabsim.core.actions import (
    ACTION_SPECS,
    Action,
    describe_actions,
    format_action,
    format_wait,
    wait_bound,
)


def ok(text: str) -> Action:
    result = parse_action(text)
    assert result.error is None, result.error
    assert result.action is not None
    return result.action


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('EXECUTE_CODE(code="print(1)")', Action("EXECUTE_CODE", {"code": "print(1)"})),
        ("execute_code(code='x = \"a\"')", Action("EXECUTE_CODE", {"code": 'x = "a"'})),
        (
            'EXECUTE_CODE(code="""a = "x"\nprint(a)""")',
            Action("EXECUTE_CODE", {"code": 'a = "x"\nprint(a)'}),
        ),
        ("EXECUTE_CODE(code='''s = 'q'\n''')", Action("EXECUTE_CODE", {"code": "s = 'q'\n"})),
        (
            'EXECUTE_CODE(code="a\\nb\\t\\"c\\" \\\\d")',
            Action("EXECUTE_CODE", {"code": 'a\nb\t"c" \\d'}),
        ),
        (
            "EXECUTE_CODE(code=\"re.findall('\\d+', s)\")",
            Action("EXECUTE_CODE", {"code": "re.findall('\\d+', s)"}),
        ),
        ("APPROVE(g1)", Action("APPROVE", {"request_id": "g1"})),
        ("APPROVE(request_id=g1)", Action("APPROVE", {"request_id": "g1"})),
        ("approve( request_id = 3 , )", Action("APPROVE", {"request_id": "3"})),
        (
            'REJECT(g1, "wrong period")',
            Action("REJECT", {"request_id": "g1", "reason": "wrong period"}),
        ),
        (
            'REJECT(reason="no", request_id="g2")',
            Action("REJECT", {"request_id": "g2", "reason": "no"}),
        ),
        ("FINISH()", Action("FINISH", {})),
        ("FINISH", Action("FINISH", {})),
        ("```\nWAIT_TEAMMATE_CONTINUE\n```", Action("WAIT_TEAMMATE_CONTINUE", {})),
        ("Action: memory_agree", Action("MEMORY_AGREE", {})),
        (
            'SEND_TEAMMATE_MESSAGE({"message": "hi"})',
            Action("SEND_TEAMMATE_MESSAGE", {"message": "hi"}),
        ),
        (
            "SEND_TEAMMATE_MESSAGE({'message': 'hi'})",
            Action("SEND_TEAMMATE_MESSAGE", {"message": "hi"}),
        ),
        (
            'SEND_TEAMMATE_MESSAGE("positional")',
            Action("SEND_TEAMMATE_MESSAGE", {"message": "positional"}),
        ),
        (
            'MEMORY_ADD(section=gates, text="EDITOR_UPDATE: R")',
            Action("MEMORY_ADD", {"section": "gates", "text": "EDITOR_UPDATE: R"}),
        ),
        (
            'Thought: I should look at the data first.\n```python\nEXECUTE_CODE(code="print(df)")\n```\nThen FINISH().',
            Action("EXECUTE_CODE", {"code": "print(df)"}),
        ),
        # lenient repair of unescaped inner quotes for one-argument actions
        ('EXECUTE_CODE(code="print("hi")")', Action("EXECUTE_CODE", {"code": 'print("hi")'})),
        (
            "SEND_TEAMMATE_MESSAGE(message=Hello (see above), thanks)",
            Action("SEND_TEAMMATE_MESSAGE", {"message": "Hello (see above), thanks"}),
        ),
    ],
)
def test_lenient_forms(text: str, expected: Action) -> None:
    assert ok(text) == expected


def test_first_well_formed_known_action_wins() -> None:
    text = 'I might RUN_CODE(x) or EDITOR_UPDATE() but: EDITOR_UPDATE(text="a") then FINISH()'
    assert ok(text) == Action("EDITOR_UPDATE", {"text": "a"})


def test_call_inside_an_argument_is_not_an_action() -> None:
    text = format_action("EXECUTE_CODE", code='print("FINISH()")')
    assert ok("Sure. " + text + " and then FINISH()") == Action(
        "EXECUTE_CODE", {"code": 'print("FINISH()")'}
    )


@pytest.mark.parametrize(
    ("text", "must_contain"),
    [
        ("RUN_CODE(code='x')", ["Unknown action 'RUN_CODE'", "EXECUTE_CODE", 'NAME(arg="value"']),
        ("EDITOR_UPDATE()", ["missing required argument", "'text'", 'EDITOR_UPDATE(text="...")']),
        ('EDITOR_UPDATE(txt="a")', ["no argument 'txt'", "valid: text", "Expected syntax"]),
        ('REJECT(request_id="g1")', ["missing", "'reason'", "REJECT(request_id="]),
        ('APPROVE(g1, "a", "b")', ["takes 2 argument(s)"]),
        ('EXECUTE_CODE(code="print(1)', ["unterminated string", "EXECUTE_CODE(code="]),
        ("", ["No action found", "Known actions"]),
        ("I will call EXECUTE_CODE now", ["No action found", 'EXECUTE_CODE(code="...")']),
        ('FINISH(now="yes")', ["FINISH has no argument 'now'", "no arguments"]),
    ],
)
def test_errors_say_what_is_wrong_and_show_syntax(text: str, must_contain: list[str]) -> None:
    result = parse_action(text)
    assert result.action is None
    assert result.error is not None
    for part in must_contain:
        assert part in result.error, (part, result.error)


def test_non_text_input_is_an_error_not_an_exception() -> None:
    result = parse_action(None)  # type: ignore[arg-type]
    assert result.action is None and "must be text" in (result.error or "")


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(sorted(ACTION_SPECS)),
    values=st.lists(st.text(max_size=60), min_size=2, max_size=2),
)
def test_format_round_trips_arbitrary_strings(name: str, values: list[str]) -> None:
    spec = ACTION_SPECS[name]
    args = dict(zip(spec.arg_names, values, strict=False))
    text = format_action(name, **args)
    assert parse_action(text).action == Action(name, args)


@pytest.mark.parametrize(
    "value",
    [
        'df = pd.read_csv("a.csv")\nprint(df["x"].max())',
        "a\\nb \\\" \\' \\\\ \"\"\" ''' \r\n\t",
        "ünïcødé 🎉 \u2028 \x00 \\",
        "\\",
        '"',
        "",
        "x" * 100_000,
        ')")\'("',
    ],
)
def test_format_round_trips_hard_strings(value: str) -> None:
    text = format_action("EXECUTE_CODE", code=value)
    assert parse_action(text).action == Action("EXECUTE_CODE", {"code": value})
    text = format_action("REJECT", request_id=value, reason=value)
    assert parse_action(text).action == Action("REJECT", {"request_id": value, "reason": value})


def test_format_rejects_bad_calls() -> None:
    with pytest.raises(ValueError, match="unknown action"):
        format_action("RUN", code="x")
    with pytest.raises(ValueError, match="no argument"):
        format_action("FINISH", now="1")
    with pytest.raises(ValueError, match="missing"):
        format_action("REJECT", request_id="g1")


def test_specs_cover_design_actions_and_examples_parse() -> None:
    assert set(ACTION_SPECS) == {
        "SEND_TEAMMATE_MESSAGE",
        "EXECUTE_CODE",
        "EDITOR_UPDATE",
        "WAIT_TEAMMATE_CONTINUE",
        "FINISH",
        "APPROVE",
        "REJECT",
        "MEMORY_ADD",
        "MEMORY_AGREE",
    }
    for name, spec in ACTION_SPECS.items():
        assert ok(spec.example).name == name
        assert spec.syntax() in describe_actions()


@pytest.mark.slow
def test_fuzz_parse_never_raises() -> None:
    strings = fuzz_strings(seed=1234, n=10_000)
    parsed = 0
    for text in strings:
        result = parse_action(text)
        assert (result.action is None) != (result.error is None)
        if result.action is not None:
            parsed += 1
            assert result.action.name in ACTION_SPECS
            assert all(isinstance(v, str) for v in result.action.args.values())
        else:
            assert result.error
    assert 0 < parsed < len(strings)


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("WAIT_TEAMMATE_CONTINUE()", None),
        ("WAIT_TEAMMATE_CONTINUE", None),
        ('WAIT_TEAMMATE_CONTINUE(max_seconds="23.5")', 23.5),
        ("WAIT_TEAMMATE_CONTINUE(max_seconds=23.5)", 23.5),
        ("wait_teammate_continue(30)", 30.0),
    ],
)
def test_wait_takes_an_optional_bound_in_seconds(text: str, bound: float | None) -> None:
    assert wait_bound(ok(text)) == bound


@given(st.floats(min_value=1e-6, max_value=1e6))
@settings(max_examples=200, deadline=None)
def test_a_formatted_wait_round_trips_and_never_ends_early(seconds: float) -> None:
    # the bound is written in milliseconds, rounded up: a participant that waits for a
    # deadline (now + seconds) is not woken just before it
    action = ok(format_wait(seconds))
    assert action.name == "WAIT_TEAMMATE_CONTINUE"
    bound = wait_bound(action)
    assert bound is not None and seconds < bound <= seconds + 0.0011
    assert ok(format_action(action.name, **action.args)) == action
    assert ok(format_wait(None)) == Action("WAIT_TEAMMATE_CONTINUE", {})


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf", "-inf", "nan", "", " "])
def test_a_wait_bound_must_be_a_positive_finite_number(value: str) -> None:
    with pytest.raises(ValueError, match="max_seconds must be a positive, finite number"):
        wait_bound(Action("WAIT_TEAMMATE_CONTINUE", {"max_seconds": value}))
