"""LaTeX output: every text a table prints is escaped, so setting values cannot run TeX.

A swept setting's value (a guidance string, a task id, a model name) reaches the tables
verbatim. Written unescaped, ``\\input{/etc/hostname}`` or TeX's own hex notation ``^^5c`` (a
backslash) would be executed by pdflatex. :func:`escape` maps each of TeX's special characters
to its printed form, so no cell can open a command, a group, math, a parameter or a comment;
:func:`tabular` is the one booktabs table writer of the reports.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

_SPECIAL: dict[str, str] = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "Δ": r"$\Delta$",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))
# Line breaks would end a table row early; other control characters are not printable.
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def escape(text: object) -> str:
    """``text`` as LaTeX that prints it literally.

    Args:
        text: Any value (printed with ``str``).

    Returns:
        The text with TeX's special characters (``\\ { } $ & # ^ _ % ~``) replaced by their
        printed forms and control characters by spaces.
    """
    plain = _CONTROL_RE.sub(" ", str(text))
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group(0)], plain)


def tabular(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    text_columns: int,
    *,
    group_starts: Collection[int] = (),
    raw_header: Collection[int] = (),
) -> str:
    """A booktabs ``tabular`` with every cell escaped.

    Args:
        header: Column titles.
        rows: Table rows (cells as text).
        text_columns: Leading left-aligned columns; the rest are right-aligned.
        group_starts: Row indices before which a ``\\midrule`` separates a group (not row 0).
        raw_header: Indices of header titles that are already LaTeX (the project's own
            metric labels); every other title is escaped.

    Returns:
        The table, ending with a newline.
    """
    cols = "l" * text_columns + "r" * (len(header) - text_columns)
    titles = [h if i in raw_header else escape(h) for i, h in enumerate(header)]
    lines = [rf"\begin{{tabular}}{{{cols}}}", r"\toprule", " & ".join(titles) + r" \\",
             r"\midrule"]
    for i, row in enumerate(rows):
        if i and i in group_starts:
            lines.append(r"\midrule")
        lines.append(" & ".join(escape(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
