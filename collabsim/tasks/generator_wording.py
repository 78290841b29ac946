"""Wording generated tasks: the query, the gold hypothesis and the task's decisive fact.

Every generated task has exactly one decisive :class:`~collabsim.core.knowledge.Fact`:

* a **reading** (held by R under ``tasks.knowledge=by_profile``): the query leaves one term
  open and the fact says what it means here -

  - ``ordinal`` (rise, fall, simultaneous change): the query asks for "the marked increase"
    and names no occurrence; the fact says which one (first, second or third, drawn
    uniformly);
  - ``relation`` (peak, plateau): the query asks when a series was "at its highest"; the fact
    says whether the single-century peak or the highest sustained values are meant;
  - ``window`` (highest/lowest growth): the query names a period of the site by name only
    ("during the site's main settlement phase"); the fact gives its years;

* a **convention** (held by D): the query is explicit (v1 wording) but the asked series come
  in three gap-filled dating variants; the fact says which one is valid at this site.

Golds state the planted answer in the scripted analysis's own wording (ordinal, relation and
period spelt out), so a correct analysis words exactly the gold.
"""

from __future__ import annotations

import numpy as np

from collabsim.core.knowledge import Fact
from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.thresholds import SUSTAIN_BINS
from collabsim.domain.time_expr import format_window, year_text
from collabsim.domain.variables import VARIABLES, Variable
from collabsim.tasks.generator_events import PlantedEvent

#: The topic of a reading fact per query shape.
READING_TOPIC: dict[str, str] = {
    "rise": "ordinal", "fall": "ordinal", "simultaneous": "ordinal",
    "peak": "relation", "plateau": "relation",
    "growth_max": "window", "growth_min": "window",
}
#: Site periods named by name only in window queries (no ordinal words, no known period).
PHASES: tuple[str, ...] = (
    "main settlement phase", "occupation horizon B", "building phase II", "fortified phase",
    "village phase", "occupation horizon C",
)
#: What each dating variant is, as column descriptions and convention facts say it.
VARIANT_LABELS: dict[str, str] = {
    "inter": "on the standard calibrated dates",
    "recal_inter": "on recalibrated dates",
    "model_inter": "on the dates of the Bayesian site model",
}


def word_task(rng: np.random.Generator, event: PlantedEvent, kind: str
              ) -> tuple[str, str, Fact]:
    """Return (query, gold hypothesis, decisive fact) of a planted event.

    Args:
        rng: The task's generator (draws the phrasing).
        event: The planted event.
        kind: ``reading`` or ``convention``.
    """
    names = _names(rng, event)
    gold = _gold(event, names)
    if kind == "convention":
        return _explicit_query(rng, event, names), gold, _convention_fact(event, names)
    query, fact = _reading(rng, event, names)
    return query, gold, fact


# ------------------------------------------------------------------------------- helpers


def _phrase(rng: np.random.Generator, var: Variable) -> str:
    return var.phrases[int(rng.integers(0, len(var.phrases)))]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _names(rng: np.random.Generator, event: PlantedEvent) -> tuple[str, ...]:
    return tuple(_phrase(rng, VARIABLES[v]) for v in event.variables)


def _between(window: tuple[int, int]) -> tuple[int, int]:
    return -window[0], -window[1]


def _verbs(directions: tuple[str, ...]) -> tuple[str, str]:
    return tuple("increase" if d == "up" else "decline" for d in directions[:2])  # type: ignore[return-value]


# --------------------------------------------------------------------------------- golds


