"""Tables parsed in the sandbox's fork server read back exactly as a fresh parse."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from collabsim.domain import tables
from collabsim.domain.tables import preload_tables, read_table, table_from_bytes
from collabsim.sandbox import Sandbox, set_preload_files, shutdown_zygote


def test_a_preloaded_table_reads_as_an_equal_independent_copy(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tables, "_PRELOADED", {})
    path = tmp_path / "t.csv"
    path.write_text('CE;v\n-300;"1,5"\n-200;2,5\n', encoding="utf-8")
    fresh = read_table(path)
    preload_tables([str(path), str(tmp_path / "missing.csv"), str(tmp_path)])
    first = read_table(path)
    pd.testing.assert_frame_equal(first, fresh)
    first.loc[0, "v"] = 99.0
    pd.testing.assert_frame_equal(read_table(path), fresh)  # a caller's change stays its own
    path.write_text("CE,v\n1,2\n", encoding="utf-8")  # other bytes: parsed again
    assert list(read_table(path)["v"]) == [2]



def test_bytes_already_read_give_the_table_read_table_gives(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tables, "_PRELOADED", {})
    path = tmp_path / "t.csv"
    path.write_text('CE;v\n-300;"1,5"\n-200;2,5\n', encoding="utf-8")
    pd.testing.assert_frame_equal(table_from_bytes(path, path.read_bytes()), read_table(path))
    preload_tables([str(path)])
    copy = table_from_bytes(str(path), path.read_bytes())
    copy.loc[0, "v"] = 99.0  # a copy of the preloaded table, not the table itself
    assert read_table(path).loc[0, "v"] == 1.5


def test_sandbox_cells_see_the_same_table_with_and_without_preloading(tmp_path: Path) -> None:
    path = tmp_path / "series.csv"
    path.write_text("BCE,Dagger\n3000,1.5\n2900,\n2800,2.25\n", encoding="utf-8")
    cell = ("from collabsim.domain.analysis_helpers import read_table, table\n"
            "df = read_table('series.csv')\nprint(df.to_csv(), df.dtypes.to_dict())\n"
            "print(table('series.csv', df).to_csv())")
    outputs = []
    try:
        for files in ([], [str(path)]):
            set_preload_files(files)
            with Sandbox([path]) as box:
                result = box.execute(cell)
            assert result.status == "ok", result.error
            outputs.append(result.output)
    finally:
        set_preload_files([])
        shutdown_zygote()
    assert outputs[0] == outputs[1] and "Dagger" in outputs[0]


def test_a_prebinned_table_is_copied_only_for_the_unchanged_table(
        tmp_path: Path, monkeypatch) -> None:
    helpers, path, counted = _fresh_helpers(tmp_path, monkeypatch)
    expected = helpers.year_bins(read_table(path))
    preload_tables([str(path)])
    helpers.preload_binned([str(path), str(tmp_path / "missing.csv")])
    assert counted.calls == 2
    changed = read_table(path)
    changed.loc[1, "v"] = -0.0  # equal to 0.0, but prints differently: must be binned anew
    got = helpers.table(str(path), changed)
    assert str(got.loc[-200, "v"]) == "-0.0" and counted.calls == 3
    for given in (read_table(path), None):  # the file's own table, or none: a copy
        helpers.clear_tables()
        got = helpers.table(str(path), given)
        pd.testing.assert_frame_equal(got, expected)
        got.loc[-300, "v"] = 99.0  # a session's change stays its own
    assert counted.calls == 3


def _fresh_helpers(tmp_path: Path, monkeypatch):
    """analysis_helpers with empty table caches, a counted year_bins and a small data file."""
    from collabsim.domain import analysis_helpers as helpers

    monkeypatch.setattr(tables, "_PRELOADED", {})
    monkeypatch.setattr(helpers, "_PREBINNED", {})
    monkeypatch.setattr(helpers, "_TABLES", {})
    monkeypatch.setattr(helpers, "year_bins", counted := _Counted(helpers.year_bins))
    path = tmp_path / "t.csv"
    path.write_text("BCE,v\n300,1.5\n200,0.0\n100,2.5\n", encoding="utf-8")
    return helpers, path, counted


class _Counted:
    def __init__(self, fn) -> None:
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def test_a_reused_workers_next_session_copies_its_first_binned_table(
        tmp_path: Path, monkeypatch) -> None:
    helpers, path, counted = _fresh_helpers(tmp_path, monkeypatch)
    first = helpers.table(str(path))  # session 1 reads and bins the file
    expected = first.copy()
    first.loc[-300, "v"] = 99.0  # ... and changes its table in place
    assert counted.calls == 1
    helpers.clear_tables()  # the worker's reset between sessions
    second = helpers.table(str(path))  # session 2: a copy of the untouched table, no binning
    pd.testing.assert_frame_equal(second, expected)
    assert counted.calls == 1 and second is not first
    path.write_text("BCE,v\n300,7.0\n", encoding="utf-8")  # other bytes: binned anew
    helpers.clear_tables()
    assert helpers.table(str(path)).loc[-300, "v"] == 7.0 and counted.calls == 2
