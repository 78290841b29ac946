"""Wording an analysis result as an archaeology-style hypothesis.

:func:`draft_hypothesis` turns a parsed ``RESULT`` into the sentence the agent puts in the
result editor (phrases from the domain's variable table, years via
:func:`~collabsim.domain.time_expr.year_text`); :func:`fallback_hypothesis` is the cautious
descriptive answer when the computation settles nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.stats.model import StatResult
from collabsim.domain.stats.reading import StatQuery
from collabsim.domain.time_expr import year_text
from collabsim.domain.variables import GROWTH, VARIABLES, column_stem
from collabsim.participants.cells import AnalysisResult
from collabsim.participants.query import QuerySemantics
from collabsim.participants.stats_reading import stat_draft


def variable_phrase(column: str) -> str:
    """Noun phrase for a column (vocabulary phrase, else the column name)."""
    stem = column_stem(column)
    if stem in VARIABLES:
        return VARIABLES[stem].phrases[0]
    if column.startswith("pollen_grate"):
        return GROWTH.phrases[0]
    return column


def draft_hypothesis(result: AnalysisResult | StatResult | None,
                     semantics: QuerySemantics | StatQuery) -> str:
    """Word a result as an archaeology-style hypothesis (cautious when there is no year); a
    statistical reading or result is worded by
    :func:`~collabsim.participants.stats_reading.stat_draft`."""
    if isinstance(semantics, StatQuery):
        return stat_draft(result if isinstance(result, StatResult) else None, semantics)
    if isinstance(result, StatResult):
        return stat_draft(result, StatQuery(result.target, result.predictors))
    if result is not None and result.relation == "describe" and result.trends:
        return describe_hypothesis(result)
    if result is None or result.year is None or not result.columns:
        return fallback_hypothesis(semantics, result)
    phrase = _PHRASES.get(result.relation)
    text = None if phrase is None else phrase(result, semantics)
    return fallback_hypothesis(semantics, result) if text is None else text


def _parts(result: AnalysisResult) -> tuple[str, str, str]:
    """When (the result's year), what (its first variable) and the ordinal's word."""
    assert result.year is not None
    nth = ORDINAL_WORDS.get(result.ordinal, f"{result.ordinal}th")
    return year_text(result.year), variable_phrase(result.columns[0]), nth


def _rise(result: AnalysisResult, semantics: QuerySemantics) -> str:
    when, x, nth = _parts(result)
    return f"Around {when}, {x} began to increase for the {nth} time."


def _fall(result: AnalysisResult, semantics: QuerySemantics) -> str:
    when, x, nth = _parts(result)
    return f"Around {when}, {x} decreased for the {nth} time."


def _peak(result: AnalysisResult, semantics: QuerySemantics) -> str:
    when, x, _ = _parts(result)
    return f"Around {when}, {x} peaked."


def _plateau(result: AnalysisResult, semantics: QuerySemantics) -> str:
    when, x, _ = _parts(result)
    return f"{x[:1].upper()}{x[1:]} begins to show its highest sustained values around {when}."


def _simultaneous(result: AnalysisResult, semantics: QuerySemantics) -> str | None:
    if len(result.columns) < 2:
        return None
    when, x, nth = _parts(result)
    y = variable_phrase(result.columns[1])
    dirs = semantics.directions or ("down", "down")
    if tuple(dirs[:2]) == ("down", "down"):
        return (f"Around {when}, {x} and {y} significantly decreased simultaneously for the "
                f"{nth} time.")
    past = {"up": "increased", "down": "declined"}
    return (f"Around {when}, {x} {past[dirs[0]]} while {y} {past[dirs[1]]} simultaneously "
            f"for the {nth} time.")


def _growth(result: AnalysisResult, semantics: QuerySemantics) -> str:
    when, _, _ = _parts(result)
    extreme = "highest" if result.relation == "growth_max" else "lowest"
    if result.window is None:
        scope = "of the whole observed record"
    else:
        scope = (f"of the period between {-result.window[0]} and {-result.window[1]} BCE"
                 if result.window[1] < 0 else
                 f"of the period between {year_text(result.window[0])} and "
                 f"{year_text(result.window[1])}")
    return f"Around {when}, the growth rate reached its {extreme} value {scope}."


_PHRASES: dict[str, Callable[[AnalysisResult, QuerySemantics], str | None]] = {
    "rise": _rise, "fall": _fall, "peak": _peak, "plateau": _plateau,
    "simultaneous": _simultaneous, "growth_max": _growth, "growth_min": _growth,
}


def fallback_hypothesis(semantics: QuerySemantics, result: AnalysisResult | None) -> str:
    """A cautious descriptive hypothesis for queries the scripted analysis cannot settle."""
    names = [variable_phrase(c) for c in (result.columns if result else ())] or [
        variable_phrase(v) for v in semantics.variables
    ]
    subject = " and ".join(names) if names else "the recorded indicators"
    return (f"The data do not allow a definite answer with a standard time-series check; "
            f"tentatively, the series of {subject} show no single clear event matching the "
            "question, and the pattern should be treated as uncertain.")


_TREND_WORDS = {"up": "increased", "down": "decreased", "flat": "stayed roughly level"}


def describe_hypothesis(result: AnalysisResult) -> str:
    """An open ("describe") question answered by what was computed: the period covered, each
    series' direction over it and, for two series or more, their correlation."""
    if result.window is None:
        scope = "Over the whole observed record"
    else:
        scope = f"Between {year_text(result.window[0])} and {year_text(result.window[1])}"
    parts = [f"{variable_phrase(col)} {_TREND_WORDS.get(trend, trend)}"
             for col, trend in result.trends]
    text = f"{scope}, " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1
                           else parts[0]) + "."
    if result.corr is not None and len(result.columns) >= 2:
        sign = ("positively" if result.corr >= 0.3 else "negatively" if result.corr <= -0.3
                else "hardly")
        text += (f" {variable_phrase(result.columns[0])[:1].upper()}"
                 f"{variable_phrase(result.columns[0])[1:]} and "
                 f"{variable_phrase(result.columns[1])} are {sign} related "
                 f"(r = {result.corr:.2f}).")
    return text


# relations a reader can take for one another (the misreadings of plan.MISREAD_RELATIONS)
_FAMILIES = ({"rise", "fall"}, {"peak", "plateau"}, {"growth_max", "growth_min"})


def restate(result: AnalysisResult, semantics: QuerySemantics) -> str | None:
    """A shown result reworded under a reader's own understanding of the query, or None
    when that reading needs a year the result does not show.

    What a researcher does to a draft without recomputing it: it states the asked occurrence
    when the printed events list it, and the period of a describe result. It does not claim
    a year it has not seen: a result read the other way within its family (rise/fall,
    peak/plateau, highest/lowest growth), for another occurrence than the printed events
    list, or computed over another period than the one it reads, gives no version of its
    own (it raises the issue and leaves the recomputation to the team).
    """
    changes: dict[str, object] = {}
    if result.relation == "describe":
        changes["window"] = semantics.window
    else:
        family = next((f for f in _FAMILIES if result.relation in f), set())
        if semantics.relation in family and semantics.relation != result.relation:
            return None
        if result.relation in ("rise", "fall", "simultaneous") and (
                semantics.ordinal != result.ordinal):
            if len(result.events) < semantics.ordinal:
                return None
            changes["ordinal"] = semantics.ordinal
            changes["year"] = result.events[semantics.ordinal - 1]
        if result.relation in ("growth_max", "growth_min") and result.window != semantics.window:
            return None
    return draft_hypothesis(replace(result, **changes), semantics)  # type: ignore[arg-type]