def _gold(event: PlantedEvent, names: tuple[str, ...]) -> str:
    x = names[0]
    nth = ORDINAL_WORDS[event.ordinal]
    when = year_text(event.year)
    rel = event.relation
    if rel in ("growth_max", "growth_min"):
        assert event.window is not None
        a, b = _between(event.window)
        extreme = "highest" if rel == "growth_max" else "lowest"
        return (f"Around {when}, the growth rate reached its {extreme} value of the period "
                f"between {a} and {b} BCE.")
    if rel == "simultaneous":
        y = names[1]
        if event.directions == ("down", "down"):
            return (f"Around {when}, {x} and {y} significantly decreased simultaneously for "
                    f"the {nth} time.")
        past = {"up": "increased", "down": "declined"}
        return (f"Around {when}, {x} {past[event.directions[0]]} while {y} "
                f"{past[event.directions[1]]} simultaneously for the {nth} time.")
    return {
        "rise": f"Around {when}, {x} began to increase for the {nth} time.",
        "fall": f"Around {when}, {x} decreased for the {nth} time.",
        "peak": f"Around {when}, {x} peaked.",
        "plateau": f"{_cap(x)} begins to show its highest sustained values around {when}.",
    }[rel]


# ------------------------------------------------------------- explicit (convention) queries


def _explicit_query(rng: np.random.Generator, event: PlantedEvent,
                    names: tuple[str, ...]) -> str:
    """The query naming occurrence, relation and period outright (generator v1 wording)."""
    x = names[0]
    nth = ORDINAL_WORDS[event.ordinal]
    pick = int(rng.integers(0, 4))
    rel = event.relation
    if rel == "simultaneous":
        y = names[1]
        since = " since the start of the observational data" if event.ordinal > 1 else ""
        if event.directions == ("down", "down"):
            return (f"In which century did {x} and {y} significantly decrease simultaneously "
                    f"for the {nth} time{since}?")
        verb_x, verb_y = _verbs(event.directions)
        return (f"In which century did {x} {verb_x} while {y} {verb_y}d simultaneously "
                f"for the {nth} time{since}?")
    if rel in ("growth_max", "growth_min"):
        return _explicit_growth_query(event, pick)
    most = (f"In which century did {x} become quantitatively most frequent?"
            if VARIABLES[event.variables[0]].count_like
            else f"In which century did {x} reach its maximum?")
    options = {
        "rise": (
            f"In which century did {x} increase for the {nth} time?",
            f"In which century did {x} begin to increase for the {nth} time?",
            f"In which century did {x} rise for the {nth} time since the start of the "
            "observational data?",
            f"In which century did {x} begin to increase in importance for the {nth} time?",
        ),
        "fall": (
            f"In which century did {x} decrease for the {nth} time?",
            f"In which century did {x} decline for the {nth} time in observed history?",
            f"In which century did {x} drop for the {nth} time?",
            f"In which century did {x} decrease significantly for the {nth} time?",
        ),
        "peak": (
            f"In which century did {x} peak?",
            f"In which century did {x} have its highest peak?",
            most,
            f"In which century did {x} reach its highest value?",
        ),
        "plateau": (
            f"In which century does {x} begin to show its highest sustained values?",
            f"In which century did {x} begin to show its highest sustained values?",
            f"When did {x} start its period of highest sustained values?",
            f"In which century do the highest sustained values of {x} begin?",
        ),
    }
    return options[rel][pick]


def _explicit_growth_query(event: PlantedEvent, pick: int) -> str:
    assert event.window is not None
    a, b = _between(event.window)
    if event.relation == "growth_max":
        return (
            f"In what centuries did we see the highest growth between {a} and {b} BCE?",
            f"In which century was the growth rate highest in the period between {a} BCE "
            f"and {b} BCE?",
            f"When did we see the highest growth rate of landscape openness between {a} and "
            f"{b} BCE?",
            f"In what century did we see the highest growth phase of the period between {a} "
            f"BCE and {b} BCE?",
        )[pick]
    return (
        f"In which century did we see the greatest decline in the growth rate between "
        f"{a} and {b} BCE?",
        f"In what century was the growth rate lowest between {a} and {b} BCE?",
        f"When did the growth rate reach its lowest value in the period between {a} BCE "
        f"and {b} BCE?",
        f"In which century did we see the lowest growth between {a} and {b} BCE?",
    )[pick]


