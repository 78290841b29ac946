"""Were the collaborators' objections right? Counted from a session's trace against the gold.

An **objection** is a simulated human's chat message that raises issues with a draft
(``[issue kind=...]`` tags), about the draft named by its ``[check draft=<fingerprint>]``
tag; each (sender, draft) pair counts once; a message cut off by the session's end (status
``interrupted``) was never posted and is no objection (an edit that only restates a draft it
agrees with is no objection). The objected draft's text is the one with that fingerprint
among the session's editor updates and the agent's draft announcements.

An objection is **wrong** when the objected draft scores at least as well against the gold
hypothesis as what the collaborator proposed instead (the judge's Performance); when it
proposed no text, when the objected draft already had the full score (1). Participants never
see this: it is a metric, computed after the session with the gold that only metrics read.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from collabsim.core.events import TraceEvent
from collabsim.participants.tags import checked_drafts, proposal, raises_issues

_ANNOUNCED = re.compile(r'Draft: "(.*)" \(computed on', re.S)


@dataclass(frozen=True)
class ObjectionCounts:
    """Objections in one session and how many of them were wrong (NaN-free counts)."""

    objections: int
    wrong: int


def _fingerprint(text: str) -> str:
    """The fingerprint a collaborator's ``[check draft=...]`` tag names a draft by."""
    return f"{zlib.crc32(text.strip().encode('utf-8')):08x}"


def objection_counts(events: Sequence[TraceEvent],
                     score: Callable[[str], float]) -> ObjectionCounts:
    """Count the collaborators' objections and the wrong ones (module docstring).

    Args:
        events: The session's trace events.
        score: Performance of a hypothesis text against the task's gold.
    """
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
        objected, proposed = objection
        n += 1
        wrong += score(objected) >= (score(proposed) if proposed is not None else 1.0)
    return ObjectionCounts(n, wrong)


def _note_draft(event: TraceEvent, drafts: dict[str, str]) -> None:
    """Remember the draft an editor update writes or the agent announces, by fingerprint."""
    args = event.args or {}
    if event.action_type == "EDITOR_UPDATE" and isinstance(args.get("text"), str):
        drafts.setdefault(_fingerprint(args["text"]), args["text"])
    elif event.action_type == "SEND_TEAMMATE_MESSAGE" and event.actor_type == "ai":
        found = _ANNOUNCED.search(str(args.get("message", "")))
        if found is not None:
            drafts.setdefault(_fingerprint(found.group(1)), found.group(1))


def _objection(
    event: TraceEvent, drafts: dict[str, str], seen: set[tuple[str, str]]
) -> tuple[str, str | None] | None:
    """The objection a human's message makes, counted once per (sender, draft).

    Returns:
        (the objected draft's text, the text proposed instead or None), or None when the
        event is no new objection to a known draft.
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
    return objected, proposal(message)
