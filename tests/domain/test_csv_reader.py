"""The one CSV reader: separators, decimal marks, encodings, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.domain.tables import TableReadError, csv_dialect, read_table


def test_semicolon_files_use_decimal_commas(tmp_path: Path) -> None:
    path = tmp_path / "semi.csv"
    path.write_text("year;value\n-2300;2,25\n-2200;-0,5\n", encoding="utf-8")
    df = read_table(path)
    assert list(df.columns) == ["year", "value"]
    assert df["value"].tolist() == [2.25, -0.5]


def test_tab_separated_csv_files_with_quoted_headers_are_read(tmp_path: Path) -> None:
    """R's write.table output saved as .csv: tabs between quoted names and values."""
    path = tmp_path / "trends.csv"
    path.write_text('"introduction.period"\t"pathway"\t"n"\n"Before 1500"\t"AgriForest"\t55\n'
                    '"1500-1800"\t"Garden, park"\t12\n', encoding="utf-8")
    df = read_table(path)
    assert list(df.columns) == ["introduction.period", "pathway", "n"]
    assert df["n"].tolist() == [55, 12]
    assert df["pathway"].tolist() == ["AgriForest", "Garden, park"]
    assert csv_dialect("a,b\tc,d\n") == (",", ".")


def test_quoted_decimal_commas_with_comma_separator(tmp_path: Path) -> None:
    path = tmp_path / "capital.csv"
    path.write_text('BCE,Zamber\n2300,"-0,44"\n2200,"1,5e-1"\n', encoding="utf-8")
    assert read_table(path)["Zamber"].tolist() == pytest.approx([-0.44, 0.15])
    assert csv_dialect('a,b\n1,"2,5"\n') == (",", ",")
    assert csv_dialect("a,b\n1,2.5\n") == (",", ".")


def test_cp1252_files_are_read(tmp_path: Path) -> None:
    path = tmp_path / "cafe.csv"
    path.write_bytes("name,visits\nCaf\xe9,3\n".encode("cp1252"))
    assert read_table(path)["name"].tolist() == ["Caf\u00e9"]


def test_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(TableReadError, match="missing.csv"):
        read_table(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text('a,b\n"unclosed,1\n', encoding="utf-8")
    with pytest.raises(TableReadError, match="cannot parse CSV"):
        read_table(bad)
