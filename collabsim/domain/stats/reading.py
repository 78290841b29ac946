"""Reading a statistical query: target, predictors, controls, population and what is asked.

API (stable names):

* :class:`StatQuery` - what a query asks, in columns of the task's tables;
* :func:`read_query(brief)` - the reading of a task brief (query, columns and their
  descriptions, domain knowledge; duck-typed: any object with ``query``, ``datasets``
  (``name``, ``columns`` with ``name``/``description``) and ``domain_knowledge``);
* :data:`ASKS` - the kinds of question recognised.

How a query is read (never from a gold answer):

* columns are found with :func:`~collabsim.domain.stats.columns.find_mentions`; a concept
  the domain knowledge says is measured by proxies ("Spending and saving behavior can be
  used as proxies for Time preference") stands for the proxies' columns;
* the **target** is the outcome side: "effect of X on Y", "how does X affect Y", "X
  associated with Y", "in determining / explaining / predicting Y", "likelihood of Y",
  "the most impactful factor in explaining Y"; in "relationship between A and B, C, D" the
  single side against a list; otherwise the first column mentioned;
* **controls**: "controlling for X", "adjusting for X", "when X are considered",
  "taking into account X";
* **filters** (the population): sex words ("men", "women") on a gender column, race words
  ("Black", "Hispanic") on a race indicator or coded race column, thresholds on a column
  named in a "where / for / among / with ... above N" clause;
* **asks**: ``significance``, ``correlation``, ``proportion``, ``difference``,
  ``interaction``, ``compare`` (the most impactful factor / which factors), ``likelihood``,
  ``coefficient``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from collabsim.domain.stats.columns import Mention, find_mentions, rank_columns, tokens
from collabsim.domain.stats.model import Filter

ASKS: tuple[str, ...] = ("significance", "correlation", "proportion", "difference",
                         "interaction", "compare", "likelihood", "coefficient")

_ASK_RE: dict[str, re.Pattern[str]] = {
    "significance": re.compile(r"\bsignifican", re.I),
    "correlation": re.compile(r"\bcorrelat", re.I),
    "proportion": re.compile(r"\b(?:proportion|share of|percentage of|fraction of|what percent)",
                             re.I),
    "difference": re.compile(r"\b(?:differ|difference|compared? (?:to|with)|higher than|lower than|"
                             r"more likely than)", re.I),
    "interaction": re.compile(r"\b(?:interact(?:ion|ions|s|ing)?|moderat\w*|depend\w* on|differ\w* (?:based on|"
                              r"by|across|between)|change\w* when|vary|varies)\b", re.I),
    "compare": re.compile(r"\b(?:most (?:impactful|influential|important|significant)|"
                          r"strongest|key factors|which (?:\w+ )?(?:factors|variables|traits|"
                          r"entities|characteristics)|what (?:are the )?(?:factors|variables|"
                          r"traits)|what explain)", re.I),
    "likelihood": re.compile(r"\b(?:likelihood|likely|probability|odds|chance)\b", re.I),
    "coefficient": re.compile(r"\bcoefficient", re.I),
}

# "X on Y", "how does X affect Y": the target follows the verb / preposition
_TARGET_AFTER = re.compile(
    r"\b(?:(?:impact|effect|influence)s? (?:\w+ )?on|affects?|impacts?|influences?|"
    r"predicts?|determines?|explains?|in (?:determining|predicting|explaining)|"
    r"(?:associated|linked|related) (?:with|to)|relates? to|likelihood of|"
    r"probability of|chances? of|factors? (?:that )?(?:influenc\w*|explain\w*|affect\w*|"
    r"determin\w*|related to|associated with|in explaining|explaining)|explained|"
    r"explaining|of (?:determining|predicting))\b", re.I)
_CONTROL_RE = re.compile(
    r"\b(?:controlling for|controlled for|adjusting for|adjusted for|accounting for|"
    r"holding|taking into account|after accounting for|net of)\b(?P<what>[^?.;]*)"
    r"|\bwhen (?P<when>[^?.;]*?) (?:are|is) (?:considered|controlled|accounted for|"
    r"taken into account|included|held constant)", re.I)
_BETWEEN_RE = re.compile(r"\bbetween\b(?P<what>.*)", re.I)
_COMBINATION_RE = re.compile(r"\b(?:a |the )?(?:combination|composite|product|ratio) of\b",
                             re.I)
_PROXY_RE = re.compile(
    r"(?P<proxy>[^.;]+?) (?:can be|could be|are|is|may be) used as (?:a )?prox(?:y|ies) "
    r"(?:for|of) (?P<concept>[^.;]+)", re.I)
_GAUGE_RE = re.compile(r"(?P<concept>[^.;]+?) can (?:also )?be (?:gauged|measured|assessed) "
                       r"(?:by|through|with) (?:studying )?(?P<proxy>[^.;]+)", re.I)

_SEX_WORDS: dict[str, str] = {"men": "male", "man": "male", "male": "male", "males": "male",
                              "boys": "male", "women": "female", "woman": "female",
                              "female": "female", "females": "female", "girls": "female"}
_RACE_WORDS = ("black", "hispanic", "white", "asian")
_THRESHOLD_RE = re.compile(
    r"(?P<op>above|over|more than|greater than|exceed(?:s|ing)?|higher than|at least|"
    r"below|under|less than|fewer than|lower than|at most)\s+\$?(?P<value>-?\d[\d,]*(?:\.\d+)?)",
    re.I)
_OPS = {"above": ">", "over": ">", "more than": ">", "greater than": ">", "exceeds": ">",
        "exceed": ">", "exceeding": ">", "higher than": ">", "at least": ">=", "below": "<",
        "under": "<", "less than": "<", "fewer than": "<", "lower than": "<", "at most": "<="}
_RANGE_RE = re.compile(r"(?P<lo>\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(?P<hi>\d+(?:\.\d+)?)")
_CLAUSE_RE = re.compile(r"\b(?:where|whose|who|for|among|with|in)\b", re.I)


@dataclass(frozen=True)
class StatQuery:
    """What a statistical query asks, in columns of one task's tables.

    Attributes:
        target: The outcome column ("" when none was found).
        predictors: The columns whose relation to the target is asked (order of mention).
        controls: Columns to hold constant.
        filters: Row filters ``(column, op, value)`` defining the population.
        asks: Kinds of question (subset of :data:`ASKS`).
        interaction: A column whose interaction with the first predictor is asked, or "".
        phrases: Column -> the words of the query (or domain knowledge) naming it.
        population: The query's words for the population ("in Black women"), or "".
        mentions: Every column mention found in the query.
        concept: A concept of the query measured by proxy columns ("time preference"), or "".
    """

    target: str
    predictors: tuple[str, ...]
    controls: tuple[str, ...] = ()
    filters: tuple[Filter, ...] = ()
    asks: frozenset[str] = frozenset()
    interaction: str = ""
    phrases: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    population: str = ""
    mentions: tuple[Mention, ...] = ()
    concept: str = ""


def all_columns(brief: Any) -> list[Any]:
    """Every column of the brief's datasets (first occurrence of a name wins)."""
    seen: dict[str, Any] = {}
    for info in brief.datasets:
        for column in info.columns:
            seen.setdefault(column.name, column)
    return list(seen.values())


