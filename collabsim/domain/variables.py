"""The variable vocabulary: one table for the generator, the participants and the judge.

Every variable of the archaeology data has one :class:`Variable` record: its column stem
(``Dagger``; the gap-filled variant is ``Dagger_inter``), its canonical name for comparing
hypotheses (the stem, except ``Growth`` for the ``pollen_grate`` series), the noun phrases
queries and hypotheses use, the column description of generated metadata and the synonym
patterns that recognise a mention in free text. The generator words queries with the
phrases; the scripted participants and the judge both read text with the synonyms.

Besides the proxies and growth the judge knows ``Openness`` (pollen openness scores),
``PC1``/``PC2`` and the four capital groups (``SymbolicCapital``...). Any other task column
becomes its own canonical name (``_inter`` suffix dropped) and is matched by its exact name,
its humanised name (``MonumentCount`` -> "monument count") and the object of its description
("Z values for Daggers" -> "daggers"); see :class:`VariableLexicon`.
"""

from __future__ import annotations

import re
import re._parser as _sre_parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Variable:
    """One variable of the domain.

    Attributes:
        key: Column stem (``"Dagger"``); the interpolated variant is ``<key>_inter``.
        canonical: Name hypotheses are compared by (``key`` except for growth).
        phrases: Noun phrases naming it in queries/hypotheses (first = default); empty for
            variables the generator never words.
        description: Column description used in generated metadata.
        synonyms: Regular expressions recognising a mention (case-insensitive, whole words).
        count_like: True when "most frequent" wording makes sense.
        proxy: True for the proxy series of the time-series data (and generated suites).
    """

    key: str
    canonical: str
    phrases: tuple[str, ...]
    description: str
    synonyms: tuple[str, ...]
    count_like: bool = True
    proxy: bool = False

    def matcher(self) -> re.Pattern[str]:
        """Compiled pattern matching any synonym as a whole word."""
        return re.compile("|".join(word(p) for p in self.synonyms), re.IGNORECASE)


def word(pattern: str) -> str:
    """Wrap a pattern so it only matches whole words (``_`` and digits count as letters)."""
    return r"(?<![A-Za-z0-9_])(?:" + pattern + r")(?![A-Za-z0-9_])"


def _proxy(key: str, phrases: tuple[str, ...], description: str, synonyms: tuple[str, ...],
           count_like: bool = True) -> Variable:
    return Variable(key, key, phrases, description, synonyms, count_like, proxy=True)


def _other(canonical: str, synonyms: tuple[str, ...]) -> Variable:
    return Variable(canonical, canonical, (), "", synonyms, count_like=False)


PROXIES: tuple[Variable, ...] = (
    _proxy("HatchetSword", ("hatchets and swords", "the number of hatchets and swords"),
           "Z values for Hatchets and Swords",
           (r"hatchets?\s*(?:&|and|/|,)?\s*swords?", r"hatchets?", r"swords?", r"ZAxtSchwert")),
    _proxy("Dagger", ("the number of daggers", "daggers", "dagger finds"),
           "Z values for Daggers", (r"daggers?", r"ZDolch")),
    _proxy("HouseSize", ("house size", "the size of houses", "house sizes"),
           "Z values for House Size in meter squared",
           (r"house\s*sizes?", r"sizes?\s+of\s+(?:the\s+)?houses?", r"houses?", r"Zhausgr"),
           count_like=False),
    _proxy("CopperGold", ("copper and gold", "copper & gold finds"),
           "Z values for Copper and Gold",
           (r"copper\s*(?:&|and|/)?\s*gold", r"copper", r"gold", r"ZCU_AU")),
    _proxy("Amber", ("amber", "amber finds"), "Z values for Amber", (r"amber", r"Zamber")),
    _proxy("MonumentCount", ("the monument count", "the number of monuments"),
           "Z values for Monument Count",
           (r"monuments?\s*counts?", r"(?:number|count)\s+of\s+monuments?", r"monuments?",
            r"ZMonument")),
    _proxy("Depot", ("depots", "the number of depots", "hoards"), "Z values for Depot",
           (r"depots?", r"hoards?", r"ZHort")),
    _proxy("Sickle", ("sickles", "the number of sickles"), "Z values for Sickle",
           (r"sickles?", r"ZSichel")),
    _proxy("AxesCelts", ("axes and celts", "axes & celts", "the axes"),
           "Z values for Axes and Celts",
           (r"axes\s*(?:&|and|/)?\s*celts?", r"axes", r"axe", r"celts?", r"ZBeil")),
    _proxy("MonumentSize", ("monument size", "the size of monuments"),
           "Z values for Monument Size",
           (r"monument\s*sizes?", r"sizes?\s+of\s+(?:the\s+)?monuments?", r"ZMW"),
           count_like=False),
    _proxy("PotteryForm", ("diversity in pottery form", "the diversity of pottery forms"),
           "Z values for Pottery Form",
           (r"(?:pottery|ceramic)\s+forms?",
            r"forms?\s+of\s+(?:the\s+)?(?:pottery|ceramics?)", r"ZKeform"),
           count_like=False),
    _proxy("PotteryDecoration",
           ("diversity in pottery decoration", "the diversity of pottery decoration"),
           "Z values for Pottery Decoration",
           (r"(?:pottery|ceramic)\s+decorations?",
            r"decorations?\s+of\s+(?:the\s+)?(?:pottery|ceramics?)", r"Zkeverz"),
           count_like=False),
)

