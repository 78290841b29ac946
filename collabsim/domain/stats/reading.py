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
  associated with Y", "X leads to / results in / causes Y", "in determining / explaining /
  predicting Y", "likelihood of Y", "the most impactful factor in explaining Y"; in "relationship between A and B, C, D" the
  single side against a list; otherwise the first column mentioned;
* **controls**: "controlling for X", "adjusting for X", "when X are considered",
  "taking into account X";
* **filters** (the population): sex words ("men", "women") on a gender column, race words
  ("Black", "Hispanic") on a race indicator or coded race column, thresholds on a column
  named in a "where / for / among / with ... above N" clause;
* **asks**: ``significance``, ``correlation``, ``proportion``, ``difference``,
  ``interaction``, ``compare`` (the most impactful factor / which factors), ``likelihood``,
  ``coefficient``, ``columns`` (the data's columns pointed at without being named:
  "predicted using the provided dataset columns", "the characteristics of concerts").
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from collabsim.domain.stats.columns import (
    STOPWORDS,
    Mention,
    find_mentions,
    rank_columns,
    table_columns,
    tokens,
)
from collabsim.domain.stats.held import fact_fix, held_fix, with_held_columns
from collabsim.domain.stats.model import Filter

ASKS: tuple[str, ...] = ("significance", "correlation", "proportion", "difference",
                         "interaction", "compare", "likelihood", "coefficient", "negative",
                         "positive", "columns")

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
    # the query points at the data's columns without naming them
    "columns": re.compile(r"\b(?:(?:using|from|with|by|on) (?:the |all )?(?:provided |available |"
                          r"given |other )?(?:dataset |data )?(?:columns|variables|features|"
                          r"attributes)|characteristics of|(?:the |all )?other (?:columns|"
                          r"variables|features|factors))\b", re.I),
    "negative": re.compile(r"\b(?:negative(?:ly)?|inverse(?:ly)?|decreas\w*|reduc\w*|"
                           r"lower)\b", re.I),
    "positive": re.compile(r"\b(?:positive(?:ly)?|increas\w*|higher)\b", re.I),
}

#: Words that say one side of a stated relation goes up (group 1) or down (group 2):
#: "higher X ... lower Y" states a negative relation (read by the collaborators' checks of a
#: draft, collabsim.participants.stat_claims).
SIGNED_DIRECTION_RE = re.compile(
    r"\b(?:(higher|increas\w*|more\s+likely|greater|rais\w*|rises?|larger)|"
    r"(lower|decreas\w*|less\s+likely|fewer|reduc\w*|declin\w*|drops?|falls?|smaller))\b",
    re.IGNORECASE)

# "X on Y", "how does X affect Y": the target follows the verb / preposition
_TARGET_AFTER = re.compile(
    r"\b(?:(?:impact|effect|influence)s? (?:of [^,?.;]+? )?on|affects?|impacts?|influences?|"
    r"predicts?|determines?|explains?|in (?:determining|predicting|explaining)|"
    r"(?:leads?|led|contributes?|contributed) to|results? in|causes?|"
    r"(?:associated|linked|related) (?:with|to)|relates? to|likelihood of|"
    r"probability of|odds of|chances? of|factors? (?:that )?(?:influenc\w*|explain\w*|affect\w*|"
    r"determin\w*|related to|associated with|in explaining|explaining)|explained|"
    r"explaining|of (?:determining|predicting)|regarding|in relation to|with respect to|"
    r"in terms of|(?:have|has|had|exhibit\w*|show\w*) "
    r"(?:an? )?(?:\w+ )?(?:relationship )?with)\b", re.I)
_CONTROL_RE = re.compile(
    r"\b(?:controlling for|controlled for|adjusting for|adjusted for|accounting for|"
    r"holding|taking into account|after accounting for|net of|considering)\b"
    r"(?P<what>[^?.;]*)"
    r"|\bwhen (?P<when>[^?.;]*?) (?:are|is) (?:considered|controlled|accounted for|"
    r"taken into account|included|held constant)", re.I)
_BETWEEN_RE = re.compile(r"\bbetween\b(?P<what>.*)", re.I)
_COMBINATION_RE = re.compile(r"\b(?:a |the )?(?:combination|composite|product|ratio) of\b",
                             re.I)
