"""Matching the words of a query to a table's columns, by column names and descriptions.

DiscoveryBench queries name variables in words ("the rate of maximum body length
evolution", "economic recessions"), the metadata lists columns with a name (``MBL_evol``,
``economic_recession_occurred``) and a description ("Rates of Maximum Body Length
evolution"). This module finds which columns a text mentions and ranks the candidates for a
phrase; it also lists a column's *similar-sounding* alternatives (the columns a hurried
reader could take for it - the ``wrong_variable`` mistake of the simulated humans).

API (stable names):

* :func:`tokens` - the content words of a text, lower-cased and lightly stemmed;
* :class:`ColumnMatch` - a column, its score and the query words it matched;
* :func:`rank_columns(phrase, columns)` - candidates for a phrase, best first;
* :func:`best_column(phrase, columns)` - the best candidate or None;
* :func:`find_mentions(text, columns)` - the columns a text mentions, in order of mention
  (each query word is given to one column at most);
* :func:`similar_columns(column, columns)` - similar-sounding alternatives of a column;
* :func:`table_columns(info)` - the columns an analysis sees in one table: its columns, or
  for a *wide* table (one indicator, a column per year, as the World Bank files) its
  identifier columns, ``year`` and one value column named after the file
  (:func:`wide_value_name`) - the shape the stats cell melts it into.

``columns`` is any sequence of objects with ``name`` and ``description`` attributes
(:class:`collabsim.core.task.ColumnInfo`); nothing here imports another collabsim package.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from collabsim.domain.words import STOPWORDS as WORD_STOPWORDS
from collabsim.domain.words import stem


class ColumnLike(Protocol):
    """What this module reads of a column."""

    name: str
    description: str


#: Words of a statistical question that never identify a column (besides the function words
#: of :data:`collabsim.domain.words.STOPWORDS`): how the question frames a relation, a
#: degree or its significance.
QUERY_WORDS = frozenset({
    "affect", "affected", "affects", "associate", "associated", "association", "based",
    "certain", "column", "columns", "combination", "combined", "correlated", "correlation",
    "data", "dataset", "determine", "determining", "effect", "effects", "explain",
    "explained", "explaining", "factor", "factors", "general", "given", "impact", "impacts",
    "influence", "influenced", "influences", "kind", "least", "less", "level", "levels",
    "many", "more", "most", "much", "observe", "observed", "overall", "relate", "related",
    "relation", "relationship", "respective", "respectively", "show", "shows",
    "significant", "significantly", "specific", "statistical", "statistically", "type",
    "value", "values", "variable", "variables", "very",
})
#: Words that never identify a column.
STOPWORDS = WORD_STOPWORDS | QUERY_WORDS

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*|\d+(?:\.\d+)?")
_BREAK_RE = re.compile(r"[,;:()?]")
_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")

#: Bound of each memo of this module (words, texts, column signatures, column lists): the
#: functions are pure, so a memo only saves the recomputation for every session of a task.
CACHE_SIZE = 4096


def words(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, word)`` of each word of a text (names split at ``_`` and camel case)."""
    out: list[tuple[int, int, str]] = []
    for match in _WORD_RE.finditer(text.replace("_", " ")):
        start = match.start()
        for part in _CAMEL_RE.split(match.group()):
            out.append((start, start + len(part), part))
            start += len(part)
    return out


def tokens(text: str) -> list[str]:
    """The content words of a text, stemmed (stop words dropped)."""
    return list(_tokens(text))


@lru_cache(maxsize=CACHE_SIZE)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(stem(w) for _, _, w in words(text) if w.lower() not in STOPWORDS)


#: A column named by a year ("1975", "1975 [YR1975]"): wide tables have one per year.
YEAR_COLUMN_RE = re.compile(r"^\s*\d{4}(?:\s*\[YR\d{4}\])?\s*$")
#: How many year columns make a table wide.
WIDE_MIN_YEARS = 5


@dataclass(frozen=True)
class TableColumn:
    """A column of the long form of a wide table (``name``, ``description``)."""

    name: str
    description: str = ""


def wide_value_name(table_name: str) -> str:
    """The value column of a wide table after melting: the file name without extension."""
    return table_name.rsplit(".", 1)[0]


