"""Relation words: how texts say that something rises, falls, peaks, lasts or co-occurs.

One tag table (:data:`RELATION_PATTERNS`) serves everyone: the judge and the process
metrics read a text's tags (:func:`relation_tags`), the scripted analysis reads a query's
direction words with :data:`INCREASE_RE` / :data:`DECREASE_RE` (the ``increase`` and
``decrease`` tags), and the researcher's wording check uses the same two.

Tags: ``extreme`` (peak, highest, most frequent, greatest...), ``trough`` (lowest, minimum),
``increase``, ``decrease``, ``sustained``, ``simultaneous``, ``opposite``, ``positive``,
``negative``, ``outlier``, ``high``, ``low``; plus an ordinal (1 = "for the first time",
2 = "second"...).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from collabsim.domain.variables import VariableLexicon, word

#: Relation tag -> regular expressions (whole words, case-insensitive).
RELATION_PATTERNS: Mapping[str, tuple[str, ...]] = {
    "extreme": (r"peak\w*", r"highest", r"higest", r"maxim\w*", r"max", r"most\s+frequent",
                r"most", r"all[- ]time\s+high", r"greatest", r"largest", r"steepest",
                r"strongest", r"culminat\w*", r"top"),
    "trough": (r"lowest", r"minim\w*", r"trough", r"bottom\w*"),
    "increase": (r"increas\w*", r"ris(?:e|es|ing)", r"rose", r"grew", r"grow(?:s|ing|n)?",
                 r"gain\w*", r"expan\w*", r"climb\w*", r"surg\w*", r"upturn", r"boom\w*",
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
#: Compiled tag patterns.
RELATION_RE: Mapping[str, re.Pattern[str]] = {
    tag: re.compile("|".join(word(p) for p in pats), re.IGNORECASE)
    for tag, pats in RELATION_PATTERNS.items()
}
INCREASE_RE = RELATION_RE["increase"]
DECREASE_RE = RELATION_RE["decrease"]

#: Ordinal number -> word, as written in queries and hypotheses.
ORDINAL_WORDS: Mapping[int, str] = {1: "first", 2: "second", 3: "third", 4: "fourth"}
_ORDINALS: Mapping[str, int] = {
    r"first": 1, r"initial(?:ly)?": 1, r"second": 2, r"third": 3, r"fourth": 4,
}
_ORDINAL_RE = [(re.compile(word(p), re.IGNORECASE), n) for p, n in _ORDINALS.items()]
_NOT_ORDINAL = re.compile(r"first\s+principal|second\s+principal|first\s+and\s+second|"
                          r"PC\s?[12]", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|no|never|without|n't)\b(?:\s+[\w-]+){0,4}", re.IGNORECASE)
_GROWTH = re.compile(r"growth(\s+rates?)?", re.IGNORECASE)
_DIRECTIONS = ("increase", "decrease")
_CLAUSE_SPLIT = re.compile(r"[,;.:]|\bwhile\b|\bwhereas\b|\bbut\b|\bhowever\b", re.IGNORECASE)
_OCCURRENCE_RE = re.compile(
    rf"\b({'|'.join(ORDINAL_WORDS.values())})\s+(?:time|occurrence|instance)", re.IGNORECASE
)


def relation_tags(text: str) -> set[str]:
    """Relation tags of a text (see module docstring); negated phrases are dropped."""
    return set(_relation_tags(text))


# The judge, the process metrics and the scripted claims ask about the same few texts
# thousands of times in a grid.
@functools.lru_cache(maxsize=8192)
def _relation_tags(text: str) -> frozenset[str]:
    clean = _NOT_ORDINAL.sub(" ", _NEGATED.sub(" ", text))
    clean = _GROWTH.sub(" ", clean)
    return frozenset(tag for tag, pat in RELATION_RE.items() if pat.search(clean))


def ordinal(text: str) -> int | None:
    """The ordinal of an event ("for the first time" -> 1), ignoring PC names."""
    clean = _NOT_ORDINAL.sub(" ", text)
    found = [n for pat, n in _ORDINAL_RE if pat.search(clean)]
    return min(found) if found else None


def asked_occurrence(text: str) -> int:
    """Which occurrence a query asks for: ``"the second time"`` -> 2; 1 when none is named."""
    match = _OCCURRENCE_RE.search(text)
    if not match:
        return 1
    return {w: n for n, w in ORDINAL_WORDS.items()}[match.group(1).lower()]


def direction_words(text: str) -> list[tuple[int, str]]:
    """``(position, "up" | "down")`` of every increase/decrease word of a text, in order."""
    found = [(m.start(), "up") for m in INCREASE_RE.finditer(text)]
    found += [(m.start(), "down") for m in DECREASE_RE.finditer(text)]
    return sorted(found)


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
