"""Reading a statistical task with the facts one holds, and finding what its query leaves open.

The statistical family's facts (:mod:`collabsim.core.knowledge`, topics ``target``,
``predictors``, ``controls``, ``filters``, ``analysis``) carry a setting in
:meth:`~collabsim.domain.stats.model.StatPlan.with_fix` syntax. A holder's plan applies
them (:func:`apply_stat_facts`); a value that names no column of the plan's table (or no
known analysis) is ignored, as a time-series ``column`` fact naming no column is.

:func:`stat_open_topics` lists what the query leaves open for this reader and no held fact
settles - found from the query text and the table's columns, never from a gold answer:

* ``target`` / ``predictors``: the chosen column has a similar-sounding other column in the
  table (:func:`~collabsim.participants.stat_mistakes.similar_columns`) - the reader cannot
  tell from the names which one the query means;
* ``controls``: the query asks for something to be held constant ("controlling for",
  "adjusting for", "when ... are considered") and the plan has no control;
* ``filters``: the query names a population or subgroup ("among", "within", "only",
  "for the 1989 data") and the plan has no filter;
* ``analysis``: the target's description says it is binary while the plan is linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from collabsim.core.knowledge import STAT_TOPICS, Fact
from collabsim.core.task import TaskBrief
from collabsim.domain.stats.choice import choose_analysis, column_kind
from collabsim.domain.stats.columns import rank_columns, tokens
from collabsim.domain.stats.model import ANALYSES, FIX_KEYS, StatPlan, parse_filters
from collabsim.participants.stat_mistakes import similar_columns

__all__ = ["apply_stat_facts", "held_fix", "normalize_filters", "rechoose_analysis",
           "fixed_plan", "rechoose_after_facts", "stat_open_topics", "usable_fix",
           "with_stat_fix"]

_OP = re.compile(r"\s*(==|!=|>=|<=|>|<)\s*")

_CONTROL_WORDS = re.compile(
    r"\b(?:control(?:ling|led)?\s+for|adjust(?:ing|ed)?\s+for|account(?:ing)?\s+for|"
    r"holding\b.*\bconstant|when\b.*\b(?:are|is)\s+(?:considered|controlled|included|"
    r"taken\s+into\s+account)|net\s+of)", re.IGNORECASE)
_POPULATION_WORDS = re.compile(
    r"\b(?:among|within|only|subgroup|subset|sub-population|restricted\s+to)\b"
    r"|\b(?:for|in)\s+(?:the\s+)?(?:1[89]|20)\d\d\b", re.IGNORECASE)
_BINARY_WORDS = re.compile(
    r"\b(?:binary|dummy|indicator|whether|yes/no|0/1|1\s*=|1\s+if|true/false)\b",
    re.IGNORECASE)


def _names(brief: TaskBrief, dataset: str) -> set[str]:
    return {c.name for d in brief.datasets if d.name == dataset for c in d.columns}


def normalize_filters(text: str) -> str:
    """Filters written compactly (``sex==2;age>=18``, as a tag without spaces may carry
    them) in the spaced form :func:`~collabsim.domain.stats.model.parse_filters` reads."""
    if text.strip() in ("", "none"):
        return "none"
    return "; ".join(_OP.sub(lambda m: f" {m.group(1)} ", c.strip(), count=1)
                     for c in text.split(";") if c.strip())


def held_fix(fix: Mapping[str, str], brief: TaskBrief, dataset: str) -> dict[str, str]:
    """The parts of a fact's (or a teammate's) setting that apply to the plan's table: the
    statistical keys whose columns exist there and a known analysis (others dropped;
    compact filters are spaced). A fix from chat - possibly an LLM's - never breaks the
    plan: a part that cannot be read is left out."""
    names = _names(brief, dataset)
    out: dict[str, str] = {}
    for key in FIX_KEYS:
        if key not in fix:
            continue
        value = fix[key]
        if key == "target" and value not in names:
            continue
        if key in ("predictors", "controls") and any(
                c not in names for c in value.split("+") if c and c != "none"):
            continue
        if key == "filters":
            value = normalize_filters(value)
            try:
                if any(c not in names for c, _, _ in parse_filters(value)):
                    continue
            except ValueError:
                continue
        if key == "analysis" and value not in ANALYSES:
            continue
        out[key] = value
    return out


def rechoose_analysis(plan: StatPlan, brief: TaskBrief, asks: frozenset[str] = frozenset()
                      ) -> StatPlan:
    """A plan whose variables were set after its analysis was chosen (a fact, an answer, a
    teammate's fix naming the target or predictors of a query read without them), with
    the analysis chosen for them as the reader chooses it
    (:func:`~collabsim.domain.stats.choice.choose_analysis`): a ``summary`` or ``proportion``
    plan that now has predictors becomes a regression / test. Other plans are returned as
    they are."""
    if plan.analysis not in ("summary", "proportion") or not plan.predictors or not plan.target:
        return plan
    kinds = {c.name: column_kind(c) for d in brief.datasets for c in d.columns}
    analysis = choose_analysis(kinds.get(plan.target, "numeric"),
                               tuple(kinds.get(p, "numeric") for p in plan.predictors), asks,
                               brief.workflow_tags or "", bool(plan.controls))
    if analysis in ("correlation", "ttest", "chi2", "anova"):
        return replace(plan, analysis=analysis, predictors=plan.predictors[:1])
    return replace(plan, analysis=analysis)


def with_stat_fix(plan: StatPlan, fix: Mapping[str, str], brief: TaskBrief,
                  asks: frozenset[str] = frozenset()) -> StatPlan:
    """``plan.with_fix(fix)``, and when the fix set the target or predictors but not the
    analysis, the analysis chosen for the new variables (:func:`rechoose_analysis`)."""
    new = plan.with_fix(fix)
    if ("target" in fix or "predictors" in fix) and "analysis" not in fix and (
            (new.target, new.predictors) != (plan.target, plan.predictors)):
        return rechoose_analysis(new, brief, asks)
    return new


def rechoose_after_facts(plan: StatPlan, brief: TaskBrief, query: Any = None) -> StatPlan:
    """The plan of a reader whose facts set its target or predictors (and none its
    analysis): the analysis chosen for those variables (:func:`rechoose_analysis`)."""
    keys = {k for fact in brief.facts for k, _ in fact.setting}
    if keys & {"target", "predictors"} and "analysis" not in keys:
        return rechoose_analysis(plan, brief, getattr(query, "asks", frozenset()))
    return plan


def fixed_plan(plan: Any, fix: Mapping[str, str], brief: TaskBrief, query: Any = None) -> Any:
    """A plan of either family with a teammate's fix (or a fact's setting) applied: a
    time-series plan by its ``with_fix``; a statistical one by :func:`with_stat_fix` with
    the parts :func:`held_fix` keeps (``query``: the reader's StatQuery, for its asks)."""
    if not isinstance(plan, StatPlan):
        return plan.with_fix(fix)
    return with_stat_fix(plan, held_fix(fix, brief, plan.dataset), brief,
                         getattr(query, "asks", frozenset()))


def usable_fix(plan: Any, fix: Mapping[str, str], brief: TaskBrief) -> Mapping[str, str]:
    """A teammate's fix as a participant can apply it: on a statistical plan the parts
    :func:`held_fix` keeps, a time-series fix as it is."""
    return held_fix(fix, brief, plan.dataset) if isinstance(plan, StatPlan) else fix


def apply_stat_facts(plan: StatPlan, facts: Iterable[Fact], brief: TaskBrief) -> StatPlan:
    """The plan of a holder of ``facts``: each statistical fact's setting applied (in task
    order; parts naming no column of the plan's table are ignored)."""
    for fact in facts:
        if fact.topic in STAT_TOPICS:
            fix = held_fix(fact.fix, brief, plan.dataset)
            if fix:
                plan = with_stat_fix(plan, fix, brief)
    return plan


def _description(brief: TaskBrief, dataset: str, column: str) -> str:
    return next((c.description for d in brief.datasets if d.name == dataset
                 for c in d.columns if c.name == column), "")


# words of a query that never name a variable (besides the column matcher's stop words)
_CONTEXT_WORDS = frozenset(("odd", "odds", "likelihood", "likely", "probability", "chance",
                            "rate", "respondent", "worker", "student", "people", "person",
                            "household", "participant", "individual", "adult", "child",
                            "women", "men", "group", "differ", "different", "difference",
                            "strong", "strength", "common", "share", "proportion", "change",
                            "moderat", "relat", "depend", "vary", "compar", "other", "daily"))
_STRENGTH_WORDS = re.compile(r"\b(?:how\s+strong|strength)\b", re.IGNORECASE)
_GROUP_NOUN = re.compile(
    r"\b(?:for|in|among|within)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:respondents|workers|"
    r"students|households|people|patients|participants|adults|children|women|men|"
    r"individuals|firms|countries|schools|employees|customers|users)\b", re.IGNORECASE)


def _ambiguous_phrase(phrase: str, columns: list[Any], column: str) -> bool:
    """Whether the query's words for ``column`` fit another column about as well (the
    second candidate scores at least 3/4 of the first)."""
    ranked = rank_columns(phrase, columns)
    return (len(ranked) >= 2 and ranked[0].column == column
            and ranked[1].score >= 0.75 * ranked[0].score)


def _same_stem(a: str, b: str) -> bool:
    """Whether two stems are one word's ("quitt" of quitting, "quit" of quit_intention)."""
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def _unresolved_term(brief: TaskBrief, query: Any, columns: list[Any], used: set[str]
                     ) -> bool:
    """Whether the query has a content word, outside the phrases read as columns and the
    words of the domain and the tables' descriptions, that two or three columns the plan
    does not use contain (a term the columns leave open: "sleep" with
    ``sleep_school_nights`` and ``sleep_weekends``; a word many columns share is the
    table's topic, not a variable)."""
    phrases = " ".join((getattr(query, "phrases", None) or {}).values())
    context = " ".join([brief.domain, *(d.description for d in brief.datasets)])
    read = set(tokens(phrases)) | set(tokens(context))
    for word in dict.fromkeys(tokens(brief.query)):
        if (word in read or word.isdigit() or any(_same_stem(word, r) for r in read)
                or any(word.startswith(w) for w in _CONTEXT_WORDS)):
            continue
        fits = [c.name for c in columns if c.name not in used
                and any(_same_stem(word, t) for t in {*tokens(c.name),
                                                     *tokens(c.description or "")})]
        if 2 <= len(fits) <= 3:
            return True
    return False


def stat_open_topics(brief: TaskBrief, plan: StatPlan, query: Any = None) -> tuple[str, ...]:
    """The statistical topics the query leaves open for this reader and no fact of
    ``brief`` settles, in the order target, predictors, controls, filters, analysis.

    Args:
        brief: What the reader sees (query, columns, held facts).
        plan: The reader's plan (after its facts).
        query: The reader's :class:`~collabsim.domain.stats.reading.StatQuery` (its phrases
            for the columns; None: read from the plan only).
    """
    settled = {name for fact in brief.facts for name, _ in fact.setting}
    text = brief.query
    columns = [c for d in brief.datasets if d.name == plan.dataset for c in d.columns]
    phrases = (getattr(query, "phrases", None) or {}) if query is not None else {}
    used = {plan.target, *plan.predictors, *plan.controls}
    unresolved = query is not None and _unresolved_term(brief, query, columns, used)

    def unclear(column: str) -> bool:  # the column chosen for the query's words is unsure
        return bool(similar_columns(column, brief, plan.dataset, used)) or (
            column in phrases and _ambiguous_phrase(phrases[column], columns, column))

    relation = any(w in text.lower() for w in ("associat", "relat", "differ", "affect"))
    found: list[str] = []
    if not plan.target or unresolved or unclear(plan.target):
        found.append("target")
    if unresolved or any(unclear(p) for p in plan.predictors) or (
            not plan.predictors and plan.analysis in ("summary", "proportion") and relation):
        found.append("predictors")
    if not plan.controls and (_CONTROL_WORDS.search(text) or (
            plan.analysis in ("ols", "logit") and len(columns) > len(used) + 1)):
        found.append("controls")
    if not plan.filters and (_POPULATION_WORDS.search(text) or _GROUP_NOUN.search(text)
                             or getattr(query, "population", "")):
        found.append("filters")
    if (plan.analysis == "ols" and _BINARY_WORDS.search(
            _description(brief, plan.dataset, plan.target))) or (
            plan.analysis in ("ols", "correlation") and _STRENGTH_WORDS.search(text)):
        found.append("analysis")
    return tuple(t for t in found if t not in settled)