GROWTH = Variable(
    "pollen_grate", "Growth",
    ("the growth rate", "growth", "the growth rate of landscape openness"),
    "Growth rate of the landscape openness score in percent per century",
    (r"(?:smoothed\s+)?growth(?:\s+rates?)?(?!\s+trends?)", r"pollen_grate_100", r"grate"),
    count_like=False,
)

#: Every variable of the domain, in one table.
ALL_VARIABLES: tuple[Variable, ...] = (
    *PROXIES,
    GROWTH,
    _other("Openness", (r"(?:landscape\s+)?openness(?:\s+scores?)?", r"pollen",
                        r"woodland\s+clearance")),
    _other("PC1", (r"PC\s?1", r"first\s+principal\s+component")),
    _other("PC2", (r"PC\s?2", r"second\s+principal\s+component")),
    _other("SymbolicCapital", (r"symbolic\s+capital",)),
    _other("SocialCapital", (r"social\s+capital",)),
    _other("CulturalCapital", (r"cultural\s+capital",)),
    _other("EconomicCapital", (r"economic\s+capital",)),
)

#: Variables the generator words and the scripted analysis computes, by column stem.
VARIABLES: dict[str, Variable] = {v.key: v for v in (*PROXIES, GROWTH)}

#: Canonical variable -> synonym patterns (matched case-insensitively on word bounds).
VARIABLE_SYNONYMS: Mapping[str, tuple[str, ...]] = {v.canonical: v.synonyms
                                                    for v in ALL_VARIABLES}

#: Capital groups (domain knowledge of the archaeology tasks): group -> members.
VARIABLE_GROUPS: Mapping[str, frozenset[str]] = {
    "SymbolicCapital": frozenset({"HatchetSword", "Dagger", "HouseSize"}),
    "SocialCapital": frozenset({"CopperGold", "Amber", "MonumentCount"}),
    "CulturalCapital": frozenset({"PotteryForm", "PotteryDecoration"}),
    "EconomicCapital": frozenset({"Depot", "Sickle", "AxesCelts", "MonumentSize"}),
}

#: Known data columns -> canonical variable.
COLUMN_CANONICAL: Mapping[str, str] = {
    "ZAxtSchwert": "HatchetSword", "ZDolch": "Dagger", "Zhausgr": "HouseSize",
    "ZCU_AU": "CopperGold", "Zamber": "Amber", "ZMonument": "MonumentCount", "ZHort": "Depot",
    "ZSichel": "Sickle", "ZBeil": "AxesCelts", "ZMW": "MonumentSize", "ZKeform": "PotteryForm",
    "Zkeverz": "PotteryDecoration", "pollen_grate_100": "Growth", "pollen_grate": "Growth", "pollen": "Openness",
    "pollen_inter": "Openness", "pollen_inter_100": "Openness", "pollen_detrend": "Openness",
    "Belau_PC1": "Openness", "Belau_PC1_inter": "Openness", "Woserin_PC1": "Openness",
    "Woserin_PC1_inter": "Openness", "MEAN": "Openness", "SMOOTH_MEAN_50y": "Openness",
    "SMOOTH_MEAN_100y": "Openness", "SMOOTH_MEAN_150y": "Openness",
    "SMOOTH_MEAN_200y": "Openness", "SMOOTH_MEAN_250y": "Openness",
}
_NOT_VARIABLES = frozenset({"CE", "BCE", "calBP", "Unnamed", "group", "color", "year", "Year"})

