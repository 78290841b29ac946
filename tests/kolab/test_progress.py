"""Stage progress: a bar in a terminal, one line with its time in a log."""

from __future__ import annotations

import io

from collabsim.kolab.progress import Stage


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_stage_in_a_log_writes_one_line_with_its_time_and_no_redraws() -> None:
    log = io.StringIO()
    with Stage("learned 1b", total=3, stream=log) as stage:
        for _ in range(3):
            stage.update()
    text = log.getvalue()
    assert "\r" not in text
    assert text.startswith("learned 1b: ") and text.endswith(" s\n") and text.count("\n") == 1


def test_a_stage_in_a_terminal_draws_a_bar_that_reaches_its_total() -> None:
    term = _Terminal()
    with Stage("learned 1b", stream=term) as stage:
        stage.add_total(4)
        stage.update(4)
    assert "learned 1b" in term.getvalue() and "4/4" in term.getvalue()


def test_a_disabled_stage_writes_nothing() -> None:
    log = io.StringIO()
    with Stage("x", stream=log, enabled=False) as stage:
        stage.update()
    assert log.getvalue() == ""
