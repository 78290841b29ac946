"""Asking and telling: whom the agent asks about a topic, and what a collaborator answers.

A task's facts (:mod:`collabsim.core.knowledge`) are held by some participants only. The
scripted agent asks about a topic the query leaves open (``[ask topic=<topic> to=<name>]``,
:mod:`collabsim.core.tags`) the teammate whose area covers it (:func:`whom_to_ask`);
a scripted collaborator answers from the facts of its brief (``[fact topic=... <key>=<value>]``)
- fallibly: with probability its error rate for the fact's area it states a wrong value
(:func:`believed_setting`) - or says it does not know (``[fact topic=... unknown]``).

Areas: a fact's area (:data:`~collabsim.core.knowledge.FACT_AREA`: ``data`` or ``semantics``)
is a collaborator's area of expertise ``computation`` (data conventions) or ``semantics``
(readings, domain) - :data:`EXPERTISE_OF_FACT_AREA`. The rates are the collaborator's
``error_in_area`` / ``error_outside`` (:mod:`collabsim.participants.expertise` lists every
participant's per-area rates in one place).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from collabsim.core.knowledge import FACT_AREA, Fact
from collabsim.core.tags import format_ask, format_fact
from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.time_expr import format_window, parse_window, year_text
from collabsim.domain.variables import is_gap_filled
from collabsim.participants.plan import MISTAKE_PARAMETER, AnalysisPlan, seeded_rng
from collabsim.participants.query import QuerySemantics
from collabsim.participants.stat_mistakes import similar_columns
from collabsim.tasks.model import TaskBrief

__all__ = [
    "EXPERTISE_OF_FACT_AREA", "TOPIC_AREA", "OpenTopics", "believed_setting",
    "fact_expertise", "fact_on", "variants", "question_text", "settled_kinds", "statement",
    "fact_sentence", "topic_kind", "whom_to_ask", "wrong_setting",
]

# A fact's area (core.knowledge.FACT_AREA) as a collaborator's area of expertise
# (participants.human.AREAS): data conventions are the computation's, readings the semantics'.
EXPERTISE_OF_FACT_AREA: dict[str, str] = {"data": "computation", "semantics": "semantics"}
# The area of expertise that covers a topic the query may leave open: whom to ask about it.
TOPIC_AREA: dict[str, str] = {"ordinal": "semantics", "relation": "semantics",
                              "window": "semantics", "domain": "semantics",
                              "column": "computation",
                              # statistical family: the model's parts are D's, which
                              # variable and population the query means R's
                              "controls": "computation", "analysis": "computation",
                              "target": "semantics", "predictors": "semantics",
                              "filters": "semantics"}
# The collaborator profile whose expertise an area is (configs: D computation, R semantics).
_PROFILE_OF_AREA: dict[str, str] = {"computation": "D", "semantics": "R"}
# The issue kind a fact's topic corresponds to (its area decides deference and trust).
_TOPIC_KIND: dict[str, str] = {"ordinal": "wrong_ordinal", "relation": "peak_vs_plateau",
                               "window": "wrong_window", "column": "wrong_column_variant",
                               "domain": "misread_query",
                               "target": "wrong_variable", "predictors": "wrong_variable",
                               "controls": "omitted_control", "filters": "wrong_subgroup",
                               "analysis": "linear_for_binary"}
_OTHER_RELATION: dict[str, str] = {"peak": "plateau", "plateau": "peak", "rise": "fall",
                                   "fall": "rise", "growth_max": "growth_min",
                                   "growth_min": "growth_max"}

OpenTopics = Callable[[TaskBrief, QuerySemantics, AnalysisPlan], tuple[str, ...]]


def topic_kind(topic: str) -> str:
    """The issue kind a fact on ``topic`` corrects (its area decides deference and trust)."""
    return _TOPIC_KIND.get(topic, "misread_query")


def settled_kinds(facts: Sequence[Fact]) -> frozenset[str]:
    """The mistake kinds a holder of ``facts`` does not make: the kind each fact's topic
    corrects (:func:`topic_kind`) and every kind that would change a parameter a fact fixes
    (:data:`~collabsim.participants.plan.MISTAKE_PARAMETER`). A person reads the task with
    its facts as it believes them, so its own check never contradicts what it states or
    records (a relation fact settles the relation against ``misread_query`` too)."""
    fixed = {key for f in facts for key, _ in f.setting}
    kinds = {topic_kind(f.topic) for f in facts if f.setting}
    kinds.update(k for k, parameter in MISTAKE_PARAMETER.items() if parameter in fixed)
    return frozenset(kinds)


def whom_to_ask(topic: str, teammates: Sequence[str]) -> tuple[str, ...]:
    """The teammates to ask about ``topic``, best first: the one whose profile's area covers
    it (``R`` for readings and domain, ``D`` for the data's conventions), then the others in
    team order; empty without teammates."""
    best = _PROFILE_OF_AREA.get(TOPIC_AREA.get(topic, "semantics"), "")
    return tuple(sorted(teammates, key=lambda name: name != best))


def fact_on(facts: Sequence[Fact], topic: str) -> Fact | None:
    """The first fact among ``facts`` that settles ``topic`` (None: none does)."""
    return next((f for f in facts if f.topic == topic), None)


def fact_expertise(fact: Fact) -> str:
    """The area of expertise (``computation`` / ``semantics``) a fact belongs to."""
    return EXPERTISE_OF_FACT_AREA[FACT_AREA[fact.kind]]


def believed_setting(fact: Fact, brief: TaskBrief, error_rate: float, seed: int, name: str
                     ) -> tuple[tuple[str, str], ...]:
    """What a holder of ``fact`` states when asked or when recording it: the fact's setting,
    or - with probability ``error_rate``, drawn once per (seed, person, task, topic) - a wrong
    value (:func:`wrong_setting`). The same draw serves every answer and memory entry of the
    session, so a person is consistently right or wrong about one fact."""
    rng = seeded_rng(seed, name, brief.task_id, fact.topic, "answer")
    if not fact.setting or rng.random() >= error_rate:
        return fact.setting
    return wrong_setting(fact, brief, rng)


def wrong_setting(fact: Fact, brief: TaskBrief, rng: object) -> tuple[tuple[str, str], ...]:
    """A wrong value of each parameter the fact fixes: another ordinal (1-3), the other
    relation, no window or one shifted by its own length, another variant of the column;
    on a statistical task a similar-sounding other column (target, predictors), the last
    control left out, no filter, ols for logit and back (an unchanged parameter where there
    is no other value)."""
    out: list[tuple[str, str]] = []
    for key, value in fact.setting:
        wrong = _STAT_WRONG.get(key)
        out.append((key, wrong(value, brief, rng.random) if wrong is not None  # type: ignore[attr-defined]
                    else _wrong_value(key, value, brief, rng)))
    return tuple(out)


def _wrong_value(key: str, value: str, brief: TaskBrief, rng: object) -> str:
    draw = rng.random  # type: ignore[attr-defined]
    if key == "ordinal":
        others = [n for n in (1, 2, 3) if str(n) != value]
        return str(others[int(draw() * len(others)) % len(others)])
    if key == "relation":
        return _OTHER_RELATION.get(value, value)
    if key == "window":
        window = parse_window(value)
        if window is None or draw() < 0.5:
            return format_window(None)
        span = window[1] - window[0]
        shift = span if draw() < 0.5 else -span
        return format_window((window[0] + shift, window[1] + shift))
    if key == "column":
        parts = value.split("+")
        names = [c.name for d in brief.datasets for c in d.columns]
        for i, part in enumerate(parts):
            others = variants(part, names)
            if others:
                parts[i] = others[0]
                return "+".join(parts)
    return value


def _other_column(value: str, brief: TaskBrief, draw: Callable[[], float]) -> str:
    """A similar-sounding other column for each of ``value``'s ``+``-joined columns (the
    first that has one is replaced)."""
    parts = value.split("+")
    for i, part in enumerate(parts):
        for info in brief.datasets:
            if part in {c.name for c in info.columns}:
                others = similar_columns(part, brief, info.name, parts)
                if others:
                    parts[i] = others[0]
                    return "+".join(parts)
    return value


def _wrong_controls(value: str, brief: TaskBrief, draw: Callable[[], float]) -> str:
    """The controls with the last one left out (``none`` for none)."""
    parts = [p for p in value.split("+") if p and p != "none"]
    return "+".join(parts[:-1]) or "none"


def _wrong_filters(value: str, brief: TaskBrief, draw: Callable[[], float]) -> str:
    """No filter (the whole table) for a population; an unfiltered table stays so."""
    return "none"


def _wrong_analysis(value: str, brief: TaskBrief, draw: Callable[[], float]) -> str:
    """The linear model for a logistic one and the other way round; else ols."""
    return {"logit": "ols", "ols": "logit"}.get(value, "ols")


# How a holder states a wrong value of a statistical fact (the mistakes of the family,
# collabsim.participants.stat_mistakes).
_STAT_WRONG: dict[str, Callable[[str, TaskBrief, Callable[[], float]], str]] = {
    "target": _other_column, "predictors": _other_column, "controls": _wrong_controls,
    "filters": _wrong_filters, "analysis": _wrong_analysis,
}


def variants(column: str, names: Sequence[str]) -> list[str]:
    """The other variants of a column's variable in the data (gap-filled ones first)."""
    stem = column.split("_")[0]
    same = [n for n in names if n != column and (n == stem or n.startswith(stem + "_"))]
    return sorted(same, key=lambda n: (not is_gap_filled(n), n))


