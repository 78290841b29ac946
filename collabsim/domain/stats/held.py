"""Facts a participant holds, as a statistical reading uses them.

A task's fact (:class:`collabsim.core.knowledge.Fact`) fixes plan parameters with the keys
of :data:`~collabsim.domain.stats.model.FIX_KEYS`. The reading
(:func:`~collabsim.domain.stats.reading.read_query`) applies them *before* it picks the
target and predictors and before the analysis is chosen
(:func:`~collabsim.domain.stats.choice.plan_from_query`): a held filter's column is no
variable, a held target or predictor takes the place of the similar-sounding column the
query's words were taken for, held controls replace the read ones, and a held analysis
wins over the choice by variable kinds.

API (stable names): :func:`fact_fix(fact)`, :func:`held_fix(brief)`,
:func:`with_held_columns(text, mentions, columns, fixed)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace
from typing import Any

from collabsim.domain.stats.columns import Mention, find_mentions, rank_columns
from collabsim.domain.stats.model import ANALYSES, parse_filters


def fact_fix(fact: Any) -> dict[str, str]:
    """A fact's setting as a mapping (``Fact.fix``; empty for anything else)."""
    fix = getattr(fact, "fix", None)
    return dict(fix) if fix is not None else {}


def held_fix(brief: Any) -> dict[str, Any]:
    """The plan parameters the brief's held facts fix (later facts win): ``target`` (a
    column), ``predictors`` / ``controls`` (tuples of columns), ``filters`` (a tuple of
    filters), ``analysis`` (one of the analyses). A setting that cannot be read is
    ignored, as :meth:`~collabsim.domain.stats.model.StatPlan.with_fix` ignores it."""
    out: dict[str, Any] = {}
    for fact in getattr(brief, "facts", ()) or ():
        fix = fact_fix(fact)
        if fix.get("target"):
            out["target"] = fix["target"].strip()
        for key in ("predictors", "controls"):
            if key in fix:
                cols = tuple(c.strip() for c in fix[key].split("+") if c.strip()
                             and fix[key].strip() != "none")
                if cols or key == "controls":
                    out[key] = cols
        if "filters" in fix:
            with suppress(ValueError):
                out["filters"] = parse_filters(fix["filters"])
        if fix.get("analysis") in ANALYSES:
            out["analysis"] = fix["analysis"]
    return out


def with_held_columns(text: str, mentions: list[Mention], columns: Sequence[Any],
                       fixed: dict[str, Any]) -> list[Mention]:
    """The mentions with the columns a held fact names (target, predictors) in place of the
    similar-sounding columns the query's words were taken for ("the odds of quitting" is
    ``quit_intention`` when a fact says so), and the words naming a held column that
    matched no column clearly (a word two similar columns share) given to it."""
    held = [c for c in (fixed.get("target", ""), *fixed.get("predictors", ())) if c]
    if not held:
        return mentions
    by_name = {c.name: c for c in columns}
    out: list[Mention] = []
    for m in mentions:
        if m.column in held or m.score >= 100:
            out.append(m)
            continue
        ranked = {r.column: r.score for r in rank_columns(m.phrase, columns)}
        best = max(ranked.values(), default=0.0)
        alt = max(held, key=lambda c: ranked.get(c, 0.0))
        if ranked.get(alt, 0.0) > 0 and ranked[alt] >= 0.5 * best and alt not in {
                o.column for o in out}:
            out.append(replace(m, column=alt))
        else:
            out.append(m)
    for column in held:
        if column in {m.column for m in out} or column not in by_name:
            continue
        found = [m for m in find_mentions(text, [by_name[column]], min_score=0.3)
                 if not any(o.start < m.end and m.start < o.end for o in out)]
        if found:
            out.append(found[0])
    return sorted(out, key=lambda m: m.start)
