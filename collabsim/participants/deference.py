"""Which of the issues a collaborator's check found it voices: deferring outside its area.

A collaborator's check compares a draft with its own analysis, which carries its reading of
everything, also of what lies outside its area (D recomputes under its own reading of the
query). With probability ``object_outside`` (its profile parameter, default 1: the behaviour
before the setting existed) it voices every issue it found; otherwise it **defers**: it raises
only the issues of its own area and leaves the rest to the teammate whose area they are (a
team with a working transactive memory: Wegner 1987; Moreland & Myaskovsky 2000).
"""

from __future__ import annotations

from collections.abc import Callable

from collabsim.participants.asking import TOPIC_AREA
from collabsim.participants.claims import Issue
from collabsim.participants.human import HumanModel

__all__ = ["in_area", "owners_check", "voiced"]


def in_area(issue: Issue, human: HumanModel) -> bool:
    """Whether ``issue`` lies in the person's area: every plan setting its fix names is a
    topic of that area (:data:`~collabsim.participants.asking.TOPIC_AREA`: a bounded period is
    a reading, the column variant a data convention); an issue without such a fix by its kind
    (:data:`~collabsim.participants.human.AREAS`)."""
    areas = {TOPIC_AREA[k] for k, _ in issue.fix if k in TOPIC_AREA}
    return areas == {human.expertise} if areas else human.in_area(issue.kind)


def owners_check(issue: Issue, human: HumanModel) -> bool:
    """Whether a gate owner's decision covers ``issue`` (``coordination.gate_checks``): its
    kind lies in the owner's area, unless its fix sets only topics of another area (D's
    recomputation finding another occurrence is R's to decide; a year D cannot reproduce,
    whose fix restates the whole plan, is D's)."""
    areas = {TOPIC_AREA[k] for k, _ in issue.fix if k in TOPIC_AREA}
    if areas and human.expertise not in areas:
        return False
    return human.in_area(issue.kind)


def voiced(found: tuple[Issue, ...], human: HumanModel,
           draw: Callable[[], float]) -> tuple[Issue, ...]:
    """The issues the person raises of those it ``found``: all of them, or - with
    probability ``1 - object_outside``, ``draw()`` called only when some issue lies outside
    its area and the probability is strictly between 0 and 1 - only those of its area."""
    p = human.object_outside
    if p >= 1.0 or all(in_area(i, human) for i in found):
        return found
    if p > 0.0 and draw() < p:
        return found
    return tuple(i for i in found if in_area(i, human))