def is_wide(info: object) -> bool:
    """Whether a table has a column per year (at least :data:`WIDE_MIN_YEARS`)."""
    cols = getattr(info, "columns", ())
    return sum(1 for c in cols if YEAR_COLUMN_RE.match(c.name)) >= WIDE_MIN_YEARS


def table_columns(info: object) -> list[ColumnLike]:
    """The columns an analysis sees in a table (see module docstring)."""
    cols = list(getattr(info, "columns", ()))
    if not is_wide(info):
        return cols
    name = getattr(info, "name", "")
    keep: list[ColumnLike] = [c for c in cols if not YEAR_COLUMN_RE.match(c.name)]
    return [*keep, TableColumn("year", "The year of the observation"),
            TableColumn(wide_value_name(name), getattr(info, "description", "") or name)]


@dataclass(frozen=True)
class ColumnMatch:
    """A candidate column for a phrase.

    Attributes:
        column: The column name.
        score: How well it matches (higher is better; 0 = no common word).
        matched: The phrase's stems it matched.
    """

    column: str
    score: float
    matched: tuple[str, ...] = ()


def _signature(column: ColumnLike) -> tuple[frozenset[str], frozenset[str]]:
    """(stems of the name, stems of the description)."""
    return _signature_of(column.name, column.description or "")


@lru_cache(maxsize=CACHE_SIZE)
def _signature_of(name: str, description: str) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(_tokens(name)), frozenset(_tokens(description))


def _idf(columns: Sequence[ColumnLike]) -> dict[str, float]:
    """Inverse document frequency of each stem over the columns' names and descriptions
    (read-only: the dict is shared by every call with the same names and descriptions)."""
    return _idf_of(tuple((c.name, c.description or "") for c in columns))


@lru_cache(maxsize=256)
def _idf_of(columns: tuple[tuple[str, str], ...]) -> dict[str, float]:
    counts: dict[str, int] = {}
    for name_text, desc_text in columns:
        name, desc = _signature_of(name_text, desc_text)
        for s in name | desc:
            counts[s] = counts.get(s, 0) + 1
    n = max(len(columns), 1)
    return {s: math.log(1.0 + n / c) for s, c in counts.items()}


def _score(stems: Sequence[str], column: ColumnLike, idf: dict[str, float]
           ) -> tuple[float, tuple[str, ...]]:
    """Score of a column for phrase stems: name words count fully, description words 0.6;
    the share of the column name's words the phrase covers adds a bonus."""
    name, desc = _signature(column)
    # a word that starts a run-together name ("same" of SAMESAVE) counts half
    prefix = {s for s in stems if len(s) >= 4 and s not in name
              and any(n.startswith(s) and len(n) > len(s) + 2 for n in name)}
    matched = tuple(dict.fromkeys(s for s in stems if s in name or s in desc or s in prefix))
    if not matched:
        return 0.0, ()
    score = sum(idf.get(s, 1.0) * (1.0 if s in name else 0.6 if s in desc else 0.5)
                for s in matched)
    if name:
        score *= 1.0 + len(name & set(matched)) / len(name)
    return score, matched


def rank_columns(phrase: str, columns: Sequence[ColumnLike]) -> list[ColumnMatch]:
    """The columns matching a phrase, best first (columns sharing no word are left out; ties
    keep the columns' order). A phrase naming a column exactly ranks it first."""
    idf = _idf(columns)
    stems = tokens(phrase)
    exact = {c.name for c in columns if _exact(c.name, phrase)}
    out = []
    for column in columns:
        score, matched = _score(stems, column, idf)
        if column.name in exact:
            score += 100.0
        if score > 0:
            out.append(ColumnMatch(column.name, round(score, 6), matched))
    return sorted(out, key=lambda m: -m.score)


def best_column(phrase: str, columns: Sequence[ColumnLike], min_score: float = 0.5
                ) -> str | None:
    """The best column for a phrase, None when none scores ``min_score``."""
    ranked = rank_columns(phrase, columns)
    return ranked[0].column if ranked and ranked[0].score >= min_score else None


@dataclass(frozen=True)
class Mention:
    """A column a text mentions.

    Attributes:
        column: The column name.
        start: Offset of its first matched word in the text.
        end: Offset after its last matched word.
        phrase: The text from its first to its last matched word.
        score: The match score.
    """

    column: str
    start: int
    end: int
    phrase: str
    score: float


