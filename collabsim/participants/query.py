"""Reading a query: which variables, relation, occurrence and period it asks about.

:func:`parse_query` is the first step of the scripted analysis (see
:mod:`collabsim.participants.analysis`). Variables are found with the domain's synonym table,
direction and relation words with its relation tags, periods with its time expressions.
Unknown query kinds (PCA, relationships, other domains) become the ``describe`` relation.
"""

from __future__ import annotations

from dataclasses import dataclass

from collabsim.domain.relations import (
    DECREASE_RE,
    INCREASE_RE,
    RELATION_RE,
    asked_occurrence,
    direction_words,
)
from collabsim.domain.time_expr import query_window
from collabsim.domain.variables import GROWTH, variable_mentions
from collabsim.tasks.model import TaskBrief

_GROWTH_RE = GROWTH.matcher()


@dataclass(frozen=True)
class QuerySemantics:
    """What a query asks.

    Attributes:
        relation: One of :data:`~collabsim.participants.plan.RELATIONS`.
        variables: Variable keys (vocabulary stems or column names), in order of mention.
        directions: ``"up"``/``"down"`` per variable (simultaneous changes only).
        ordinal: Which occurrence (1 = first).
        window: ``(start CE, end CE)`` with start < end, or None.
    """

    relation: str
    variables: tuple[str, ...]
    directions: tuple[str, ...] = ()
    ordinal: int = 1
    window: tuple[int, int] | None = None


def parse_query(brief: TaskBrief) -> QuerySemantics:
    """Read a query's semantics; unknown kinds become ``describe``.

    Args:
        brief: The task brief (query plus column descriptions).
    """
    text = brief.query
    window = query_window(text)
    mentions = variable_mentions(text)
    keys: list[str] = []
    for _, _, key in mentions:
        if key not in keys:
            keys.append(key)
    ordinal = asked_occurrence(text)
    tags = _tags(text)
    if _GROWTH_RE.search(text):
        lowest = tags & {"trough", "decrease"}
        relation = "growth_min" if lowest else "growth_max"
        return QuerySemantics(relation, (GROWTH.key,), (), 1, window)
    proxies = [k for k in keys if k != GROWTH.key]
    if not proxies:
        return QuerySemantics("describe", (), (), ordinal, window)
    return _proxy_semantics(text, tags, mentions, proxies, ordinal, window)


def _proxy_semantics(text: str, tags: set[str], mentions: list[tuple[int, int, str]],
                     proxies: list[str], ordinal: int, window: tuple[int, int] | None
                     ) -> QuerySemantics:
    """The semantics of a query about the (proxy) variables ``proxies``."""
    first = (proxies[0],)
    if "sustained" in text.lower():
        return QuerySemantics("plateau", first, (), ordinal, window)
    directions = _simultaneous_directions(text, tags, mentions, proxies)
    if directions is not None:
        return QuerySemantics("simultaneous", tuple(proxies), directions, ordinal, window)
    if "extreme" in tags:
        return QuerySemantics("peak", first, (), ordinal, window)
    direction = _first_direction(text)
    if direction is not None:
        return QuerySemantics(direction, first, (), ordinal, window)
    return QuerySemantics("describe", tuple(proxies), (), ordinal, window)


def _simultaneous_directions(text: str, tags: set[str], mentions: list[tuple[int, int, str]],
                             proxies: list[str]) -> tuple[str, ...] | None:
    """The asked direction per variable of a query about two series changing together."""
    if len(proxies) < 2 or not tags & {"simultaneous", "opposite"}:
        return None
    return _directions(text, [m for m in mentions if m[2] in proxies])


def _first_direction(text: str) -> str | None:
    """``rise`` or ``fall``, whichever the query names first (None: neither)."""
    rise = INCREASE_RE.search(text)
    fall = DECREASE_RE.search(text)
    if rise and (not fall or rise.start() < fall.start()):
        return "rise"
    return "fall" if fall else None


def _directions(text: str, mentions: list[tuple[int, int, str]]) -> tuple[str, ...] | None:
    """Direction per variable: the first direction word between one of its mentions and the
    next variable mention; else the first direction word after its first mention."""
    words = direction_words(text)
    order: list[str] = []
    for _, _, key in mentions:
        if key not in order:
            order.append(key)
    result: dict[str, str] = {}
    for i, (_, end, key) in enumerate(mentions):
        if key in result:
            continue
        limit = mentions[i + 1][0] if i + 1 < len(mentions) else len(text)
        between = [d for pos, d in words if end <= pos < limit]
        if between:
            result[key] = between[0]
    for key in order:
        if key not in result:
            first_end = next(end for _, end, k in mentions if k == key)
            after = [d for pos, d in words if pos >= first_end]
            if not after:
                return None
            result[key] = after[0]
    return tuple(result[k] for k in order)


def _tags(text: str) -> set[str]:
    """Relation tags of a query as written (negations and "growth" kept, unlike the judge's
    :func:`~collabsim.domain.relations.relation_tags`: "growth" is the variable asked about)."""
    return {tag for tag, pattern in RELATION_RE.items() if pattern.search(text)}