def read_query(brief: Any) -> StatQuery:
    """Read a brief's query into target, predictors, controls, filters and asks."""
    text = brief.query
    columns = all_columns(brief)
    asks = frozenset(k for k, p in _ASK_RE.items() if p.search(text))
    filters, population, filter_spans, filter_columns = _filters(text, columns)
    control_spans = [m.span("what") if m.group("what") is not None else m.span("when")
                     for m in _CONTROL_RE.finditer(text)]
    mentions = find_mentions(text, columns)
    phrases = {m.column: m.phrase for m in mentions}
    controls = [m.column for m in mentions if _inside(m, control_spans)]
    concept, proxies = _proxies(text, getattr(brief, "domain_knowledge", "") or "", columns)
    for column, phrase in proxies.items():
        phrases.setdefault(column, phrase)
    main = [m for m in mentions if m.column not in controls and m.column not in filter_columns
            and not _inside(m, filter_spans)]
    main = _with_cued_target(text, main, columns, set(proxies))
    target = _target(text, main, columns)
    predictors = [m.column for m in main if m.column != target]
    predictors += [c for c in proxies if c != target and c not in predictors
                   and c not in controls]
    interaction = ""
    if "interaction" in asks and len(predictors) >= 2:
        interaction = predictors[-1]
    return StatQuery(target=target, predictors=tuple(predictors), controls=tuple(controls),
                     filters=tuple(filters), asks=asks, interaction=interaction,
                     phrases=phrases, population=population, mentions=tuple(mentions),
                     concept=concept)


def _inside(m: Mention, spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= m.start and m.end <= b for a, b in spans)


def _with_cued_target(text: str, mentions: list[Mention], columns: Sequence[Any],
                      taken: set[str]) -> list[Mention]:
    """The mentions plus, when a target cue ("impact ... on", "likelihood of") is followed
    by no mention, the best (weaker) match of the words after the cue."""
    cue = _TARGET_AFTER.search(text)
    if cue is None or any(m.start >= cue.end() for m in mentions):
        return mentions
    tail = text[cue.end():]
    tail = re.split(r"[?.;]", tail)[0]
    used = {m.column for m in mentions} | taken
    ranked = [r for r in rank_columns(tail, columns) if r.column not in used]
    if not ranked or ranked[0].score < 1.0:
        return mentions
    return [*mentions, Mention(ranked[0].column, cue.end(), cue.end() + len(tail),
                               tail.strip(), ranked[0].score)]


