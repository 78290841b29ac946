"""Pre-loading modules and data files in the fork server never disturbs running workers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sandbox_helpers import FAST, gone, state_of

from collabsim.sandbox import (
    Sandbox,
    add_preload_files,
    set_preload_files,
    set_preload_modules,
    shutdown_zygote,
    zygote_pid,
)

PRELOADED = (
    "from collabsim.domain import tables\n"
    "print(tables.preloaded(open('artifacts.csv', 'rb').read()) is not None)"
)


@pytest.fixture()
def clean_preloads():
    """Each test starts and ends with no pre-loads and no zygote."""
    set_preload_files([])
    set_preload_modules([])
    shutdown_zygote()
    yield
    set_preload_files([])
    set_preload_modules([])
    shutdown_zygote()


@pytest.mark.parametrize(
    "change",
    [
        lambda csv: set_preload_files([csv]),
        lambda csv: set_preload_modules(["colorsys"]),
    ],
    ids=["files", "modules"],
)
def test_a_replaced_zygote_keeps_serving_its_running_workers(
    task_csv: Path, clean_preloads: None, change: Callable[[Path], None]
) -> None:
    with Sandbox([task_csv], FAST) as first:
        assert first.execute("x = 41").status == "ok"
        old_zygote, worker = zygote_pid(), first.pid
        change(task_csv)
        with Sandbox([task_csv], FAST) as second:  # forked by a new zygote
            assert zygote_pid() not in (None, old_zygote)
            assert second.execute("print('new')").output.strip() == "new"
        result = first.execute("print(x + 1)")
        assert (result.status, result.output.strip()) == ("ok", "42"), result.error
        assert first.pid == worker and state_of(old_zygote) not in (None, "Z")
    assert gone(old_zygote)  # closed with its last worker


def test_added_files_are_preloaded_in_place(task_csv: Path, clean_preloads: None) -> None:
    with Sandbox([task_csv], FAST) as first:
        result = first.execute("x = 1\n" + PRELOADED)
        assert result.output.strip() == "False", result.error
        zygote = zygote_pid()
        add_preload_files([task_csv])
        add_preload_files([str(task_csv)])  # already pre-loaded: nothing to do
        assert zygote_pid() == zygote  # parsed by the running zygote, not a new one
        with Sandbox([task_csv], FAST) as second:
            assert second.execute(PRELOADED).output.strip() == "True"
            assert zygote_pid() == zygote
        assert first.execute("print(x)").output.strip() == "1"  # the old worker is untouched


def test_files_added_before_the_zygote_starts_are_preloaded_at_start(
    task_csv: Path, clean_preloads: None
) -> None:
    add_preload_files([task_csv])
    with Sandbox([task_csv], FAST) as box:
        assert box.execute(PRELOADED).output.strip() == "True"