def _exact(name: str, text: str) -> bool:
    """Whether an identifier-like column name (with ``_``) is written as such in the text."""
    return "_" in name and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def _best_run(column: ColumnLike, found: list[tuple[int, int, str]], taken: set[int],
              text: str, idf: dict[str, float]) -> tuple[float, list[int]] | None:
    """The best-scoring run of a column's words among the words not taken yet."""
    name, desc = _signature(column)
    sig = name | {d for d in desc if not d.isdigit()}
    best: tuple[float, list[int]] | None = None
    for i, (_, _, w) in enumerate(found):
        if i in taken or w not in sig:
            continue
        run, seen, misses = [i], {w}, 0
        for k in range(i + 1, len(found)):
            if k in taken or _BREAK_RE.search(text, found[k - 1][1], found[k][0]):
                break
            word = found[k][2]
            if word in sig and word not in seen and (not misses or word in name):
                run.append(k)
                seen.add(word)
                misses = 0
            else:
                misses += 1
                if misses > 1:
                    break
        score, _ = _score([found[k][2] for k in run], column, idf)
        if _exact(column.name, text[found[run[0]][0]:found[run[-1]][1]]):
            score += 100.0
        if best is None or score > best[0] + 1e-9:
            best = (score, run)
    return best


def find_mentions(text: str, columns: Sequence[ColumnLike], min_score: float = 2.4,
                  exclude: Sequence[str] = ()) -> list[Mention]:
    """The columns a text mentions, in order of first matched word.

    Greedy: the best-scoring column takes its matched words, the next column is scored on
    the words left, until no column reaches ``min_score``. A mention is a run of the
    column's words with at most one other content word between two of them (and no comma
    or bracket); a name written as such (``risk_aversion``) always counts. A one-word
    mention that only qualifies the next one ("the presence of interactive elements") is
    dropped.

    Args:
        text: The text (a query, a clause of it).
        columns: The candidate columns.
        min_score: The lowest score that counts as a mention.
        exclude: Columns never reported.
    """
    idf = _idf(columns)
    found = [(s, e, stem(w)) for s, e, w in words(text) if w.lower() not in STOPWORDS]
    taken: set[int] = set()
    out: list[Mention] = []
    candidates = [c for c in columns if c.name not in exclude]
    while candidates:
        best: tuple[float, ColumnLike, list[int]] | None = None
        for column in candidates:
            run = _best_run(column, found, taken, text, idf)
            if run is not None and (best is None or run[0] > best[0] + 1e-9):
                best = (run[0], column, run[1])
        if best is None or best[0] < min_score:
            break
        score, column, run = best
        start, end = found[run[0]][0], found[run[-1]][1]
        out.append(Mention(column.name, start, end, text[start:end], round(score, 6)))
        taken.update(run)
        candidates = [c for c in candidates if c.name != column.name]
    return _drop_qualifiers(text, sorted(out, key=lambda m: m.start))


#: Quantity nouns that qualify the variable after them ("the presence of X").
_QUALIFIERS = frozenset(stem(w) for w in (
    "presence", "number", "frequency", "level", "amount", "type", "size", "rate", "count",
    "availability", "use", "usage", "degree", "share", "percentage", "ratio", "score",
    "index", "total", "average", "sum"))


def _drop_qualifiers(text: str, mentions: list[Mention]) -> list[Mention]:
    """Drop a one-word mention that only qualifies the next one ("the presence of
    interactive elements", "the frequency of playing strategy games")."""
    out = []
    for i, m in enumerate(mentions):
        nxt = mentions[i + 1] if i + 1 < len(mentions) else None
        one_word = (len(tokens(m.phrase)) == 1 and m.score < 100
                    and tokens(m.phrase)[0] in _QUALIFIERS)
        if one_word and nxt is not None and re.match(
                r"\s+of\s+(?:\w+\s+){0,2}$", text[m.end:nxt.start]):
            continue
        out.append(m)
    return out


def similar_columns(column: str, columns: Sequence[ColumnLike], k: int = 3) -> list[str]:
    """Up to ``k`` other columns that sound like ``column`` (sharing words of its name and
    description), most similar first - what a hurried reader could take for it."""
    target = next((c for c in columns if c.name == column), None)
    if target is None:
        return []
    name, desc = _signature(target)
    phrase = " ".join(sorted(name)) + " " + " ".join(sorted(desc))
    ranked = [m for m in rank_columns(phrase, columns) if m.column != column]
    return [m.column for m in ranked[:k]]