def _humanise(name: str) -> str | None:
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)
    words = [w.lower() for w in words if len(w) >= 2]
    if not words or any(ch.isdigit() for ch in name):
        return None
    return r"\s*".join(re.escape(w) for w in words) + r"s?"


def _description_object(description: str) -> str | None:
    m = re.search(r"(?:values?|counts?|number|frequency)\s+(?:for|of)\s+(.+?)\s*$",
                  description, re.IGNORECASE)
    if not m:
        return None
    phrase = re.sub(r"^(?:the|a)\s+", "", m.group(1).strip().lower())
    if not phrase or len(phrase) > 40:
        return None
    words = [re.escape(w) for w in phrase.split()]
    return r"\s+".join(words) + r"s?"


class _Column(Protocol):
    name: str
    description: str


class _Dataset(Protocol):
    columns: Sequence[_Column]


#: Dating variants a series may come in besides the standard one (generated suites:
#: ``Dagger_recal_inter`` is the gap-filled daggers series on recalibrated dates,
#: ``Dagger_model_inter`` on the Bayesian site model's dates; see
#: :mod:`collabsim.tasks.generator`). Which variant is valid is a data convention of the task.
COLUMN_VARIANTS: tuple[str, ...] = ("recal", "model")
#: The suffix of a gap-filled series: ``Dagger_inter`` is ``Dagger`` with its missing bins
#: filled (DiscoveryBench archaeology and the generated suites name them so).
GAP_FILLED = "_inter"
_VARIANT_RE = re.compile(r"(?:_(?:" + "|".join(COLUMN_VARIANTS) + r"))?(?:"
                         + re.escape(GAP_FILLED) + r")?$")


def is_gap_filled(column: str) -> bool:
    """Whether a column holds a gap-filled series (``Dagger_inter``, ``Dagger_recal_inter``)."""
    return column.endswith(GAP_FILLED)


def gap_filled_column(column: str) -> str:
    """The gap-filled variant's name of a raw column (``Dagger`` -> ``Dagger_inter``)."""
    return column + GAP_FILLED


def raw_column(column: str) -> str:
    """The raw column a gap-filled one fills (``Dagger_inter`` -> ``Dagger``; a raw column
    is returned as it is)."""
    return column.removesuffix(GAP_FILLED)


def column_stem(column: str) -> str:
    """The series a column holds, without its gap-filling and dating variant suffixes
    (``Dagger_recal_inter`` -> ``Dagger``, ``Dagger_inter`` -> ``Dagger``)."""
    return _VARIANT_RE.sub("", column, count=1) or column


def canonical_column(column: str) -> str:
    """Canonical variable of a data column (``Dagger_inter`` -> ``Dagger``)."""
    if column in COLUMN_CANONICAL:
        return COLUMN_CANONICAL[column]
    base = column_stem(column)
    return COLUMN_CANONICAL.get(base, base)


_FIND_CACHE_SIZE = 4096


def _required_literal(pattern: re.Pattern[str]) -> str | None:
    """Longest lower-case ASCII literal every match of ``pattern`` must contain, if any.

    Items of a regex sequence are all mandatory, so a run of plain characters at the top
    level (or inside a group at the top level) appears in every match. Non-ASCII characters
    end a run: under IGNORECASE some of them match ASCII letters (the Kelvin sign matches
    ``k``), so only ASCII runs allow a plain substring test.
    """
    runs: list[str] = []

    def walk(items: object) -> None:
        run: list[str] = []
        for op, arg in items:  # type: ignore[attr-defined]
            if op is _sre_parse.LITERAL and arg < 128:
                run.append(chr(arg).lower())
                continue
            runs.append("".join(run))
            run = []
            if op is _sre_parse.SUBPATTERN:
                walk(arg[-1])
        runs.append("".join(run))

    walk(_sre_parse.parse(pattern.pattern, pattern.flags))
    best = max(runs, key=len, default="")
    return best or None