_PROXY_RE = re.compile(
    r"(?P<proxy>[^.;:]+?) (?:can |could |may )?(?:be|is|are) (?:used as )?(?:a |the )?"
    r"prox(?:y|ies) (?:for|of) (?:the )?(?P<concept>[^.;]+)", re.I)
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
        held: The plan parameters the brief's held facts fix (keys of
            :data:`~collabsim.domain.stats.model.FIX_KEYS`): the reading already follows
            them, the analysis choice keeps them.
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
    held: frozenset[str] = frozenset()


def all_columns(brief: Any) -> list[Any]:
    """Every column of the brief's datasets as an analysis sees them (wide tables in long
    form, :func:`~collabsim.domain.stats.columns.table_columns`; first occurrence of a name
    wins)."""
    seen: dict[str, Any] = {}
    for info in brief.datasets:
        for column in table_columns(info):
            seen.setdefault(column.name, column)
    return list(seen.values())


#: How many readings :func:`read_query` keeps (least recently used dropped first).
READING_CACHE_SIZE = 512
_READINGS: OrderedDict[tuple[Any, ...], StatQuery] = OrderedDict()


def reading_key(brief: Any) -> tuple[Any, ...]:
    """Everything :func:`read_query` reads of a brief: the query, the domain and its
    knowledge, every table's name, description and columns (names and descriptions), and
    the settings of the facts held. Two briefs with the same key read the same."""
    tables = tuple((info.name, getattr(info, "description", "") or "",
                    tuple((c.name, c.description or "") for c in info.columns))
                   for info in brief.datasets)
    facts = tuple(tuple(sorted(fact_fix(f).items())) for f in getattr(brief, "facts", ()))
    return (brief.query, getattr(brief, "domain", "") or "",
            getattr(brief, "domain_knowledge", "") or "", tables, facts)


def read_query(brief: Any) -> StatQuery:
    """Read a brief's query into target, predictors, controls, filters and asks.

    The reading is a pure function of :func:`reading_key` and is memoised on it (every
    session of a task reads the same brief; different facts held read differently)."""
    key = reading_key(brief)
    cached = _READINGS.get(key)
    if cached is None:
        cached = _read_query(brief)
        _READINGS[key] = cached
        if len(_READINGS) > READING_CACHE_SIZE:
            _READINGS.popitem(last=False)
    else:
        _READINGS.move_to_end(key)
    return replace(cached, phrases=dict(cached.phrases))


def _read_query(brief: Any) -> StatQuery:
    text = brief.query
    columns = all_columns(brief)
    fixed = held_fix(brief)
    asks = frozenset(k for k, p in _ASK_RE.items() if p.search(text))
    filters, population, filter_spans, filter_columns = _filters(text, columns)
    knowledge = getattr(brief, "domain_knowledge", "") or ""
    group_column, groups = group_values(text, knowledge, columns)
    if len(groups) == 1 and group_column not in filter_columns:
        filters.append((group_column, "==", groups[0][0]))
        filter_columns.add(group_column)
        population = "; ".join(p for p in (population, f"in {groups[0][1]}") if p)
    compared = _compared_groups(filters)
    if compared:
        # "differ between women and men": both groups of one column are compared, no
        # population is singled out
        filters = [f for f in filters if f[0] != compared]
        population = ""
    if "filters" in fixed:
        filters = list(fixed["filters"])  # type: ignore[arg-type]
        filter_columns |= {c for c, _, _ in filters}
    control_spans = [m.span("what") if m.group("what") is not None else m.span("when")
                     for m in _CONTROL_RE.finditer(text)]
    mentions = _without_context(find_mentions(text, columns), brief)
    mentions = with_held_columns(text, mentions, columns, fixed)
    concepts = _proxies(text, knowledge, columns, {m.column for m in mentions})
    # a concept stands for its proxies: a column one of its words happens to match ("time"
    # in "time preference" for "sentenced to spend time in a corrections institute") is none
    mentions = [m for m in mentions if not any(c.start <= m.start and m.end <= c.end
                                               and m.column != c.column for c in concepts)]
    phrases = {m.column: m.phrase for m in mentions if _phrase_is_better(m)}
    for m in concepts:
        phrases.setdefault(m.column, m.phrase)
    mentions = sorted([*mentions, *concepts], key=lambda m: m.start)
    held_controls = tuple(fixed.get("controls", ()))
    controls = ([*held_controls] if "controls" in fixed
                else [m.column for m in mentions if _inside(m, control_spans)])
    moderator = _moderator(text, mentions, columns) or compared
    main = [m for m in mentions if m.column not in controls and m.column not in filter_columns
            and m.column not in held_controls and not _inside(m, filter_spans)
            and (not moderator or m.column != moderator)]
    main = _with_cued_target(text, main, columns, {m.column for m in concepts})
    held_predictors = tuple(fixed.get("predictors", ()))
    if fixed.get("target"):
        target = str(fixed["target"])
    else:
        target = _target(text, [m for m in main if m.column not in held_predictors], columns)
    if held_predictors:
        predictors = [p for p in held_predictors if p != target]
    else:
        predictors = list(dict.fromkeys(m.column for m in main if m.column != target))
    concept = concepts[0].phrase.split(" (")[0] if concepts else ""
    if concepts:
        asks = asks - {"compare"}  # "the factors related to <concept>" are its proxies
    predictors, interaction, asks = _interaction(predictors, target, asks, group_column,
                                                 groups, moderator)
    if interaction:
        phrases.update(level_labels(next((c for c in columns if c.name == interaction), None)))
    return StatQuery(target=target, predictors=tuple(predictors), controls=tuple(controls),
                     filters=tuple(filters), asks=asks, interaction=interaction,
                     phrases=phrases, population=population, mentions=tuple(mentions),
                     concept=concept, held=frozenset(fixed))


