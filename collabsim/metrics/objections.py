"""Were the collaborators' objections right? Counted from a session's trace against the gold.

An **objection** is a simulated human's chat message that raises issues with a draft
(``[issue kind=... fix=...]`` tags), about the draft named by its ``[check draft=<fingerprint>]``
tag; each (sender, draft) pair counts once; a message cut off by the session's end (status
``interrupted``) was never posted and is no objection (an edit that only restates a draft it
agrees with is no objection). The objected draft's text is the one with that fingerprint
among the session's editor updates and the agent's draft announcements.

An objection claims that the draft is wrong in the parts of the answer its issues name
(:data:`ISSUE_PARTS`: a wrong relation is about the judge's ``relation`` part, a wrong year
or column variant about the ``context`` - the year the computation gives -, a wrong
variable about ``variable_f1``) and, through each issue's fix, what the plan should be
instead. It is **wrong** when

1. a fix contradicts what the task is known to mean: one of the task's facts
   (:class:`~collabsim.core.knowledge.Fact`: the fix sets a parameter the fact settles to
   another value - it asserts what the task's premise rules out), what the gold hypothesis
   states (:func:`contradicts_gold`: an increase fixed to a fall, a sustained plateau fixed
   to a peak, the greatest decline fixed to the highest growth, an n-th occurrence to
   another), or the columns the task's reference analysis reads (a column fix naming a
   variant of a variable the reference reads in another, gap-filled variant:
   :func:`contradicts_reference`), or else
2. the collaborator proposed a text that scores lower against the gold than the objected
   draft (the judge's Performance), or else
3. its claim is false: the proposal scores the same as the draft or there is none, and the
   draft already has the full score (1) in every part the objection's issues name.

So an objection to a draft that is wrong only in a part the objection does not raise is
wrong, and so is one whose fix the gold contradicts even where the draft is imperfect in the
part it raises (a relation score of 0.5 for a wrong ordinal does not make "it asks for a
fall" right when the gold states a rise). A column variant's claim is checked against a
fact or the reference analysis (the gold's text names no column variant); without either,
only through the score. (Before, an objection without a proposal counted right whenever the
draft was imperfect anywhere, and one whose proposal scored the same as the draft counted
wrong even when the draft was wrong where it said.) Participants never see this: it is a
metric, computed after the session with the gold, the facts and the reference that only
metrics read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from collabsim.core.events import TraceEvent
from collabsim.core.knowledge import Fact
from collabsim.core.tags import (
    checked_drafts,
    draft_fingerprint,
    parse_issues,
    proposal,
    raises_issues,
)
from collabsim.domain.relations import ordinal, relation_tags
from collabsim.domain.stats.model import parse_filters
from collabsim.domain.time_expr import parse_window
from collabsim.domain.variables import canonical_column, is_gap_filled
from collabsim.metrics.outcome import HypothesisScore

_ANNOUNCED = re.compile(r'Draft: "(.*)" \(computed on', re.S)

#: The parts of the judge's score (:class:`~collabsim.metrics.outcome.HypothesisScore`) each
#: issue kind is about: the time-series checks (:mod:`collabsim.participants.claims`,
#: :mod:`collabsim.participants.collaborator_review`) and the statistical ones
#: (:mod:`collabsim.participants.stat_claims`). A kind not listed is about every part.
ISSUE_PARTS: dict[str, tuple[str, ...]] = {
    # time series: the year a computation gives is the claim's context
    "wrong_year": ("context",), "missing_year": ("context",), "wrong_window": ("context",),
    "wrong_column_variant": ("context",), "wrong_relation": ("relation",),
    "wrong_ordinal": ("relation", "context"), "peak_vs_plateau": ("relation", "context"),
    "wrong_description": ("relation", "variable_f1"),
    # statistical: controls and the population are context (judge_stats)
    "wrong_variable": ("variable_f1",), "omitted_control": ("context",),
    "wrong_subgroup": ("context",), "wrong_analysis": ("relation",),
    "linear_for_binary": ("relation",),
}
_ALL_PARTS = ("context", "variable_f1", "relation")
#: A relation fix (the plan's relation) against the gold's relation tags
#: (:func:`~collabsim.domain.relations.relation_tags`): (tags that contradict it, tags that
#: confirm it despite those). A rise contradicts a gold stating only a decrease; a peak
#: contradicts a gold stating sustained values; a plateau a gold stating an extreme but no
#: sustained values; the highest growth a gold stating a lowest value or a decline (and no
#: increase), the lowest growth a gold stating a highest value and no decline. Simultaneity
#: and the other relations are left to the score.
_RELATION_AGAINST: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "rise": (frozenset({"decrease"}), frozenset({"increase"})),
    "fall": (frozenset({"increase"}), frozenset({"decrease"})),
    "peak": (frozenset({"sustained"}), frozenset()),
    "plateau": (frozenset({"extreme"}), frozenset({"sustained"})),
    "growth_max": (frozenset({"trough", "decrease"}), frozenset({"increase"})),
    "growth_min": (frozenset({"extreme"}), frozenset({"trough", "decrease"})),
}
_LISTS = frozenset({"column", "predictors", "controls"})


@dataclass(frozen=True)
class ObjectionCounts:
    """Objections in one session and how many of them were wrong (NaN-free counts)."""

    objections: int
    wrong: int


def objection_counts(events: Sequence[TraceEvent],
                     score: Callable[[str], HypothesisScore],
                     facts: Sequence[Fact] = (), gold: str = "",
                     reference_columns: Collection[str] = ()) -> ObjectionCounts:
    """Count the collaborators' objections and the wrong ones (module docstring).

    Args:
        events: The session's trace events.
        score: The judge's score of a hypothesis text against the task's gold.
        facts: The task's facts (all of them, whoever held them in the session).
        gold: The gold hypothesis (for :func:`contradicts_gold`; empty: not checked).
        reference_columns: The columns the task's reference analysis reads
            (:meth:`~collabsim.metrics.reference.ReferenceWorkflow.used_columns`; empty: not
            checked).
    """
    settled = _settled(facts)
    read = frozenset(reference_columns)
    drafts: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    n = wrong = 0
    for event in events:
        if event.status == "interrupted":  # cut off by the session's end: nobody saw it
            continue
        _note_draft(event, drafts)
        objection = _objection(event, drafts, seen)
        if objection is None:
            continue
        objected, proposed, issues = objection
        n += 1
        wrong += _is_wrong(issues, score(objected),
                           score(proposed) if proposed is not None else None, settled, gold,
                           read)
    return ObjectionCounts(n, wrong)


def _is_wrong(issues: tuple[tuple[str, dict[str, str]], ...], draft: HypothesisScore,
              proposed: HypothesisScore | None, settled: dict[str, object], gold: str,
              reference_columns: frozenset[str]) -> bool:
    """Rules 1-3 of the module docstring for one objection."""
    if any(key in settled and _normalised(key, value) != settled[key]
           for _, fix in issues for key, value in fix.items()):
        return True
    if gold and any(contradicts_gold(fix, gold) for _, fix in issues):
        return True
    if any(contradicts_reference(fix, reference_columns) for _, fix in issues):
        return True
    if proposed is not None and proposed.performance != draft.performance:
        return proposed.performance < draft.performance
    parts = {part for kind, _ in issues for part in ISSUE_PARTS.get(kind, _ALL_PARTS)}
    return all(getattr(draft, part) >= 1.0 for part in parts or _ALL_PARTS)


def contradicts_gold(fix: dict[str, str], gold: str) -> bool:
    """Whether an issue's fix asserts a relation or an occurrence the gold contradicts.

    With ``T`` the gold's relation tags: ``relation=r`` contradicts it when ``T`` holds one of
    r's contradicting tags and none of its confirming ones (``_RELATION_AGAINST``: rise vs a
    decrease, fall vs an increase, peak vs sustained values, plateau vs an extreme without
    sustained values, highest growth vs a lowest value or a decline, lowest growth vs a
    highest value); ``ordinal=k`` when the gold states an occurrence other than the k-th
    (:func:`~collabsim.domain.relations.ordinal`; a gold stating none is not contradicted).
    """
    against = _RELATION_AGAINST.get(fix.get("relation", ""))
    if against is not None:
        tags = relation_tags(gold)
        if tags & against[0] and not tags & against[1]:
            return True
    asked = fix.get("ordinal", "")
    stated = ordinal(gold) if asked.isdigit() else None
    return stated is not None and int(asked) != stated


def contradicts_reference(fix: dict[str, str], reference_columns: Collection[str]) -> bool:
    """Whether an issue's column fix names another variant of a variable the reference reads.

    A fixed column ``c`` (of ``column=a+b``) contradicts the reference columns ``R`` when
    ``c`` is not in ``R`` but a column of the same variable is
    (:func:`~collabsim.domain.variables.canonical_column`: ``Dagger`` and ``Dagger_inter``
    are one variable): the reference analysis reads that variable in another variant. Only
    a reference that reads a gap-filled (``_inter``) column settles a variant: the generated
    suite's references read the task's valid variant, while the packaged DiscoveryBench
    archaeology references read the raw columns as the data give them (all 38), which
    says nothing about which variant is valid.
    """
    columns = [c for c in fix.get("column", "").split("+") if c]
    if not columns or not any(is_gap_filled(c) for c in reference_columns):
        return False
    read = {canonical_column(c) for c in reference_columns}
    return any(c not in reference_columns and canonical_column(c) in read for c in columns)


def _settled(facts: Sequence[Fact]) -> dict[str, object]:
    """The plan parameters the task's facts settle, normalised for comparison with a fix."""
    return {key: _normalised(key, value) for fact in facts for key, value in fact.setting}


