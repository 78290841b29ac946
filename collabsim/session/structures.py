"""Collaboration structures: group memory, build phase and gates.

=====================  ============  ==========================================================
structure              group memory  gates
=====================  ============  ==========================================================
``single``             -             - (the agent alone; teams with collaborators are refused)
``default``            -             -
``memory``             build phase   -
``preassigned_gates``  -             fixed in config: action -> owner (default EDITOR_UPDATE -> R,
                                     FINISH -> D)
``scaffolded``         build phase   chosen by the team in the build phase (``gates`` section)
=====================  ============  ==========================================================

**Build phase.** Structures with memory start with a build phase in which members may only
chat, ``MEMORY_ADD`` and ``MEMORY_AGREE`` (or wait). It ends when every member has agreed
(agreement is sticky: a later ``MEMORY_ADD`` does not withdraw it), when the members have
taken ``build_max_turns`` decisions in total, or after ``build_max_seconds`` of virtual time.
The memory is read-only afterwards.

**Gate owners.** An owner is a participant name (``"agent"``, a collaborator key). In
``preassigned_gates`` an owner missing from the team is replaced according to
``owner_fallback``: ``"first_collaborator"`` (default: the first collaborator in team order),
``"agent"`` or ``"drop"`` (no gate). A gate that would end up with no owner (an agent-alone
team with ``first_collaborator``) is dropped.

**Choosing gates (scaffolded).** Entries of the ``gates`` memory section hold lines
``ACTION: owner`` (separators ``:``, ``=``, ``->`` are accepted; lines may also be separated
by ``;``; ``#`` starts a comment line; case-insensitive). Owner ``none`` / ``nobody`` / ``-``
removes a gate. Only :data:`GATEABLE_ACTIONS` can be gated. Each entry is validated when it
is added (an invalid entry is refused with an error to its author). At the end of the build
phase all entries are read in the order they land in the memory (the order members see;
ties by trace order; entries still in flight when the phase ends count too) and **the last
line for an action wins** (later entries revise earlier ones). The result is the gate table
enforced in the work phase.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

GATEABLE_ACTIONS: frozenset[str] = frozenset({"EXECUTE_CODE", "EDITOR_UPDATE", "FINISH"})
MEMORY_SECTIONS: tuple[str, ...] = ("expertise", "trust", "plan", "evidence_criteria")
GATES_SECTION = "gates"
STRUCTURE_NAMES: tuple[str, ...] = (
    "single",
    "default",
    "memory",
    "preassigned_gates",
    "scaffolded",
)
OwnerFallback = Literal["first_collaborator", "agent", "drop"]
_NO_OWNER = frozenset({"none", "nobody", "-", "off", "no"})
_LINE_RE = re.compile(r"^\s*([A-Za-z_]+)\s*(?::|=|->|→)\s*(\S+?)\s*[.,]?\s*$")


class StructureConfigError(ValueError):
    """A structure configuration is invalid."""


@dataclass(frozen=True)
class StructureSpec:
    """One collaboration structure.

    Attributes:
        name: Structure name (one of :data:`STRUCTURE_NAMES` for the built-ins).
        has_memory: Whether the session starts with a group-memory build phase.
        gates: Preassigned gates, action name -> owner name.
        gates_chosen_by_team: Whether the team chooses gates in the build phase.
        solo: Whether the agent works alone (``single``).
        owner_fallback: What happens to a preassigned gate whose owner is not in the team.
        build_max_turns: Build-phase cap on decisions summed over members.
        build_max_seconds: Build-phase cap in virtual seconds.
    """

    name: str
    has_memory: bool = False
    gates: Mapping[str, str] = field(default_factory=dict, hash=False)
    gates_chosen_by_team: bool = False
    solo: bool = False
    owner_fallback: OwnerFallback = "first_collaborator"
    build_max_turns: int = 24
    build_max_seconds: float = 900.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "gates", dict(self.gates))
        bad = [a for a in self.gates if a not in GATEABLE_ACTIONS]
        if bad:
            raise StructureConfigError(
                f"structure {self.name!r}: cannot gate {bad}; gateable: {sorted(GATEABLE_ACTIONS)}"
            )
        if self.gates_chosen_by_team and not self.has_memory:
            raise StructureConfigError(
                f"structure {self.name!r}: team-chosen gates need a memory build phase"
            )
        if self.owner_fallback not in ("first_collaborator", "agent", "drop"):
            raise StructureConfigError(f"unknown owner_fallback {self.owner_fallback!r}")
        if self.build_max_turns < 1 or self.build_max_seconds <= 0:
            raise StructureConfigError("build-phase caps must be positive")

    @property
    def memory_sections(self) -> tuple[str, ...]:
        """Memory sections members may write (``gates`` only when gates are team-chosen)."""
        if not self.has_memory:
            return ()
        return MEMORY_SECTIONS + ((GATES_SECTION,) if self.gates_chosen_by_team else ())


def builtin_structure(name: str, **overrides: Any) -> StructureSpec:
    """Return a built-in structure, optionally with fields overridden.

    Raises:
        StructureConfigError: Unknown name or invalid override.
    """
    base: dict[str, dict[str, Any]] = {
        "single": {"solo": True},
        "default": {},
        "memory": {"has_memory": True},
        "preassigned_gates": {"gates": {"EDITOR_UPDATE": "R", "FINISH": "D"}},
        "scaffolded": {"has_memory": True, "gates_chosen_by_team": True},
    }
    if name not in base:
        raise StructureConfigError(
            f"unknown structure {name!r}; built-ins: {', '.join(STRUCTURE_NAMES)}"
        )
    kwargs = {**base[name], **overrides}
    try:
        return StructureSpec(name=name, **kwargs)
    except TypeError as exc:
        raise StructureConfigError(f"structure {name!r}: {exc}") from exc


def structure_from_dict(data: Mapping[str, Any] | str) -> StructureSpec:
    """Build a structure from config data: a name, or ``{"name": ..., <field overrides>}``."""
    if isinstance(data, str):
        return builtin_structure(data)
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
        raise StructureConfigError("structure config needs a string field 'name'")
    overrides = {k: v for k, v in data.items() if k != "name"}
    if "gates" in overrides and overrides["gates"] is None:
        overrides["gates"] = {}
    return builtin_structure(data["name"], **overrides)


def resolve_owner(
    owner: str, members: Sequence[str], agent: str, fallback: OwnerFallback
) -> str | None:
    """Map a configured gate owner onto the team (None: the gate is dropped)."""
    if owner in members:
        return owner
    if fallback == "agent":
        return agent
    if fallback == "first_collaborator":
        collaborators = [m for m in members if m != agent]
        return collaborators[0] if collaborators else None
    return None


def preassigned_gates(spec: StructureSpec, members: Sequence[str], agent: str) -> dict[str, str]:
    """Gates in force from the start of a session for ``spec`` and a team.

    In an agent-alone team no gate can bind anyone but the agent, so none is kept.
    """
    if len(members) < 2:
        return {}
    out: dict[str, str] = {}
    for action in sorted(spec.gates):
        owner = resolve_owner(spec.gates[action], members, agent, spec.owner_fallback)
        if owner is not None:
            out[action] = owner
    return out


def _match_member(name: str, members: Sequence[str]) -> str | None:
    for m in members:
        if m.lower() == name.lower():
            return m
    return None


def parse_gate_entry(text: str, members: Sequence[str]) -> list[tuple[str, str | None]]:
    """Parse one ``gates`` memory entry into ``(action, owner or None)`` pairs.

    Raises:
        ValueError: A line is not ``ACTION: owner`` with a gateable action and a team member
            (or ``none``); the message says which line and what is expected.
    """
    pairs: list[tuple[str, str | None]] = []
    for raw in re.split(r"[\n;]", text):
        line = raw.strip().lstrip("-*").strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE_RE.match(line)
        expected = (
            f"expected lines 'ACTION: owner' with ACTION in {sorted(GATEABLE_ACTIONS)} and "
            f"owner in {list(members)} or 'none'"
        )
        if m is None:
            raise ValueError(f"gate line {line!r} not understood: {expected}")
        action, owner_text = m.group(1).upper(), m.group(2)
        if action not in GATEABLE_ACTIONS:
            raise ValueError(f"gate line {line!r}: {action} cannot be gated; {expected}")
        if owner_text.lower() in _NO_OWNER:
            pairs.append((action, None))
            continue
        owner = _match_member(owner_text, members)
        if owner is None:
            raise ValueError(f"gate line {line!r}: {owner_text!r} is not in the team; {expected}")
        pairs.append((action, owner))
    if not pairs:
        raise ValueError("empty gates entry: write lines 'ACTION: owner'")
    return pairs


def chosen_gates(entries: Iterable[str], members: Sequence[str]) -> dict[str, str]:
    """Gate table from ``gates`` entries in memory order; the last line per action wins.

    Entries that do not parse are ignored (the engine refuses them when they are added).
    """
    table: dict[str, str | None] = {}
    for entry in entries:
        try:
            pairs = parse_gate_entry(entry, members)
        except ValueError:
            continue
        for action, owner in pairs:
            table[action] = owner
    return {a: o for a, o in sorted(table.items()) if o is not None}