def _ordinal_sentence(value: str) -> str:
    n = int(value) if value.isdigit() else 0
    return f"It means the {ORDINAL_WORDS.get(n, value)} occurrence."


def _relation_sentence(value: str) -> str:
    return {"plateau": "It means the highest sustained values, not a single-century peak.",
            "peak": "It means the single highest value (the peak)."
            }.get(value, f"It means a {value}.")


def _window_sentence(value: str) -> str:
    window = parse_window(value)
    if window is None:
        return "It is not limited to a period: use the whole record."
    return f"The period spans {year_text(window[0])} to {year_text(window[1])}."


def _columns_words(value: str) -> str:
    return " and ".join(c for c in value.split("+") if c) or "none"


_ANALYSIS_WORDS: dict[str, str] = {
    "ols": "a linear regression", "logit": "a logistic regression (the outcome is binary)",
    "correlation": "a correlation", "ttest": "a comparison of two group means (t-test)",
    "chi2": "a chi-square test of association", "anova": "an analysis of variance",
    "proportion": "a proportion with its interval", "summary": "descriptive statistics",
}

_SENTENCES: dict[str, Callable[[str], str]] = {
    "ordinal": _ordinal_sentence, "relation": _relation_sentence, "window": _window_sentence,
    "column": lambda value: f"Use {value}.",
    "target": lambda value: f"The outcome the question means is {value}.",
    "predictors": lambda value: f"The variable the question asks about is {_columns_words(value)}.",
    "controls": lambda value: ("No controls are needed." if value in ("", "none")
                               else f"Control for {_columns_words(value)}."),
    "filters": lambda value: ("The question is about the whole table, no subgroup."
                              if value in ("", "none")
                              else f"The population is the rows where {value}."),
    "analysis": lambda value: f"The analysis is {_ANALYSIS_WORDS.get(value, value)}.",
}