def _target(text: str, mentions: list[Mention], columns: Sequence[Any]) -> str:
    """The outcome column among the query's mentions (see module docstring)."""
    if not mentions:
        return ""
    cue = None
    for match in _TARGET_AFTER.finditer(text):
        after = [m for m in mentions if m.start >= match.end()]
        if after:
            cue = after[0]
            break
    if cue is not None:
        return cue.column
    between = _BETWEEN_RE.search(text)
    if between is not None:
        inside = [m for m in mentions if m.start >= between.start("what")]
        if len(inside) >= 2:
            combo = _COMBINATION_RE.search(text, between.start("what"))
            if combo is not None and combo.start() > inside[0].end:
                return inside[0].column  # "between A and a combination of B, C"
            gap_first = text[inside[0].end:inside[1].start]
            if len(inside) >= 3 and "," not in gap_first and re.search(
                    r",|\band\b", text[inside[1].end:inside[-1].start]):
                return inside[0].column  # "between A and B, C and D"
            return inside[-1].column  # "between A, B and C": C against the rest
    return mentions[0].column


def _proxies(text: str, knowledge: str, columns: Sequence[Any]) -> tuple[str, dict[str, str]]:
    """(concept, column -> phrase) for a query concept the domain knowledge says proxies
    measure: the proxies' best-matching columns."""
    query_stems = set(tokens(text))
    for pattern in (_PROXY_RE, _GAUGE_RE):
        for match in pattern.finditer(knowledge):
            concept = match.group("concept").strip()
            concept = re.split(r"\b(?:of|in|for|among)\b", concept)[0].strip()
            concept_stems = set(tokens(concept))
            if not concept_stems or not concept_stems <= query_stems:
                continue
            ranked = rank_columns(match.group("proxy"), columns)
            if not ranked:
                continue
            top = ranked[0].score
            chosen = [m.column for m in ranked if m.score >= 0.5 * top][:4]
            return concept, {c: f"{concept} ({c})" for c in chosen}
    return "", {}


def _sex_column(columns: Sequence[Any]) -> Any | None:
    for column in columns:
        if re.search(r"\b(?:gender|sex)\b", f"{column.name} {column.description}", re.I):
            return column
    return None


def _coded_value(column: Any, word: str) -> str:
    """The value a coded column uses for a category word: ``1`` for "1:MALE", ``MALE`` for
    "(MALE or FEMALE)", else the word itself upper-cased."""
    desc = column.description or ""
    code = re.search(rf"(\d+)\s*[:=]\s*{word}\b", desc, re.I)
    if code:
        return code.group(1)
    named = re.search(rf"\b({word})\b", desc, re.I)
    return named.group(1) if named else word.upper()


def _filters(text: str, columns: Sequence[Any]
             ) -> tuple[list[Filter], str, list[tuple[int, int]], set[str]]:
    """Population filters: (filters, the population words, spans of the filter clauses,
    columns used only as filters)."""
    filters: list[Filter] = []
    words: list[str] = []
    spans: list[tuple[int, int]] = []
    used: set[str] = set()
    sex = _sex_column(columns)
    for match in re.finditer(r"\b(?:(?:in|among|for) )?(?:(black|hispanic|white|asian) )?"
                             r"(men|women|males|females|boys|girls)\b", text, re.I):
        race, who = match.group(1), match.group(2)
        if sex is not None:
            filters.append((sex.name, "==", _coded_value(sex, _SEX_WORDS[who.lower()])))
            used.add(sex.name)
        if race:
            filters += _race_filter(race, columns, used)
        words.append(match.group(0))
        spans.append(match.span())
    if not any(m for m in re.finditer(r"\b(men|women|males|females)\b", text, re.I)):
        for match in re.finditer(r"\b(?:in|among|for) (black|hispanic|white|asian)\b", text,
                                 re.I):
            filters += _race_filter(match.group(1), columns, used)
            words.append(match.group(0))
            spans.append(match.span())
    year = re.search(r"\b(?:in|for) the (\d{4}) data\b|\bfor (\d{4}) data\b", text, re.I)
    if year:
        words.append(year.group(0))
        spans.append(year.span())
        value = year.group(1) or year.group(2)
        year_col = next((c for c in columns if c.name.lower() in ("year", "yr")), None)
        if year_col is not None:
            filters.append((year_col.name, "==", value))
            used.add(year_col.name)
    for clause in _CLAUSE_RE.finditer(text):
        rest = text[clause.start():]
        end = re.search(r"[,;?]|\band\b", rest[6:])
        chunk = rest[: 6 + end.start()] if end else rest
        threshold = _THRESHOLD_RE.search(chunk)
        if threshold is None:
            continue
        found = find_mentions(chunk[: threshold.start()], columns)
        if not found:
            continue
        column = found[-1].column
        op = _OPS[threshold.group("op").lower()]
        filters.append((column, op, threshold.group("value").replace(",", "")))
        used.add(column)
        words.append(chunk[: threshold.end()].strip())
        spans.append((clause.start(), clause.start() + threshold.end()))
    return filters, "; ".join(words), spans, used


def _race_filter(race: str, columns: Sequence[Any], used: set[str]) -> list[Filter]:
    race = race.lower()
    for column in columns:
        if column.name.lower() == race:
            used.add(column.name)
            return [(column.name, "==", "1")]
    for column in columns:
        text = f"{column.name} {column.description}"
        if re.search(r"\b(?:race|racial|ethnic)", text, re.I) and re.search(
                rf"\b{race}\b", column.description or "", re.I):
            used.add(column.name)
            return [(column.name, "==", _coded_value(column, race))]
    return []
