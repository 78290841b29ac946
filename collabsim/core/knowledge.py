"""Knowledge as task data: facts that decide a task's answer, and who holds which.

A task may carry :class:`Fact` s - the intended reading of an ambiguous term (which
occurrence, peak vs sustained plateau, the period a named era covers, rise vs fall), a data
convention (which column variant is valid) or domain knowledge. They are part of the task's
premise, not its answer: a participant who holds a fact sees it in its
:class:`~collabsim.core.task.TaskBrief`; one who does not must ask a teammate who does.

Who holds which kind of fact is a :class:`KnowledgeSplit`, chosen with the ``tasks.knowledge``
setting:

- ``everyone`` (the published setting): every participant sees the whole brief, facts and
  domain knowledge included;
- ``by_profile``: the data-analysis collaborator (D) holds data conventions, the researcher
  (R) holds readings and domain knowledge; the agent sees the query and the data only;
- a mapping ``{reading: [R], convention: [D, agent], domain: [R]}``: holders per fact kind
  (participant names: ``agent``, ``D``, ``R``; a kind left out is held by nobody).

A fact nobody in the team holds is lost to the session: a team of D alone under
``by_profile`` has no one to tell the agent what the query's ambiguous term means.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

FactKind = Literal["reading", "convention", "domain"]
FACT_KINDS: tuple[FactKind, ...] = ("reading", "convention", "domain")
# The participants that can hold facts: the agent and the collaborator profiles.
HOLDERS: tuple[str, ...] = ("agent", "D", "R")
# What a fact settles, as the plan parameter it fixes (the keys of a teammate's issue fix,
# see collabsim.core.tags) or ``domain`` for free-text domain knowledge. The
# time-series family's topics come first, then the statistical family's (the keys of
# collabsim.domain.stats.model.FIX_KEYS, values in StatPlan.with_fix syntax).
TIME_SERIES_TOPICS: tuple[str, ...] = ("ordinal", "relation", "window", "column")
STAT_TOPICS: tuple[str, ...] = ("target", "predictors", "controls", "filters", "analysis")
FACT_TOPICS: tuple[str, ...] = (*TIME_SERIES_TOPICS, "domain", *STAT_TOPICS)
# The fact kind of each statistical topic: the model's parts are data conventions (D under
# by_profile), which variable and which population the query means are readings (R).
STAT_TOPIC_KIND: dict[str, str] = {"controls": "convention", "analysis": "convention",
                                   "target": "reading", "predictors": "reading",
                                   "filters": "reading"}
# The area of expertise a fact kind belongs to (collabsim.participants.human.area_of).
FACT_AREA: dict[FactKind, str] = {"reading": "semantics", "convention": "data",
                                  "domain": "semantics"}


class KnowledgeError(ValueError):
    """A ``tasks.knowledge`` setting or a task's fact that cannot be used."""