def fact_sentence(topic: str, setting: tuple[tuple[str, str], ...]) -> str:
    """A plain sentence stating a setting (what a person says who states a value that is not
    the fact's own text, e.g. a wrong one)."""
    value = dict(setting)
    for key, sentence in _SENTENCES.items():
        if key in value:
            return sentence(value[key])
    return f"That is what I know about the {topic}."


def question_text(topic: str, whom: str) -> str:
    """The chat message asking teammate ``whom`` what the task means on ``topic`` (ends
    with its ask tag)."""
    return (f"{whom}, before I compute: what does the task mean on the {topic}? You may know "
            f"it and I do not. {format_ask(topic, whom)}")


def statement(brief: TaskBrief, topic: str,
              believed: Callable[[Fact], tuple[tuple[str, str], ...]] | None = None) -> str:
    """What a participant says when asked about ``topic``: the fact of its ``brief`` on it
    as it believes it (``believed(fact)`` gives the setting it states, default the fact's
    own; the fact's text when that is the fact's setting, else :func:`fact_sentence`), or
    that it does not know; ends with the fact tag."""
    fact = fact_on(brief.facts, topic)
    if fact is None:
        return f"I don't know what the task means on the {topic}. {format_fact(topic, None)}"
    setting = believed(fact) if believed is not None else fact.setting
    said = fact.text if setting == fact.setting else fact_sentence(topic, setting)
    return f"{said} {format_fact(topic, setting)}"
