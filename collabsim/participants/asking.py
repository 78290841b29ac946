"""Asking and telling: whom the agent asks about a topic, and what a collaborator answers.

A task's facts (:mod:`collabsim.core.knowledge`) are held by some participants only. The
scripted agent asks about a topic the query leaves open (``[ask topic=<topic> to=<name>]``,
:mod:`collabsim.participants.tags`) the teammate whose area covers it (:func:`whom_to_ask`);
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
from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.time_expr import format_window, parse_window, year_text
from collabsim.participants.plan import AnalysisPlan, seeded_rng
from collabsim.participants.query import QuerySemantics
from collabsim.tasks.model import TaskBrief

__all__ = [
    "EXPERTISE_OF_FACT_AREA", "TOPIC_AREA", "OpenTopics", "believed_setting",
    "fact_expertise", "fact_on", "variants",
    "fact_sentence", "topic_kind", "whom_to_ask", "wrong_setting",
]

# A fact's area (core.knowledge.FACT_AREA) as a collaborator's area of expertise
# (participants.human.AREAS): data conventions are the computation's, readings the semantics'.
EXPERTISE_OF_FACT_AREA: dict[str, str] = {"data": "computation", "semantics": "semantics"}
# The area of expertise that covers a topic the query may leave open: whom to ask about it.
TOPIC_AREA: dict[str, str] = {"ordinal": "semantics", "relation": "semantics",
                              "window": "semantics", "domain": "semantics",
                              "column": "computation"}
# The collaborator profile whose expertise an area is (configs: D computation, R semantics).
_PROFILE_OF_AREA: dict[str, str] = {"computation": "D", "semantics": "R"}
# The issue kind a fact's topic corresponds to (its area decides deference and trust).
_TOPIC_KIND: dict[str, str] = {"ordinal": "wrong_ordinal", "relation": "peak_vs_plateau",
                               "window": "wrong_window", "column": "wrong_column_variant",
                               "domain": "misread_query"}
_OTHER_RELATION: dict[str, str] = {"peak": "plateau", "plateau": "peak", "rise": "fall",
                                   "fall": "rise", "growth_max": "growth_min",
                                   "growth_min": "growth_max"}

OpenTopics = Callable[[TaskBrief, QuerySemantics, AnalysisPlan], tuple[str, ...]]


def topic_kind(topic: str) -> str:
    """The issue kind a fact on ``topic`` corrects (its area decides deference and trust)."""
    return _TOPIC_KIND.get(topic, "misread_query")


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
    relation, no window or one shifted by its own length, another variant of the column
    (an unchanged parameter where there is no other value)."""
    out: list[tuple[str, str]] = []
    for key, value in fact.setting:
        out.append((key, _wrong_value(key, value, brief, rng)))
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


def variants(column: str, names: Sequence[str]) -> list[str]:
    """The other variants of a column's variable in the data (gap-filled ones first)."""
    stem = column.split("_")[0]
    same = [n for n in names if n != column and (n == stem or n.startswith(stem + "_"))]
    return sorted(same, key=lambda n: (not n.endswith("_inter"), n))


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


_SENTENCES: dict[str, Callable[[str], str]] = {
    "ordinal": _ordinal_sentence, "relation": _relation_sentence, "window": _window_sentence,
    "column": lambda value: f"Use {value}.",
}


def fact_sentence(topic: str, setting: tuple[tuple[str, str], ...]) -> str:
    """A plain sentence stating a setting (what a person says who states a value that is not
    the fact's own text, e.g. a wrong one)."""
    value = dict(setting)
    for key, sentence in _SENTENCES.items():
        if key in value:
            return sentence(value[key])
    return f"That is what I know about the {topic}."