def _interaction(predictors: list[str], target: str, asks: frozenset[str], group_column: str,
                 groups: Sequence[tuple[str, str]], moderator: str
                 ) -> tuple[list[str], str, frozenset[str]]:
    """(predictors, interaction column, asks) once groups and moderators are read."""
    interaction = ""
    if len(groups) >= 2 and predictors and group_column != target:
        # "compare between developing countries and Sub-Saharan Africa": the effect by group
        predictors = [p for p in predictors if p != group_column] + [group_column]
        interaction, asks = group_column, asks | {"interaction"}
    elif moderator and moderator != target:
        if predictors:
            # "how does Z change the relationship between X and Y", "moderated by Z": the
            # interaction of X with Z (Z's main effect enters the fit with the term)
            predictors = [p for p in predictors if p != moderator]
            interaction, asks = moderator, asks | {"interaction"}
        else:
            # "do women differ from men in Y": the groups' difference
            predictors, asks = [moderator], asks | {"difference"}
    elif "interaction" in asks and len(predictors) >= 2:
        interaction = predictors[-1]
    return predictors, interaction, asks


_CODED_LEVELS = re.compile(r"\b([01])\s*=\s*([A-Za-z][\w-]*)\s*[,;/]\s*([01])\s*=\s*"
                           r"([A-Za-z][\w-]*)")


def level_labels(column: Any) -> dict[str, str]:
    """``{"female=1": "female", "female=0": "male"}`` for a 0/1 column whose description
    labels its codes ("(1 = female, 0 = male)"); nothing for yes/no codes or other
    columns."""
    if column is None:
        return {}
    match = _CODED_LEVELS.search(column.description or "")
    if match is None or match.group(1) == match.group(3):
        return {}
    labels = {match.group(1): match.group(2), match.group(3): match.group(4)}
    if {v.lower() for v in labels.values()} & {"yes", "no", "true", "false"}:
        return {}
    return {f"{column.name}={k}": v for k, v in labels.items()}


def _compared_groups(filters: Sequence[Filter]) -> str:
    """A column two different ``==`` filters name ("women and men"): the groups compared."""
    values: dict[str, set[str]] = {}
    for column, op, value in filters:
        if op == "==":
            values.setdefault(column, set()).add(value)
    return next((c for c, v in values.items() if len(v) >= 2), "")


# "how does Z change the relationship between X and Y" / "moderated by Z"
_MODERATOR_BEFORE = re.compile(
    r"\bhow (?:does|do|did|might|would|could) (?P<z>[^?.;]+?) (?:change|alter|modify|shape|"
    r"moderate)s? (?:the )?(?:relationship|association|link|effect|relation)", re.I)
_MODERATOR_AFTER = re.compile(
    r"\b(?:moderated|modified|conditioned) by (?P<z>[^?.;,]+)", re.I)


