"""Team composition: one AI agent plus 0-2 collaborators, each with a profile.

Loading teams and profiles from config data lives in :mod:`collabsim.participants.team`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from collabsim.core.observation import Role
from collabsim.core.records import Profile

AGENT_NAME = "agent"
MAX_COLLABORATORS = 2
_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
_RESERVED = frozenset({"agent", "env", "none", "nobody"})


class TeamConfigError(ValueError):
    """A team or profile configuration is invalid."""


@dataclass(frozen=True)
class TeamSpec:
    """Team composition.

    Attributes:
        agent: The AI agent's participant name (``"agent"``).
        collaborators: Collaborator profiles in team order; each profile key is also the
            collaborator's participant name.
    """

    agent: str = AGENT_NAME
    collaborators: tuple[Profile, ...] = ()

    def __post_init__(self) -> None:
        keys = [p.key for p in self.collaborators]
        if len(keys) > MAX_COLLABORATORS:
            raise TeamConfigError(f"a team has at most {MAX_COLLABORATORS} collaborators: {keys}")
        if len(set(keys)) != len(keys):
            raise TeamConfigError(f"duplicate collaborator keys: {keys}")
        for key in keys:
            if not _KEY_RE.fullmatch(key) or key.lower() in _RESERVED:
                raise TeamConfigError(f"invalid collaborator key {key!r}")
        if self.agent in keys:
            raise TeamConfigError(f"agent name {self.agent!r} clashes with a collaborator key")

    @property
    def members(self) -> tuple[str, ...]:
        """All participant names: the agent first, then collaborators in team order."""
        return (self.agent, *(p.key for p in self.collaborators))

    @property
    def label(self) -> str:
        """Short team label: collaborator keys joined (``"DR"``), ``"single"`` when none."""
        return "".join(p.key for p in self.collaborators) or "single"

    def role(self, name: str) -> Role:
        """Return ``"agent"`` or ``"collaborator"`` for a member name."""
        if name == self.agent:
            return "agent"
        if name in self.members:
            return "collaborator"
        raise KeyError(f"{name!r} is not a member of team {self.members}")

    def actor_type(self, name: str) -> Literal["ai", "human"]:
        """Trace actor type of a member: ``"ai"`` for the agent, ``"human"`` otherwise."""
        return "ai" if self.role(name) == "agent" else "human"

    def profile(self, name: str) -> Profile | None:
        """The collaborator's profile (None for the agent)."""
        for p in self.collaborators:
            if p.key == name:
                return p
        if name == self.agent:
            return None
        raise KeyError(f"{name!r} is not a member of team {self.members}")
