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

_ISSUE = re.compile(r"\[issue kind=\w+")
_CHECK = re.compile(r"\[check draft=([0-9a-f]{8})\]")
_PROPOSAL = re.compile(r'I would write instead: "(.*?)" \[', re.S)
_ANNOUNCED = re.compile(r'Draft: "(.*)" \(computed on', re.S)


@dataclass(frozen=True)
class ObjectionCounts:
    """Objections in one session and how many of them were wrong (NaN-free counts)."""

    objections: int
    wrong: int


def _fingerprint(text: str) -> str:
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
        args = event.args or {}
        if event.action_type == "EDITOR_UPDATE" and isinstance(args.get("text"), str):
            drafts.setdefault(_fingerprint(args["text"]), args["text"])
        if event.action_type != "SEND_TEAMMATE_MESSAGE":
            continue
        message = str(args.get("message", ""))
        if event.actor_type == "ai":
            if (found := _ANNOUNCED.search(message)) is not None:
                drafts.setdefault(_fingerprint(found.group(1)), found.group(1))
            continue
        if event.actor_type != "human":
            continue
        proposed = _PROPOSAL.search(message)
        if _ISSUE.search(message) is None:
            continue
        checked = _CHECK.findall(message)
        if not checked or (event.actor, checked[0]) in seen:
            continue
        seen.add((event.actor, checked[0]))
        objected = drafts.get(checked[0])
        if objected is None:
            continue
        n += 1
        if proposed is not None:
            wrong += score(objected) >= score(proposed.group(1))
        else:
            wrong += score(objected) >= 1.0
    return ObjectionCounts(n, wrong)
