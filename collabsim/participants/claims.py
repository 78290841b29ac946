"""Collaborator checks of a drafted hypothesis, and the chat format of their issues.

* D (data analysis) recomputes the answer independently with the correct columns
  (:func:`check_numbers`) and compares the year with the draft; differences between its own
  computation and the agent's (``RESULT`` lines in the shared code history) are diagnosed as
  concrete issues: wrong column variant, wrong ordinal, peak vs plateau, ignored window. A
  raw column with no missing bin (as an inspect cell printed) is the same binned series as
  its gap-filled variant, so using it is no issue.
* R (researcher) compares the draft's wording with the query (:func:`check_wording`):
  ordinal (first vs second), direction (increase vs decrease), peak vs highest sustained
  values, simultaneity and the bounded period.

Issues travel in chat as readable text plus machine-readable tags
``[issue kind=wrong_ordinal fix=ordinal:2]`` so that the agent (scripted or an LLM) can act
on them; :mod:`collabsim.core.tags` formats and parses every such tag. Messages about a
draft end with ``[check draft=<fingerprint>]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from collabsim.core.tags import (
    draft_fingerprint,
    format_check,
    format_edit,
    format_issue,
    format_proposal,
)
from collabsim.domain.relations import DECREASE_RE, INCREASE_RE, ORDINAL_WORDS, relation_tags
from collabsim.domain.time_expr import claim_years, format_window, mentions_year, year_text
from collabsim.domain.variables import is_gap_filled
from collabsim.participants.cells import AnalysisResult, variants_agree
from collabsim.participants.query import QuerySemantics
from collabsim.participants.wording import describe_hypothesis, variable_phrase

_LOWEST_RE = re.compile(r"lowest|decline")

__all__ = [
    "Issue", "check_numbers", "check_wording", "claim_years", "describe_check",
    "format_check_message", "format_proposal_message",
]


@dataclass(frozen=True)
class Issue:
    """One problem a collaborator found in a draft.

    Attributes:
        kind: ``wrong_year``, ``wrong_column_variant``, ``wrong_ordinal``,
            ``peak_vs_plateau``, ``wrong_relation``, ``wrong_window`` or ``missing_year``.
        message: Chat-ready explanation.
        fix: Suggested plan parameters (``column``, ``ordinal``, ``relation``, ``window``).
    """

    kind: str
    message: str
    fix: tuple[tuple[str, str], ...] = ()

    def tag(self) -> str:
        """Machine-readable tag for chat."""
        return format_issue(self.kind, self.fix)












def format_proposal_message(issues: tuple[Issue, ...], draft: str, version: str,
                            edit: bool, replaces: bool = False) -> str:
    """A collaborator's own alternative to ``draft``: it edits the draft to ``version``
    (``edit``; ``replaces``: it puts its own version in the draft's place instead of using
    it) or proposes it and asks the agent to use it."""
    if edit:
        head = ("I will not use the draft as it stands and am putting my own version in "
                "its place." if replaces else "I am editing the draft with my own version.")
    else:
        head = "I disagree with the draft and propose my own version."
    parts = [head, *(f"({i}) {issue.message}" for i, issue in enumerate(issues, start=1)),
             format_proposal(version), *(i.tag() for i in issues),
             format_check(draft_fingerprint(draft))]
    if edit:
        fp = draft_fingerprint(version)
        parts += [format_edit(fp), format_check(fp)]
    return " ".join(parts)




def format_check_message(sender: str, issues: tuple[Issue, ...], draft: str,
                         confirmation: str = "") -> str:
    """Chat text for a check of ``draft``: the issues (or a confirmation) plus tags."""
    tag = format_check(draft_fingerprint(draft))
    if not issues:
        return f"{confirmation or 'The draft looks right to me.'} {tag}"
    body = " ".join(f"({i}) {issue.message}" for i, issue in enumerate(issues, start=1))
    tags = " ".join(issue.tag() for issue in issues)
    return f"I found {len(issues)} issue(s) with the draft: {body} {tags} {tag}"


# ------------------------------------------------------------------------------------ D


def check_numbers(
    draft: str, reference: AnalysisResult | None, agent: AnalysisResult | None,
    missing_bins: Mapping[str, int] | None = None,
) -> tuple[Issue, ...]:
    """D's check: compare the draft's year with an independent recomputation.

    Args:
        draft: The hypothesis text under review.
        reference: D's own result (correct columns); None when D could not compute.
        agent: The agent's latest result from the shared code history, when visible.
        missing_bins: Column -> missing bins, as the inspect cells in the shared code
            history printed them: a column variant that gives the same binned series as
            mine (:func:`~collabsim.participants.cells.variants_agree`) is not the cause
            of a different year and is not raised.

    Returns:
        Issues (empty when the year matches or cannot be verified).
    """
    gaps = missing_bins or {}
    if reference is not None and reference.relation == "describe":
        return _check_description(draft, reference, agent, gaps)
    if reference is None or reference.year is None:
        return ()
    years = claim_years(draft)
    target = year_text(reference.year)
    if reference.year in years:
        return ()
    columns = "+".join(reference.columns)
    lead = (f"I recomputed it on {columns} and get {target}, not {year_text(years[0])}."
            if years else f"The draft names no century; my recomputation on {columns} gives "
            f"{target}.")
    issues: list[Issue] = []
    if agent is not None:
        if agent.columns != reference.columns and not variants_agree(
                agent.columns, reference.columns, gaps):
            raw = [c for c in agent.columns if c not in reference.columns]
            why = ("another gap-filled variant, not the valid one; use" if raw and all(
                is_gap_filled(c) for c in raw)
                else "the raw column has gaps (missing bins); use the interpolated")
            issues.append(Issue(
                "wrong_column_variant",
                f"{lead} You used {'+'.join(raw) or 'other columns'}: {why} "
                f"{'+'.join(reference.columns)}.",
                (("column", "+".join(reference.columns)),)))
        if agent.window != reference.window:
            issues.append(Issue(
                "wrong_window",
                f"{lead} The search must be limited to the period "
                f"{_window_words(reference.window)}, you searched "
                f"{_window_words(agent.window)}.",
                (("window", format_window(reference.window)),)))
        if agent.ordinal != reference.ordinal:
            issues.append(Issue(
                "wrong_ordinal",
                f"{lead} That is the {ORDINAL_WORDS.get(agent.ordinal, agent.ordinal)} "
                f"occurrence; the {ORDINAL_WORDS.get(reference.ordinal, reference.ordinal)} "
                f"one is at {target} (events: "
                f"{', '.join(year_text(e) for e in reference.events) or 'none'}).",
                (("ordinal", str(reference.ordinal)),)))
        if agent.relation != reference.relation:
            kind = ("peak_vs_plateau" if {agent.relation, reference.relation}
                    == {"peak", "plateau"} else "wrong_relation")
            issues.append(Issue(
                kind,
                f"{lead} You computed a {agent.relation} but the question needs a "
                f"{reference.relation}.",
                (("relation", reference.relation),)))
    if not issues:
        issues.append(Issue("wrong_year" if years else "missing_year", lead,
                            _full_fix(reference)))
    return tuple(issues)


def _check_description(draft: str, reference: AnalysisResult, agent: AnalysisResult | None,
                       missing_bins: Mapping[str, int]) -> tuple[Issue, ...]:
    """D's check of an open question's answer: its own description of the same series."""
    if not reference.trends:
        return ()
    own = describe_hypothesis(reference)
    if own.strip() == draft.strip():
        return ()
    lead = f"My computation on {'+'.join(reference.columns)} says: \"{own}\""
    issues: list[Issue] = []
    if agent is not None and agent.relation == "describe":
        if agent.columns != reference.columns and not variants_agree(
                agent.columns, reference.columns, missing_bins):
            issues.append(Issue(
                "wrong_column_variant", f"{lead} You used {'+'.join(agent.columns)}; use "
                f"{'+'.join(reference.columns)}.", (("column", "+".join(reference.columns)),)))
        if agent.window != reference.window:
            issues.append(Issue(
                "wrong_window", f"{lead} The description must cover "
                f"{_window_words(reference.window)}, you described "
                f"{_window_words(agent.window)}.", (("window", format_window(reference.window)),)))
    if not issues:
        issues.append(Issue("wrong_description", lead, _full_fix(reference)))
    return tuple(issues)


def _full_fix(reference: AnalysisResult) -> tuple[tuple[str, str], ...]:
    return (("column", "+".join(reference.columns)), ("ordinal", str(reference.ordinal)),
            ("relation", reference.relation), ("window", format_window(reference.window)))


def _window_words(window: tuple[int, int] | None) -> str:
    if window is None:
        return "the whole record"
    return f"between {year_text(window[0])} and {year_text(window[1])}"


# ------------------------------------------------------------------------------------ R


def check_wording(semantics: QuerySemantics, draft: str) -> tuple[Issue, ...]:
    """R's check: does the draft's wording answer what the query asks?

    Args:
        semantics: The query's semantics (R parses the query itself).
        draft: The hypothesis text under review.
    """
    if semantics.relation == "describe":
        # an open question: only its period can be checked against the wording
        return tuple(_window_issue(semantics, draft))
    issues: list[Issue] = []
    if not claim_years(draft):
        issues.append(Issue("missing_year", "The question asks for a century, but the draft "
                            "names none."))
    issues += _ordinal_issue(semantics, draft.lower())
    issues += _direction_issue(semantics.relation, draft)
    issues += _shape_issue(semantics.relation, draft)
    issues += _growth_issue(semantics.relation, draft.lower())
    issues += _window_issue(semantics, draft)
    return tuple(issues)


def _ordinal_issue(semantics: QuerySemantics, low: str) -> list[Issue]:
    """The draft talks about another occurrence than the one asked (first, second ...)."""
    if semantics.relation not in ("rise", "fall", "simultaneous"):
        return []
    asked = semantics.ordinal
    said = [n for n, w in ORDINAL_WORDS.items() if re.search(rf"\b{w}\b", low)]
    if not ((asked > 1 and asked not in said) or (asked == 1 and said and 1 not in said)):
        return []
    return [Issue(
        "wrong_ordinal",
        f"The question asks about the {ORDINAL_WORDS.get(asked, asked)} time, but the "
        f"draft talks about the {ORDINAL_WORDS.get(said[0], said[0]) if said else 'first'}"
        " occurrence.",
        (("ordinal", str(asked)),))]


def _direction_issue(rel: str, draft: str) -> list[Issue]:
    """The draft describes a decrease where an increase is asked, or the other way round."""
    has_rise = INCREASE_RE.search(draft) is not None
    has_fall = DECREASE_RE.search(draft) is not None
    if rel == "rise" and has_fall and not has_rise:
        return [Issue("wrong_relation", "The question asks when it increased; the draft "
                      "describes a decrease.", (("relation", "rise"),))]
    if rel == "fall" and has_rise and not has_fall:
        return [Issue("wrong_relation", "The question asks when it decreased; the draft "
                      "describes an increase.", (("relation", "fall"),))]
    return []


def _shape_issue(rel: str, draft: str) -> list[Issue]:
    """Peak vs highest sustained values, or a simultaneous change the draft does not state."""
    tags = relation_tags(draft)
    if rel == "plateau" and "sustained" not in tags:
        return [Issue(
            "peak_vs_plateau", "The question asks where the highest *sustained* values begin, "
            "not for the single highest peak.", (("relation", "plateau"),))]
    if rel == "peak" and "sustained" in tags:
        return [Issue(
            "peak_vs_plateau", "The question asks for the peak (single highest value), not for "
            "the start of the highest sustained values.", (("relation", "peak"),))]
    if rel == "simultaneous" and "simultaneous" not in tags:
        return [Issue("wrong_relation", "The question asks for a simultaneous change of "
                      "both series; the draft does not state one.",
                      (("relation", "simultaneous"),))]
    return []


def _growth_issue(rel: str, low: str) -> list[Issue]:
    """Growth drafts are judged on the extreme they name, not on every rise/fall word."""
    lowest = _LOWEST_RE.search(low) is not None
    if rel == "growth_max" and lowest and "highest" not in low:
        return [Issue("wrong_relation", "The question asks for the highest growth.",
                      (("relation", "growth_max"),))]
    if rel == "growth_min" and "highest" in low and not lowest:
        return [Issue("wrong_relation", "The question asks for the lowest growth / "
                      "greatest decline.", (("relation", "growth_min"),))]
    return []


def _window_issue(semantics: QuerySemantics, draft: str) -> list[Issue]:
    if semantics.window is None:
        return []
    lo, hi = semantics.window
    if mentions_year(draft, lo) and mentions_year(draft, hi):
        return []
    return [Issue("wrong_window",
                  f"The question is bounded to the period {_window_words(semantics.window)}; "
                  "the draft does not answer within that period.",
                  (("window", format_window(semantics.window)),))]


def describe_check(semantics: QuerySemantics) -> str:
    """A short restatement of what the query asks (used in chat confirmations)."""
    names = " and ".join(variable_phrase(v) for v in semantics.variables) or "the data"
    nth = ORDINAL_WORDS.get(semantics.ordinal, str(semantics.ordinal))
    what: Mapping[str, str] = {
        "rise": f"the {nth} increase of {names}",
        "fall": f"the {nth} decrease of {names}",
        "peak": f"the peak of {names}",
        "plateau": f"the start of the highest sustained values of {names}",
        "simultaneous": f"the {nth} simultaneous change of {names}",
        "growth_max": "the highest growth rate" + (
            f" {_window_words(semantics.window)}" if semantics.window else ""),
        "growth_min": "the lowest growth rate" + (
            f" {_window_words(semantics.window)}" if semantics.window else ""),
    }
    return what.get(semantics.relation, f"a description of {names}")