@dataclass(frozen=True)
class VariableLexicon:
    """Compiled variable patterns: ``(regex, canonical)`` pairs, longest patterns first."""

    patterns: tuple[tuple[re.Pattern[str], str], ...]
    # A pattern whose required literal is absent from an ASCII text cannot match it, so
    # find() skips it; results of recent texts are kept because the metrics read the same
    # hypothesis and code texts many times.
    _needles: tuple[str | None, ...] = field(init=False, repr=False, compare=False)
    _cache: dict[str, tuple[tuple[int, int, str], ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        needles = tuple(
            _required_literal(pat) if pat.flags & re.IGNORECASE else None
            for pat, _ in self.patterns
        )
        object.__setattr__(self, "_needles", needles)

    @classmethod
    def build(cls, datasets: Sequence[_Dataset] = ()) -> VariableLexicon:
        """Build a lexicon from the synonym table plus a task's columns and descriptions.

        Lexicons are pure functions of the columns' names and descriptions, so one is
        built per distinct set of columns and shared.
        """
        key = tuple(tuple((col.name, col.description) for col in ds.columns)
                    for ds in datasets)
        return _build_lexicon(key)

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping variable mentions ``(start, end, canonical)``; longest match wins."""
        found = self._cache.get(text)
        if found is None:
            found = self._find(text)
            if len(self._cache) >= _FIND_CACHE_SIZE:
                self._cache.clear()
            self._cache[text] = found
        return list(found)

    def _find(self, text: str) -> tuple[tuple[int, int, str], ...]:
        low = text.lower() if text.isascii() else None
        hits = [(m.start(), m.end(), canon)
                for (pat, canon), needle in zip(self.patterns, self._needles, strict=True)
                if low is None or needle is None or needle in low
                for m in pat.finditer(text)]
        hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
        taken: list[tuple[int, int, str]] = []
        for h in hits:
            if all(h[1] <= t[0] or h[0] >= t[1] for t in taken):
                taken.append(h)
        return tuple(sorted(taken))

    def variables(self, text: str) -> set[str]:
        """Canonical variables mentioned in a text."""
        return {canon for _, _, canon in self.find(text)}


def _build_lexicon(columns: tuple[tuple[tuple[str, str], ...], ...]) -> VariableLexicon:
    cached = _LEXICONS.get(columns)
    if cached is not None:
        return cached
    pairs: list[tuple[str, str]] = [
        (p, canon) for canon, pats in VARIABLE_SYNONYMS.items() for p in pats
    ]
    pairs += [(re.escape(col), canon) for col, canon in COLUMN_CANONICAL.items()]
    pairs += [(re.escape(canon) + r"(?:_inter)?", canon) for canon in VARIABLE_SYNONYMS
              if canon not in VARIABLE_GROUPS and canon not in ("Growth", "Openness")]
    for ds in columns:
        for name, description in ds:
            if name in _NOT_VARIABLES or not name.strip():
                continue
            canon = canonical_column(name)
            pairs.append((re.escape(name), canon))
            human = _humanise(name)
            if human and canon not in VARIABLE_SYNONYMS:
                pairs.append((human, canon))
            obj = _description_object(description)
            if obj and canon not in VARIABLE_SYNONYMS:
                pairs.append((obj, canon))
    seen: set[tuple[str, str]] = set()
    compiled: list[tuple[re.Pattern[str], str]] = []
    for pat, canon in pairs:
        if (pat, canon) in seen:
            continue
        seen.add((pat, canon))
        compiled.append((re.compile(word(pat), re.IGNORECASE), canon))
    lexicon = VariableLexicon(tuple(compiled))
    if len(_LEXICONS) >= _FIND_CACHE_SIZE:
        _LEXICONS.clear()
    _LEXICONS[columns] = lexicon
    return lexicon


_LEXICONS: dict[tuple[tuple[tuple[str, str], ...], ...], VariableLexicon] = {}


def variables_match(a: str, b: str) -> bool:
    """True when two canonical variables are equal or one is a group holding the other."""
    return (
        a == b
        or b in VARIABLE_GROUPS.get(a, frozenset())
        or a in VARIABLE_GROUPS.get(b, frozenset())
    )


_WORDED_LEXICON = VariableLexicon(tuple(
    (re.compile(word(p), re.IGNORECASE), v.key) for v in VARIABLES.values() for p in v.synonyms
))


def variable_mentions(text: str) -> list[tuple[int, int, str]]:
    """Mentions ``(start, end, key)`` of the generator's variables (proxies and growth), by
    position; overlapping mentions keep the longest. Keys are column stems."""
    return _WORDED_LEXICON.find(text)
