"""Archaeology-style variable vocabulary shared by the task generator and the scripted analysis.

Each proxy series of the archaeology time-series data (and of generated suites) has a column
stem (``Dagger``), noun phrases used in queries and hypotheses, and regular expressions that
recognise it in free text. The generator words its queries with these phrases; the scripted
analysis maps query text back to columns with the patterns (and falls back to column
descriptions for unknown data).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Variable:
    """One proxy series.

    Attributes:
        key: Column stem (``"Dagger"``); the interpolated variant is ``<key>_inter``.
        phrases: Noun phrases naming it in queries/hypotheses (first = default).
        description: Column description used in metadata (``"Z values for Daggers"``).
        pattern: Regular expression (lower-case text) recognising a mention.
        count_like: True when "most frequent" wording makes sense.
    """

    key: str
    phrases: tuple[str, ...]
    description: str
    pattern: str
    count_like: bool = True

    def matcher(self) -> re.Pattern[str]:
        """Compiled case-insensitive pattern."""
        return re.compile(self.pattern, re.IGNORECASE)


PROXIES: tuple[Variable, ...] = (
    Variable("HatchetSword", ("hatchets and swords", "the number of hatchets and swords"),
             "Z values for Hatchets and Swords", r"hatchets?(?: (?:and|&) swords?)?|swords?"),
    Variable("Dagger", ("the number of daggers", "daggers", "dagger finds"),
             "Z values for Daggers", r"daggers?"),
    Variable("HouseSize", ("house size", "the size of houses", "house sizes"),
             "Z values for House Size in meter squared",
             r"house ?sizes?|size of (?:the )?houses|houses?", count_like=False),
    Variable("CopperGold", ("copper and gold", "copper & gold finds"),
             "Z values for Copper and Gold", r"copper(?: (?:and|&) gold)?|gold"),
    Variable("Amber", ("amber", "amber finds"), "Z values for Amber", r"amber"),
    Variable("MonumentCount", ("the monument count", "the number of monuments"),
             "Z values for Monument Count",
             r"monuments? count|number of monuments|count of monuments|monument(?!s? size)s?(?! size)"),
    Variable("Depot", ("depots", "the number of depots", "hoards"),
             "Z values for Depot", r"depots?|hoards?"),
    Variable("Sickle", ("sickles", "the number of sickles"), "Z values for Sickle", r"sickles?"),
    Variable("AxesCelts", ("axes and celts", "axes & celts", "the axes"),
             "Z values for Axes and Celts", r"ax(?:e|es)\b(?: (?:and|&) celts?)?|celts?"),
    Variable("MonumentSize", ("monument size", "the size of monuments"),
             "Z values for Monument Size", r"monuments? sizes?|size of (?:the )?monuments",
             count_like=False),
    Variable("PotteryForm", ("diversity in pottery form", "the diversity of pottery forms"),
             "Z values for Pottery Form",
             r"(?:pottery|ceramic) forms?|forms? of (?:the )?(?:pottery|ceramics?)",
             count_like=False),
    Variable("PotteryDecoration",
             ("diversity in pottery decoration", "the diversity of pottery decoration"),
             "Z values for Pottery Decoration",
             r"(?:pottery|ceramic) decorations?|decorations? of (?:the )?(?:pottery|ceramics?)",
             count_like=False),
)

GROWTH = Variable(
    "pollen_grate",
    ("the growth rate", "growth", "the growth rate of landscape openness"),
    "Growth rate of the landscape openness score in percent per century",
    r"growth(?! trends?)",
    count_like=False,
)

VARIABLES: dict[str, Variable] = {v.key: v for v in (*PROXIES, GROWTH)}


def year_text(ce: int) -> str:
    """Render a CE year as text: ``-2300`` -> ``"2300 BCE"``, ``200`` -> ``"200 CE"``."""
    return f"{-ce} BCE" if ce < 0 else f"{ce} CE"
