"""Codebooks: the label <-> code pairs a column description spells out.

Survey data store group values as codes and say what each code means in the column's
description: "Respondent's racial/ethnic cohort, contains one of three values 1:BLACK,
2:HISPANIC, 3:NON-BLACK NON-HISPANIC", "Sex of the respondent, 1:MALE or 2:FEMALE",
"(1 = yes, 0 = no)". :func:`codes_of` reads those pairs: a code (an integer, or a short
upper-case token) followed by ``:`` or ``=`` and a label running to the next pair, comma,
semicolon, closing bracket, "or"/"and" or the end. A description without such pairs has no
codebook (an empty mapping). "equals 1 if ..." is a definition, not a code list, and is not
read.
"""

from __future__ import annotations

import re

_PAIR = re.compile(
    r"(?<![\w.])(?P<code>-?\d{1,4}|[A-Z]{1,3})\s*[:=]\s*"
    r"(?P<label>[A-Za-z][A-Za-z'/ -]*?[A-Za-z])"
    r"(?=\s*(?:[,;)\]]|\bor\b|\band\b|(?<![\w.])-?\d{1,4}\s*[:=]|$))",
)


def codes_of(description: str) -> dict[str, str]:
    """The description's code -> label pairs (codes as written, labels stripped).

    Args:
        description: A column description.

    Returns:
        Code -> label; empty when the description lists fewer than two pairs (a single
        "x = y" is a formula or a definition, not a codebook).
    """
    pairs = {m.group("code"): " ".join(m.group("label").split())
             for m in _PAIR.finditer(description or "")}
    return pairs if len(pairs) >= 2 else {}