def _moderator(text: str, mentions: Sequence[Mention], columns: Sequence[Any]) -> str:
    """The column a query says moderates a relationship, or ""."""
    for pattern in (_MODERATOR_BEFORE, _MODERATOR_AFTER):
        match = pattern.search(text)
        if match is None:
            continue
        a, b = match.span("z")
        inside = [m for m in mentions if a <= m.start and m.end <= b]
        if inside:
            return inside[0].column
        used = {m.column for m in mentions}
        ranked = [r for r in rank_columns(match.group("z"), columns) if r.column not in used]
        if ranked and ranked[0].score >= 0.5:
            return ranked[0].column
    return ""


#: Nouns naming who or what the rows are, never a variable on their own.
_POPULATION_NOUNS = frozenset(tokens(
    "participants participant individuals individual people persons respondents musicians "
    "musician ensembles ensemble civilizations civilization cities city consumers consumer "
    "enthusiasts players dataset data domain context culture industry"))


def _without_context(mentions: list[Mention], brief: Any) -> list[Mention]:
    """The mentions without those made only of the domain's name and population nouns ("in
    extreme sports participants", "in ancient civilizations"), unless that is all there is."""
    domain = set(tokens(getattr(brief, "domain", "") or ""))
    context = domain | _POPULATION_NOUNS
    text = brief.query
    kept = [m for m in mentions if not set(tokens(m.phrase)) <= context or m.score >= 100
            or _CHOICE_RE.search(text[:m.start])]
    return kept or mentions


# "the choice of extreme sport": the domain's name is the variable (its type)
_CHOICE_RE = re.compile(r"\b(?:choice|type|kind|classification|category|form) of "
                        r"(?:the |their |a |an )?$", re.I)


def _phrase_is_better(m: Mention) -> bool:
    """Whether the query's words for a column say more than its name made readable: the
    name is an abbreviation (capitals, short words: ``MBL_evol``) or the words cover every
    word of the name ("number of trade schools" for ``number_of_trade_schools``)."""
    parts = [w for w in re.split(r"[_\W]+", m.column) if w]
    if len(tokens(m.phrase)) == 1 and len(parts) >= 3:
        return False  # "capita" says less than GNI_per_capita_constant_2015_USdollar
    if any(w.isupper() or len(w) < 4 and w.lower() not in STOPWORDS for w in parts):
        return True
    return set(tokens(m.column)) <= set(tokens(m.phrase))


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
            cue = after[0]  # the last cue with a mention after it names the outcome
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


def _proxies(text: str, knowledge: str, columns: Sequence[Any], taken: set[str]
             ) -> list[Mention]:
    """Mentions of the proxy columns of each query concept the domain knowledge says they
    measure ("Spending and saving behavior can be used as proxies for Time preference"):
    the proxies' best-matching columns, placed where the query names the concept."""
    out: list[Mention] = []
    lowered = text.lower()
    for pattern in (_PROXY_RE, _GAUGE_RE):
        for match in pattern.finditer(knowledge):
            concept = match.group("concept").strip()
            concept = re.split(r"\b(?:of|in|for|among)\b", concept)[0].strip(" .,")
            at = lowered.find(concept.lower())
            if not concept or at < 0:
                continue
            ranked = [m for m in rank_columns(match.group("proxy"), columns)
                      if m.column not in taken]
            if not ranked:
                continue
            top = ranked[0].score
            chosen = [m for m in ranked[:4] if m.score >= 0.5 * top]
            for m in chosen:
                # several proxies of one concept are told apart by their column
                words = f"{concept} ({m.column})" if len(chosen) > 1 else concept
                out.append(Mention(m.column, at, at + len(concept), words, m.score))
                taken.add(m.column)
    return out


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
    found = _Found()
    _group_filters(text, columns, found)
    year = re.search(r"\b(?:in|for) the (\d{4}) data\b|\bfor (\d{4}) data\b", text, re.I)
    if year:
        found.words.append(year.group(0))
        found.spans.append(year.span())
        year_col = next((c for c in columns if c.name.lower() in ("year", "yr")), None)
        if year_col is not None:
            found.add(year_col.name, "==", year.group(1) or year.group(2))
    _threshold_filters(text, columns, found)
    return found.filters, "; ".join(found.words), found.spans, found.used


