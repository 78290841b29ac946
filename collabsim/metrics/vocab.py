"""Variables and relations mentioned in hypotheses: synonym tables and extractors.

Variables are mapped to *canonical* names. For the archaeology data the canonical name is
the ``time_series_data.csv`` column (``Dagger``, ``AxesCelts``, ``MonumentCount``...), plus
``Growth`` (``pollen_grate_100``), ``Openness`` (pollen openness scores), ``PC1``/``PC2`` and
the four capital groups (``SymbolicCapital``...). Any other task column becomes its own
canonical name (``_inter`` suffix dropped) and is matched by its exact name, its humanised
name (``MonumentCount`` -> "monument count") and the object of its description
("Z values for Daggers" -> "daggers").

Relations are tags: ``extreme`` (peak, highest, most frequent, greatest...), ``trough``
(lowest, minimum), ``increase``, ``decrease``, ``sustained``, ``simultaneous``,
``opposite``, ``positive``, ``negative``, ``outlier``, ``high``, ``low``; plus an ordinal
(1 = "for the first time", 2 = "second"...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from collabsim.tasks.model import DatasetInfo

#: Canonical variable -> regular expressions (matched case-insensitively on word bounds).
VARIABLE_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "HatchetSword": (r"hatchets?\s*(?:&|and|/|,)?\s*swords?", r"hatchets?", r"swords?",
                     r"ZAxtSchwert"),
    "Dagger": (r"daggers?", r"ZDolch"),
    "HouseSize": (r"house\s*sizes?", r"sizes?\s+of\s+(?:the\s+)?houses?", r"houses?",
                  r"Zhausgr"),
    "CopperGold": (r"copper\s*(?:&|and|/)?\s*gold", r"copper", r"gold", r"ZCU_AU"),
    "Amber": (r"amber", r"Zamber"),
    "MonumentSize": (r"monument\s*sizes?", r"sizes?\s+of\s+(?:the\s+)?monuments?", r"ZMW"),
    "MonumentCount": (r"monuments?\s*counts?", r"(?:number|count)\s+of\s+monuments?",
                      r"monuments?", r"ZMonument"),
    "Depot": (r"depots?", r"hoards?", r"ZHort"),
    "Sickle": (r"sickles?", r"ZSichel"),
    "AxesCelts": (r"axes\s*(?:&|and|/)?\s*celts?", r"axes", r"axe", r"celts?", r"ZBeil"),
    "PotteryForm": (r"(?:pottery|ceramic)\s+forms?", r"forms?\s+of\s+(?:the\s+)?(?:pottery|ceramics?)",
                    r"ZKeform"),
    "PotteryDecoration": (r"(?:pottery|ceramic)\s+decorations?",
                          r"decorations?\s+of\s+(?:the\s+)?(?:pottery|ceramics?)", r"Zkeverz"),
    "Growth": (r"(?:smoothed\s+)?growth(?:\s+rates?)?(?!\s+trends?)", r"pollen_grate_100", r"grate"),
    "Openness": (r"(?:landscape\s+)?openness(?:\s+scores?)?", r"pollen", r"woodland\s+clearance"),
    "PC1": (r"PC\s?1", r"first\s+principal\s+component"),
    "PC2": (r"PC\s?2", r"second\s+principal\s+component"),
    "SymbolicCapital": (r"symbolic\s+capital",),
    "SocialCapital": (r"social\s+capital",),
    "CulturalCapital": (r"cultural\s+capital",),
    "EconomicCapital": (r"economic\s+capital",),
}

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

#: Relation tag -> regular expressions.
RELATION_PATTERNS: Mapping[str, tuple[str, ...]] = {
    "extreme": (r"peak\w*", r"highest", r"higest", r"maxim\w*", r"max", r"most\s+frequent",
                r"most", r"all[- ]time\s+high", r"greatest", r"largest", r"steepest",
                r"strongest", r"culminat\w*", r"top"),
    "trough": (r"lowest", r"minim\w*", r"trough", r"bottom\w*"),
    "increase": (r"increas\w*", r"ris(?:e|es|ing)", r"rose", r"grow(?:s|ing|n)?", r"gain\w*",
                 r"expan\w*", r"climb\w*", r"surg\w*", r"upturn", r"boom\w*",
                 r"more\s+(?:important|common|frequent|numerous|abundant|prevalent)",
                 r"(?:grew|gained?)\s+in\s+importance"),
    "decrease": (r"decreas\w*", r"declin\w*", r"drop\w*", r"fall(?:s|ing)?", r"fell",
                 r"dips?", r"dipp\w*", r"collaps\w*", r"reduc\w*", r"shrink\w*", r"shrank",
                 r"diminish\w*", r"downturn", r"stoop\w*", r"los(?:e|es|s)",
                 r"less\s+(?:important|common|frequent|numerous|abundant|prevalent)"),
    "sustained": (r"sustain\w*", r"plateau\w*", r"stabl\w*", r"remain\w*", r"consistent\w*",
                  r"persist\w*", r"steady", r"constant", r"low\s+fluctuation"),
    "simultaneous": (r"simultan\w*", r"at\s+the\s+same\s+time", r"concurrent\w*",
                     r"along\s+with", r"together\s+with", r"in\s+parallel", r"while"),
    "opposite": (r"opposite\w*", r"diametrically", r"oppos\w*", r"diverg\w*", r"contrast\w*",
                 r"inverse\w*"),
    "positive": (r"positive",),
    "negative": (r"negative",),
    "outlier": (r"outliers?", r"deviat\w*", r"exception\w*", r"anomal\w*"),
    "high": (r"high", r"large", r"many", r"abundan\w*"),
    "low": (r"low", r"few", r"scarce", r"small"),
}
#: Tags that only qualify others; ``simultaneous`` is also implied by two variables moving.
_ORDINALS: Mapping[str, int] = {
    r"first": 1, r"initial(?:ly)?": 1, r"second": 2, r"third": 3, r"fourth": 4,
}
_DIRECTIONS = ("increase", "decrease")
_CLAUSE_SPLIT = re.compile(r"[,;.:]|\bwhile\b|\bwhereas\b|\bbut\b|\bhowever\b", re.IGNORECASE)


def _word(pattern: str) -> str:
    return r"(?<![A-Za-z0-9_])(?:" + pattern + r")(?![A-Za-z0-9_])"


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


def canonical_column(column: str) -> str:
    """Canonical variable of a data column (``Dagger_inter`` -> ``Dagger``)."""
    if column in COLUMN_CANONICAL:
        return COLUMN_CANONICAL[column]
    base = re.sub(r"_inter$", "", column)
    return COLUMN_CANONICAL.get(base, base)


@dataclass(frozen=True)
class VariableLexicon:
    """Compiled variable patterns: ``(regex, canonical)`` pairs, longest patterns first."""

    patterns: tuple[tuple[re.Pattern[str], str], ...]

    @classmethod
    def build(cls, datasets: Sequence[DatasetInfo] = ()) -> VariableLexicon:
        """Build a lexicon from the synonym table plus a task's columns and descriptions."""
        pairs: list[tuple[str, str]] = [
            (p, canon) for canon, pats in VARIABLE_SYNONYMS.items() for p in pats
        ]
        pairs += [(re.escape(col), canon) for col, canon in COLUMN_CANONICAL.items()]
        pairs += [(re.escape(canon) + r"(?:_inter)?", canon) for canon in VARIABLE_SYNONYMS
                  if canon not in VARIABLE_GROUPS and canon not in ("Growth", "Openness")]
        for ds in datasets:
            for col in ds.columns:
                if col.name in _NOT_VARIABLES or not col.name.strip():
                    continue
                canon = canonical_column(col.name)
                pairs.append((re.escape(col.name), canon))
                human = _humanise(col.name)
                if human and canon not in VARIABLE_SYNONYMS:
                    pairs.append((human, canon))
                obj = _description_object(col.description)
                if obj and canon not in VARIABLE_SYNONYMS:
                    pairs.append((obj, canon))
        seen: set[tuple[str, str]] = set()
        compiled: list[tuple[re.Pattern[str], str]] = []
        for pat, canon in pairs:
            if (pat, canon) in seen:
                continue
            seen.add((pat, canon))
            compiled.append((re.compile(_word(pat), re.IGNORECASE), canon))
        return cls(tuple(compiled))

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping variable mentions ``(start, end, canonical)``; longest match wins."""
        hits = [(m.start(), m.end(), canon) for pat, canon in self.patterns
                for m in pat.finditer(text)]
        hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
        taken: list[tuple[int, int, str]] = []
        for h in hits:
            if all(h[1] <= t[0] or h[0] >= t[1] for t in taken):
                taken.append(h)
        return sorted(taken)

    def variables(self, text: str) -> set[str]:
        """Canonical variables mentioned in a text."""
        return {canon for _, _, canon in self.find(text)}


_RELATION_RE: Mapping[str, re.Pattern[str]] = {
    tag: re.compile("|".join(_word(p) for p in pats), re.IGNORECASE)
    for tag, pats in RELATION_PATTERNS.items()
}
_ORDINAL_RE = [(re.compile(_word(p), re.IGNORECASE), n) for p, n in _ORDINALS.items()]
_NOT_ORDINAL = re.compile(r"first\s+principal|second\s+principal|first\s+and\s+second|"
                          r"PC\s?[12]", re.IGNORECASE)


_NEGATED = re.compile(r"\b(?:not|no|never|without|n't)\b(?:\s+[\w-]+){0,4}", re.IGNORECASE)


def relation_tags(text: str) -> set[str]:
    """Relation tags of a text (see module docstring); negated phrases are dropped."""
    clean = _NOT_ORDINAL.sub(" ", _NEGATED.sub(" ", text))
    clean = re.sub(r"growth(\s+rates?)?", " ", clean, flags=re.IGNORECASE)
    return {tag for tag, pat in _RELATION_RE.items() if pat.search(clean)}


def ordinal(text: str) -> int | None:
    """The ordinal of an event ("for the first time" -> 1), ignoring PC names."""
    clean = _NOT_ORDINAL.sub(" ", text)
    found = [n for pat, n in _ORDINAL_RE if pat.search(clean)]
    return min(found) if found else None


def variable_directions(text: str, lexicon: VariableLexicon) -> dict[str, set[str]]:
    """Direction(s) (increase/decrease) attached to each variable, clause by clause.

    A clause is a piece of the text between commas, semicolons, full stops, "while",
    "whereas", "but" and "however". A variable gets the directions of the clauses it appears
    in when such a clause has exactly one direction.
    """
    out: dict[str, set[str]] = {}
    for clause in _CLAUSE_SPLIT.split(text):
        tags = relation_tags(clause) & set(_DIRECTIONS)
        if len(tags) != 1:
            continue
        for var in lexicon.variables(clause):
            out.setdefault(var, set()).update(tags)
    return out


def variables_match(a: str, b: str) -> bool:
    """True when two canonical variables are equal or one is a group holding the other."""
    return (
        a == b
        or b in VARIABLE_GROUPS.get(a, frozenset())
        or a in VARIABLE_GROUPS.get(b, frozenset())
    )


def variable_f1(claim: Iterable[str], gold: Iterable[str]) -> tuple[float, float, float]:
    """Precision, recall and F1 of claim variables against gold variables.

    Matching uses :func:`variables_match` (a capital group matches its members). A gold with
    no variables leaves the score unconstrained (1.0); a claim with none scores 0.

    Returns:
        ``(precision, recall, f1)``.
    """
    c, g = set(claim), set(gold)
    if not g:
        return 1.0, 1.0, 1.0
    if not c:
        return 0.0, 0.0, 0.0
    recall = sum(any(variables_match(x, y) for x in c) for y in g) / len(g)
    precision = sum(any(variables_match(x, y) for y in g) for x in c) / len(c)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1
