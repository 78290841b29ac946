"""The engine's :class:`~collabsim.session.config.SessionConfig` of each session of a job.

Built from the job's validated :class:`~collabsim.experiment.settings.JobSettings`: the team
of each composition, the structure of each name (with ``structure.overrides``), the clock's
duration model, the sandbox limits, the knowledge split and the coordination spec are built once per job and shared
by its sessions (all immutable); only the task and the seed differ from session to session.
"""

from __future__ import annotations

from dataclasses import fields

from collabsim.core.knowledge import knowledge_split
from collabsim.core.team import TeamSpec
from collabsim.experiment.plan import TEAM_COMPOSITIONS, SessionPlan
from collabsim.experiment.settings import JobSettings
from collabsim.participants.team import team_from_dict
from collabsim.sandbox import SandboxLimits
from collabsim.session.clock import ClockSpec
from collabsim.session.config import SessionConfig
from collabsim.session.structures import StructureSpec, structure_from_dict


class SessionConfigs:
    """Makes the session config of each plan of a job (call it with the plan).

    Args:
        settings: The job's validated settings.
    """

    def __init__(self, settings: JobSettings) -> None:
        self.settings = settings
        self.clock = ClockSpec(**settings.clock)
        # Limits this build's sandbox does not know yet (sandbox.disk_mb before the quota
        # lands) are validated by the schema and enter the store key, but cannot be passed on.
        known = {f.name for f in fields(SandboxLimits)}
        self.limits = SandboxLimits(
            **{k: v for k, v in settings.sandbox.model_dump().items() if k in known})
        self.knowledge = knowledge_split(settings.tasks.knowledge)
        self._teams: dict[str, TeamSpec] = {}
        self._structures: dict[str, StructureSpec] = {}

    def team(self, name: str) -> TeamSpec:
        """The team of composition ``name``, with the job's ``team.profiles`` applied."""
        if name not in self._teams:
            profiles = self.settings.team.profiles
            collaborators = [
                {**profiles[key], "key": key} if profiles.get(key) else key
                for key in TEAM_COMPOSITIONS[name]
            ]
            self._teams[name] = team_from_dict({"collaborators": collaborators})
        return self._teams[name]

    def structure(self, name: str) -> StructureSpec:
        """The structure ``name``, with the job's ``structure.overrides`` of it applied."""
        if name not in self._structures:
            overrides = self.settings.structure.overrides.get(name, {})
            self._structures[name] = structure_from_dict({"name": name, **overrides})
        return self._structures[name]

    def __call__(self, plan: SessionPlan) -> SessionConfig:
        """The engine's config of ``plan``'s session."""
        run = self.settings.run
        return SessionConfig(
            task=plan.task,
            team=self.team(plan.team),
            structure=self.structure(plan.structure),
            seed=plan.seed,
            clock=self.clock,
            limits=self.limits,
            max_turns=run.max_turns,
            max_time=float(run.max_virtual_seconds),
            policy=self.settings.policy.name,
            knowledge=self.knowledge,
            coordination=self.settings.coordination,
        )