def _normalised(key: str, value: str) -> object:
    """A fix or fact value in a form where equal settings compare equal (a window as its
    bounds, a column list or filter list as a set; ``none`` is the empty list)."""
    if key == "window":
        return parse_window(value)
    if key in _LISTS:
        return frozenset(part for part in value.split("+") if part and part != "none")
    if key == "filters":
        try:
            return frozenset(parse_filters(value))
        except ValueError:  # not a filter list a participant writes: compared as text
            return value.strip()
    return value.strip()


def _note_draft(event: TraceEvent, drafts: dict[str, str]) -> None:
    """Remember the draft an editor update writes or the agent announces, by fingerprint."""
    args = event.args or {}
    if event.action_type == "EDITOR_UPDATE" and isinstance(args.get("text"), str):
        drafts.setdefault(draft_fingerprint(args["text"]), args["text"])
    elif event.action_type == "SEND_TEAMMATE_MESSAGE" and event.actor_type == "ai":
        found = _ANNOUNCED.search(str(args.get("message", "")))
        if found is not None:
            drafts.setdefault(draft_fingerprint(found.group(1)), found.group(1))


def _objection(
    event: TraceEvent, drafts: dict[str, str], seen: set[tuple[str, str]]
) -> tuple[str, str | None, tuple[tuple[str, dict[str, str]], ...]] | None:
    """The objection a human's message makes, counted once per (sender, draft).

    Returns:
        (the objected draft's text, the text proposed instead or None, the message's
        ``(kind, fix)`` issues), or None when the event is no new objection to a known draft.
    """
    if event.action_type != "SEND_TEAMMATE_MESSAGE" or event.actor_type != "human":
        return None
    message = str((event.args or {}).get("message", ""))
    if not raises_issues(message):
        return None
    checked = checked_drafts(message)
    if not checked or (event.actor, checked[0]) in seen:
        return None
    seen.add((event.actor, checked[0]))
    objected = drafts.get(checked[0])
    if objected is None:
        return None
    return objected, proposal(message), parse_issues(message)