_ALIAS_RE = re.compile(
    r"(?P<value>[A-Z][\w-]*(?: [\w-]+){0,4}?)(?: countries| groups?| regions?)? "
    r"(?:could|can|may|should|might|are|is) (?:be )?(?:assumed|considered|taken|treated|"
    r"regarded|counted)(?: to be)?(?: as)?(?: coming)?(?: under the label of| under)? "
    r"(?P<label>[\w -]+)")
_CAPITALISED_RE = re.compile(r"(?<!^)(?<![.?!] )\b[A-Z][\w-]+(?: [A-Z][\w-]+)*")


def group_values(text: str, knowledge: str, columns: Sequence[Any]
                 ) -> tuple[str, list[tuple[str, str]]]:
    """(column, [(value, the query's words for it)]) of the groups a query names among the
    values a column's description lists: a capitalised name written in both ("countries in
    Sub-Saharan Africa"), or a label the domain knowledge gives a value ("Lower middle income
    countries could be assumed to be coming under the label of developing countries")."""
    named: list[tuple[str, str, int]] = []  # (value, words, position)
    lowered = text.lower()
    for match in _ALIAS_RE.finditer(knowledge):
        label = match.group("label").strip().lower()
        at = lowered.find(label)
        if label and at >= 0:
            named.append((match.group("value").strip(), text[at:at + len(label)], at))
    for match in _CAPITALISED_RE.finditer(text):
        named.append((match.group(0), match.group(0), match.start()))
    for column in columns:
        desc = column.description or ""
        # a value the description lists, not the words defining the column itself
        values = [(v, w, at) for v, w, at in named if len(v) > 3 and v.lower() in desc.lower()
                  and v.lower() not in column.name.lower()
                  and not desc.lower().startswith(v.lower())]
        if values:
            values.sort(key=lambda x: x[2])
            return column.name, [(v, w) for v, w, _ in dict(
                ((v, (v, w, at)) for v, w, at in values)).values()]
    return "", []


@dataclass
class _Found:
    """Filters found so far, with the words and spans they come from."""

    filters: list[Filter] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    used: set[str] = field(default_factory=set)

    def add(self, column: str, op: str, value: str) -> None:
        self.filters.append((column, op, value))
        self.used.add(column)


def _group_filters(text: str, columns: Sequence[Any], found: _Found) -> None:
    """Sex and race words ("Black women", "among men", "in Hispanic respondents")."""
    sex = _sex_column(columns)
    people = list(re.finditer(r"\b(?:(?:in|among|for) )?(?:(black|hispanic|white|asian) )?"
                              r"(men|women|males|females|boys|girls)\b", text, re.I))
    for match in people:
        race, who = match.group(1), match.group(2)
        if sex is not None:
            found.add(sex.name, "==", _coded_value(sex, _SEX_WORDS[who.lower()]))
        if race:
            found.filters += _race_filter(race, columns, found.used)
        found.words.append(match.group(0))
        found.spans.append(match.span())
    if people:
        return
    for match in re.finditer(r"\b(?:in|among|for) (black|hispanic|white|asian)\b", text, re.I):
        found.filters += _race_filter(match.group(1), columns, found.used)
        found.words.append(match.group(0))
        found.spans.append(match.span())


def _threshold_filters(text: str, columns: Sequence[Any], found: _Found) -> None:
    """Thresholds on a column named in a "where / for / among / with ... above N" clause
    (the innermost clause of a threshold counts once)."""
    seen: set[int] = set()
    for clause in reversed(list(_CLAUSE_RE.finditer(text))):
        rest = text[clause.start():]
        end = re.search(r"[,;?]|\band\b", rest[6:])
        chunk = rest[: 6 + end.start()] if end else rest
        threshold = _THRESHOLD_RE.search(chunk)
        if threshold is None or clause.start() + threshold.start() in seen:
            continue
        seen.add(clause.start() + threshold.start())
        mentioned = find_mentions(chunk[: threshold.start()], columns)
        if not mentioned:
            continue
        found.add(mentioned[-1].column, _OPS[threshold.group("op").lower()],
                  threshold.group("value").replace(",", ""))
        found.words.append(chunk[: threshold.end()].strip())
        found.spans.append((clause.start(), clause.start() + len(chunk)))


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