@dataclass(frozen=True)
class Fact:
    """One fact that decides (part of) a task's answer.

    Attributes:
        kind: ``reading`` (the intended reading of a term in the query), ``convention`` (a
            data convention, e.g. which column variant is valid) or ``domain``.
        topic: What it settles: a plan parameter of :data:`FACT_TOPICS`.
        text: The statement as a participant who holds it reads it.
        setting: The plan parameters the statement fixes, as ``(name, value)`` pairs with
            the names of a teammate's issue fix (``ordinal``, ``relation``, ``window``,
            ``column``; on a statistical task ``target``, ``predictors``, ``controls``,
            ``filters``, ``analysis`` in ``StatPlan.with_fix`` syntax, e.g.
            ``filters: "sex == 1"``); empty for free-text domain knowledge. This is what a scripted
            participant understands from ``text``: the premise of the task, never its answer.
    """

    kind: FactKind
    topic: str
    text: str
    setting: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in FACT_KINDS:
            raise KnowledgeError(f"fact kind {self.kind!r} is not one of {list(FACT_KINDS)}")
        if self.topic not in FACT_TOPICS:
            raise KnowledgeError(f"fact topic {self.topic!r} is not one of {list(FACT_TOPICS)}")

    @property
    def fix(self) -> dict[str, str]:
        """The setting as a mapping (the shape of a teammate's issue fix)."""
        return dict(self.setting)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Fact:
        """Read a fact from task metadata (``where`` names the file and field in errors)."""
        try:
            setting = data.get("setting") or {}
            return cls(kind=str(data["kind"]), topic=str(data["topic"]),  # type: ignore[arg-type]
                       text=str(data["text"]),
                       setting=tuple((str(k), str(v)) for k, v in dict(setting).items()))
        except KeyError as exc:
            raise KnowledgeError(f"{where}: a fact has no {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise KnowledgeError(f"{where}: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        """The metadata form read by :meth:`from_json`."""
        return {"kind": self.kind, "topic": self.topic, "text": self.text,
                "setting": dict(self.setting)}


@dataclass(frozen=True)
class KnowledgeSplit:
    """Who holds which kind of fact.

    Attributes:
        name: ``everyone``, ``by_profile`` or ``custom``.
        holders: ``(kind, holder names)`` per fact kind.
    """

    name: str
    holders: tuple[tuple[FactKind, frozenset[str]], ...]

    def holds(self, participant: str, kind: FactKind) -> bool:
        """Whether ``participant`` (``agent``, ``D``, ``R``) holds facts of ``kind``."""
        return any(k == kind and participant in who for k, who in self.holders)

    def holders_of(self, kind: FactKind) -> frozenset[str]:
        """The participants who hold facts of ``kind``."""
        return next((who for k, who in self.holders if k == kind), frozenset())

    @property
    def everyone_sees_everything(self) -> bool:
        """Whether every participant holds every kind (the published setting)."""
        return all(self.holders_of(k) >= set(HOLDERS) for k in FACT_KINDS)


EVERYONE = KnowledgeSplit("everyone", tuple((k, frozenset(HOLDERS)) for k in FACT_KINDS))
BY_PROFILE = KnowledgeSplit("by_profile", (("reading", frozenset({"R"})),
                                           ("convention", frozenset({"D"})),
                                           ("domain", frozenset({"R"}))))
NAMED_SPLITS: dict[str, KnowledgeSplit] = {"everyone": EVERYONE, "by_profile": BY_PROFILE}


def knowledge_split(value: str | Mapping[str, Any] | KnowledgeSplit | None) -> KnowledgeSplit:
    """Build a :class:`KnowledgeSplit` from a ``tasks.knowledge`` setting.

    Args:
        value: ``everyone`` (also None), ``by_profile`` or a mapping fact kind -> holder
            names (a name or a list of names).

    Raises:
        KnowledgeError: An unknown name, fact kind or holder.
    """
    if isinstance(value, KnowledgeSplit):
        return value
    if value is None:
        return EVERYONE
    if isinstance(value, str):
        if value not in NAMED_SPLITS:
            raise KnowledgeError(f"{value!r} is not one of {sorted(NAMED_SPLITS)} "
                                 "or a mapping fact kind -> holders")
        return NAMED_SPLITS[value]
    if not isinstance(value, Mapping):
        raise KnowledgeError(f"expected a name or a mapping, got {type(value).__name__}")
    unknown = sorted(set(map(str, value)) - set(FACT_KINDS))
    if unknown:
        raise KnowledgeError(f"unknown fact kind(s) {unknown}; known: {list(FACT_KINDS)}")
    holders: list[tuple[FactKind, frozenset[str]]] = []
    for kind in FACT_KINDS:
        raw = value.get(kind) or []
        names = [raw] if isinstance(raw, str) else list(raw)
        bad = sorted(str(n) for n in names if n not in HOLDERS)
        if bad:
            raise KnowledgeError(f"{kind}: unknown holder(s) {bad}; known: {list(HOLDERS)}")
        holders.append((kind, frozenset(str(n) for n in names)))
    return KnowledgeSplit("custom", tuple(holders))


def facts_held(facts: tuple[Fact, ...], split: KnowledgeSplit, participant: str
               ) -> tuple[Fact, ...]:
    """The facts of a task that ``participant`` holds under ``split``, in task order."""
    return tuple(f for f in facts if split.holds(participant, f.kind))
