"""The coordination process of a team: the costs that exist without structure, and the
structural remedies that remove them by mechanism (docs/coordination.md).

Every cost exists whoever is right: it is a property of how a team passes work and advice
between its members, not of how often a teammate knows better than the agent (Steiner 1972:
actual productivity = potential productivity - losses due to faulty process).

Costs:

* ``misapplication`` - a suggestion the agent accepts from free chat is misapplied (its fix
  lands on the wrong setting) with this probability, plus ``misapplication_per_message``
  for each other teammate message that competes with it (arrived since the agent's previous
  decision);
* ``attention_messages`` - the agent takes in at most this many teammate messages per
  decision (the latest ones): an earlier one arriving in the same interval is buried
  (0: no bound). An environment property: the observation builder applies it to every agent,
  scripted or LLM;
* ``loafing`` - without an owner of the checked action, each collaborator skips checking a
  draft with this probability when it shares the check with other collaborators (social
  loafing grows with the number of people sharing the task);
* ``unrouted_advice`` - without a record of who knows what, a collaborator raises whatever
  its check finds, also outside its area (with its profile's ``object_outside``), and the
  agent cannot tell whose area an objection lies in (Stasser & Titus 1985: unstructured
  groups pool what everyone holds, not what the one who knows holds). Off: everyone raises
  only what lies in its own area, as with a transactive memory;
* ``lost_updates`` - concurrent editor updates overwrite each other (last writer wins, also
  over a change its author never saw). Off: an update based on a stale editor is refused,
  as an optimistic-concurrency editor would. An environment property.

Remedies (each switchable, for ablations):

* ``transactive_memory`` - the group memory works as a transactive memory: trust and
  deference go to the teammate whose recorded area a decision is (per area), a teammate
  raises only what its recorded area covers, and the recorded evidence criteria let the
  agent check how it applied a suggestion (misapplication times ``criteria_factor``);
* ``gate_checks`` - a gate owner's decision is its own check in its area: it approves when
  that check finds nothing it is sure of, rejects otherwise (not the adopt-despite-
  disagreeing draw of an ungated reaction), and does not loaf;
* ``single_owner`` - an owned action has one writer: a non-owner's editor update waits for
  the owner, so no update is lost;
* ``chosen_owners`` - under ``scaffolded`` the team chooses the owners per task from what
  its build phase recorded (:func:`collabsim.participants.owner_routing.choose_owners`)
  instead of taking the agent's fixed proposal.

Values and their sources are in :data:`SOURCES` (one home; ``docs/coordination.md`` cites
them).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["SOURCES", "CoordinationSpec"]

SOURCES: dict[str, str] = {
    "misapplication": (
        "prior:Laban et al. 2025 (LLMs Get Lost in Multi-Turn Conversation): the same "
        "instruction given in pieces over several turns loses 39 % of single-turn "
        "performance on average; a suggestion taken from free chat is such a piece - we take "
        "half that loss, 0.2, as the chance that one accepted suggestion lands wrong"),
    "misapplication_per_message": (
        "prior:Liu et al. 2024 (Lost in the Middle, TACL): accuracy falls by about 10 points "
        "when the relevant passage competes with others in the context; +0.1 per competing "
        "teammate message"),
    "attention_messages": (
        "kolab:332 of the 335 AI nodes of the 31 Kolab sessions directly follow from exactly "
        "one human node (2 from none, 1 from two), although a median of 2 human nodes lie "
        "between an AI node and the AI node before it: the AI takes in one human input per "
        "output"),
    "loafing": (
        "prior:Latane, Williams & Harkins 1979: people sharing a task in pairs produced 71 % "
        "of their individual output; a collaborator sharing an unowned check skips it with "
        "probability 1 - 0.71 = 0.29"),
    "unrouted_advice": (
        "prior:Stasser & Titus 1985 (hidden profiles): groups discuss what all members "
        "hold, not what the expert holds; Moreland & Myaskovsky 2000: groups without a "
        "shared record of who knows what make more errors. A switch: the share of advice "
        "given outside one's area is the profile's object_outside"),
    "lost_updates": (
        "prior:shared editors without locking lose concurrent updates (last writer wins; "
        "Ellis & Gibbs 1989, concurrency control in groupware)"),
    "criteria_factor": (
        "prior:a recorded checklist cut major complications from 11.0 % to 7.0 % "
        "(Haynes et al. 2009, NEJM): recorded evidence criteria leave 0.6 of misapplications"),
}


@dataclass(frozen=True)
class CoordinationSpec:
    """The coordination costs and remedies of a session (module docstring).

    Attributes:
        misapplication: Probability that one suggestion accepted from free chat is
            misapplied.
        misapplication_per_message: Added per other teammate message competing with it.
        attention_messages: Teammate messages the agent takes in per decision (0: all).
        loafing: Probability that a collaborator skips an unowned check it shares with
            other collaborators.
        unrouted_advice: Whether, without a transactive memory, collaborators raise issues
            outside their area.
        lost_updates: Whether concurrent editor updates overwrite each other.
        criteria_factor: Misapplication left when the memory records evidence criteria.
        transactive_memory: Remedy switch (memory routes trust and checks by area).
        gate_checks: Remedy switch (an owner's decision is its check in its area).
        single_owner: Remedy switch (an owned editor has one writer).
        chosen_owners: Remedy switch (scaffolded owners chosen from the build phase).
    """

    misapplication: float = 0.2
    misapplication_per_message: float = 0.1
    attention_messages: int = 1
    loafing: float = 0.29
    unrouted_advice: bool = True
    lost_updates: bool = True
    criteria_factor: float = 0.6
    transactive_memory: bool = True
    gate_checks: bool = True
    single_owner: bool = True
    chosen_owners: bool = True

    def __post_init__(self) -> None:
        for name in ("misapplication", "misapplication_per_message", "loafing",
                     "criteria_factor"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"coordination.{name}: must lie in [0, 1], got {value}")
        if self.attention_messages < 0:
            raise ValueError("coordination.attention_messages: must be >= 0, got "
                             f"{self.attention_messages}")

    @classmethod
    def without_costs(cls) -> CoordinationSpec:
        """Every cost off (the remedies as they are: they have nothing left to remove)."""
        return cls(misapplication=0.0, misapplication_per_message=0.0,
                   attention_messages=0, loafing=0.0, unrouted_advice=False,
                   lost_updates=False)

    def with_values(self, values: dict[str, Any]) -> CoordinationSpec:
        """A copy with ``values`` set (unknown names raise ``ValueError`` naming them)."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"coordination: unknown setting(s) {unknown}; known: "
                             f"{sorted(known)}")
        return replace(self, **values)

    def misapplication_rate(self, competing: int, criteria: bool) -> float:
        """Probability that one accepted chat suggestion is misapplied, with ``competing``
        other teammate messages in the same interval and (``criteria``) recorded evidence
        criteria under a working transactive memory."""
        p = self.misapplication + self.misapplication_per_message * max(0, competing)
        if criteria and self.transactive_memory:
            p *= self.criteria_factor
        return min(1.0, p)