def _convention_fact(event: PlantedEvent, names: tuple[str, ...]) -> Fact:
    columns = event.columns
    what = " and ".join(names)
    listed = " and ".join(columns)
    verb = "is" if len(columns) == 1 else "are"
    text = (f"At this site only the gap-filled series {VARIANT_LABELS[event.variant]} "
            f"({listed}) {verb} valid for {what}; the other gap-filled variants use "
            "superseded dates.")
    return Fact("convention", "column", text, (("column", "+".join(columns)),))


# ------------------------------------------------------------------------ reading queries


def _reading(rng: np.random.Generator, event: PlantedEvent, names: tuple[str, ...]
             ) -> tuple[str, Fact]:
    """A query leaving the shape's topic open, and the reading fact that settles it."""
    topic = READING_TOPIC[event.relation]
    pick = int(rng.integers(0, 4))
    if topic == "ordinal":
        return _ordinal_reading(event, names, pick)
    x = names[0]
    if topic == "relation":
        query = (
            f"When were the values of {x} at their highest?",
            f"In which century were the values of {x} at their highest?",
            f"In which century did {x} reach its highest level?",
            f"When did the values of {x} stand at their highest?",
        )[pick]
        if event.relation == "plateau":
            meaning = (f"its highest sustained values (at least {SUSTAIN_BINS} consecutive "
                       "centuries), not a single-century peak")
        else:
            meaning = ("the single century with its highest value (its peak), not a period "
                       "of sustained values")
        term = "its highest level" if pick == 2 else "at their highest"
        text = f"In this study, for {x}, '{term}' means {meaning}."
        return query, Fact("reading", "relation", text, (("relation", event.relation),))
    assert event.window is not None
    phase = PHASES[int(rng.integers(0, len(PHASES)))]
    where = f"the site's {phase}"
    if event.relation == "growth_max":
        query = (
            f"In which century was the growth rate highest during {where}?",
            f"When did we see the highest growth rate of landscape openness during {where}?",
            f"In what century did we see the highest growth during {where}?",
            f"In which century did the growth rate reach its highest value during {where}?",
        )[pick]
    else:
        query = (
            f"In which century was the growth rate lowest during {where}?",
            f"In what century did we see the lowest growth during {where}?",
            f"When did the growth rate reach its lowest value during {where}?",
            f"In which century did we see the greatest decline in the growth rate during "
            f"{where}?",
        )[pick]
    a, b = _between(event.window)
    text = f"At this site the {phase} spans {a}\u2013{b} BCE."
    return query, Fact("reading", "window", text, (("window", format_window(event.window)),))


def _ordinal_reading(event: PlantedEvent, names: tuple[str, ...], pick: int
                     ) -> tuple[str, Fact]:
    x = names[0]
    nth = ORDINAL_WORDS[event.ordinal]
    if event.relation == "rise":
        query = (
            f"In which century did the marked increase of {x} begin?",
            f"In which century did {x} show its marked increase?",
            f"When did {x} begin its marked rise?",
            f"In which century did {x} increase markedly?",
        )[pick]
        text = (f"In this study 'the marked increase' of {x} means its {nth} significant "
                "increase.")
    elif event.relation == "fall":
        query = (
            f"In which century did the marked decline of {x} begin?",
            f"In which century did {x} show its marked decrease?",
            f"When did {x} begin its marked drop?",
            f"In which century did {x} decrease markedly?",
        )[pick]
        text = (f"In this study 'the marked decline' of {x} means its {nth} significant "
                "decrease.")
    else:
        y = names[1]
        if event.directions == ("down", "down"):
            query = (f"In which century did {x} and {y} show their marked simultaneous "
                     "decrease?")
            term = "the marked simultaneous decrease"
        else:
            verb_x, verb_y = _verbs(event.directions)
            query = (f"In which century did {x} {verb_x} while {y} {verb_y}d simultaneously, "
                     "in their marked joint change?")
            term = "the marked joint change"
        text = (f"In this study '{term}' of {x} and {y} means the {nth} time they changed "
                "together in this way.")
    return query, Fact("reading", "ordinal", text, (("ordinal", str(event.ordinal)),))
