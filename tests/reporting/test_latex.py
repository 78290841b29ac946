"""LaTeX tables print setting values literally: no cell can run a TeX command (issue 38.13)."""

from __future__ import annotations

import re

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from collabsim.reporting.latex import escape, tabular
from collabsim.reporting.tables import METRIC_COLUMNS, aggregate, format_table

# The only TeX the escaper itself writes: the printed forms of the special characters.
_OWN = re.compile(r"\\textbackslash\{\}|\\textasciicircum\{\}|\\textasciitilde\{\}"
                  r"|\$\\Delta\$|\\[{}$&#_%]")
_ACTIVE = set("\\{}$&#^_%~")
HOSTILE = [r"\input{/etc/hostname}", "^^5cinput{/etc/hostname}", r"\write18{ls}",
           "a%comment", "$x$", "&", "#1", "~", "line\nbreak", "tab\there", "\u2028x"]


@given(st.text())
def test_escaped_text_has_no_active_character_left(text: str) -> None:
    rest = _OWN.sub("", escape(text))
    assert not (_ACTIVE & set(rest)), rest
    assert not re.search(r"[\x00-\x1f\x7f\u2028\u2029]", rest)


def test_each_special_character_prints_as_itself() -> None:
    assert escape(r"\input{x}") == r"\textbackslash{}input\{x\}"
    assert escape("^^5c") == r"\textasciicircum{}\textasciicircum{}5c"
    assert escape("50% of a_b & c # d ~ $") == r"50\% of a\_b \& c \# d \textasciitilde{} \$"
    assert escape("Δ Performance") == r"$\Delta$ Performance"


def test_a_swept_setting_value_cannot_reach_tex_as_a_command() -> None:
    rows = []
    for i, value in enumerate(HOSTILE):
        rows += [("default", value, f"t{i}", 0, 1.0), ("default", value, f"t{i}", 1, 0.5)]
    df = pd.DataFrame(rows, columns=["structure", "team", "task_id", "seed", "Performance"])
    for m in METRIC_COLUMNS:
        if m not in df:
            df[m] = 1.0
    tex = format_table(aggregate(df), "latex")
    body = _OWN.sub("", tex)
    for command in (r"\input", r"\write18", "^^"):
        assert command not in body
    assert "%" not in body and "#" not in body and "~" not in body
    lines = tex.splitlines()
    assert len(lines) == 6 + len(HOSTILE), "a line break in a value must not end a row early"
    assert r"$H_\mathrm{init,norm}$" in lines[2], "the project's metric labels stay LaTeX"


def test_tabular_escapes_headers_except_labelled_ones() -> None:
    tex = tabular(["guidance_text", r"$C_\mathrm{wf}$"], [[r"\input{a}", "0.50 (0.10)"]], 1,
                  raw_header={1})
    assert r"guidance\_text & $C_\mathrm{wf}$ \\" in tex
    assert r"\textbackslash{}input\{a\} & 0.50 (0.10) \\" in tex
