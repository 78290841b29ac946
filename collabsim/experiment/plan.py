"""Session plans: the grid of (task, team, structure, seed) a job runs, and their store keys.

The experiment layer turns a resolved configuration (a plain mapping; Hydra stays in the CLI)
into :class:`SessionPlan` records. Each plan has a key derived from everything that changes a
session's outcome, so a result store can skip sessions that are already done.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from collabsim.core.coordination import CoordinationSpec
from collabsim.sandbox.limits import SandboxLimits
from collabsim.session.structures import STRUCTURE_NAMES
from collabsim.tasks.model import Task

# The one registry of team names (structure names: session.structures.STRUCTURE_NAMES).
TEAM_COMPOSITIONS: dict[str, tuple[str, ...]] = {
    "single": (),
    "D": ("D",),
    "R": ("R",),
    "DR": ("D", "R"),
}
# Bumped when a change to the engine or the policies changes session outcomes, so stores
# written by older code are not mistaken for current results.
PLAN_VERSION = 1


@dataclass(frozen=True)
class SessionPlan:
    """One session to run.

    Attributes:
        task: The task.
        team: Team composition name (``single``, ``D``, ``R``, ``DR``).
        structure: Collaboration structure name.
        seed: Session seed.
        settings: The resolved settings that affect the outcome (policy, llm, clock, limits).
        key: Hex digest identifying this session's resolved configuration.
    """

    task: Task
    team: str
    structure: str
    seed: int
    settings: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    key: str = ""

    @property
    def variant(self) -> str:
        """``"<structure>/<team>"``, the label used in tables."""
        return f"{self.structure}/{self.team}"

    @property
    def slug(self) -> str:
        """A file-system-safe, human-readable folder name for this session."""
        task = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.task.task_id)
        return f"{task}__{self.team}__{self.structure}__s{self.seed}__{self.key[:10]}"


def session_key(task: Task, team: str, structure: str, seed: int, settings: Mapping[str, Any]) -> str:
    """Digest of everything that determines a session's outcome.

    The task enters through its id, query and data file names and sizes (not file contents, to
    keep planning cheap); settings through canonical JSON.
    """
    payload = {
        "version": PLAN_VERSION,
        "task": task.task_id,
        "source": task.source,
        "query": task.query,
        "files": [(d.name, d.path.stat().st_size if d.path.exists() else -1) for d in task.datasets],
        "team": team,
        "structure": structure,
        "seed": seed,
        "settings": settings,
    }
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()


def outcome_settings(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a job config that change a session's outcome (they enter its store key).

    Args:
        cfg: A job config as plain containers: a validated one (``JobSettings.model_dump()``,
            every section present) or one a job stored (``.hydra/config.yaml``, read by
            :mod:`collabsim.experiment.collect`), possibly written by an older version
            without some sections, which read as empty.
    """
    policy = dict(cfg.get("policy") or {})
    sandbox = dict(cfg.get("sandbox") or {})
    if sandbox.get("max_files") == SandboxLimits.max_files:
        # only when changed: stores written before the file-count limit keep their keys
        del sandbox["max_files"]
    settings: dict[str, Any] = {
        "policy": policy,
        "clock": dict(cfg.get("clock") or {}),
        "sandbox": sandbox,
        "max_turns": int(cfg["run"]["max_turns"]),
        "max_virtual_seconds": float(cfg["run"]["max_virtual_seconds"]),
        "structure_overrides": dict((cfg.get("structure") or {}).get("overrides") or {}),
        "profiles": dict((cfg.get("team") or {}).get("profiles") or {}),
    }
    knowledge = (cfg.get("tasks") or {}).get("knowledge", "everyone")
    if knowledge != "everyone":
        # only when set: stores written before knowledge splits keep their keys
        settings["knowledge"] = knowledge
    coordination = coordination_changes(cfg.get("coordination") or {})
    if coordination:
        # only what differs from CoordinationSpec: stores written before the spec keep
        # their keys, and two coordination settings never share one
        settings["coordination"] = coordination
    if policy.get("name") == "llm":
        llm = dict(cfg.get("llm") or {})
        keys = ("agent", "collaborator", "budget")
        settings["llm"] = {k: llm.get(k) for k in keys}
    return settings


def coordination_changes(values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``coordination`` settings that differ from :class:`CoordinationSpec`'s defaults.

    Args:
        values: A ``coordination`` section (every field, as a validated job dumps it, or
            only some, as a stored config may hold them).
    """
    default = CoordinationSpec()
    return {name: value for name, value in sorted(values.items())
            if not hasattr(default, name) or getattr(default, name) != value}


def variants(compositions: Sequence[str], structures: Sequence[str]) -> list[tuple[str, str]]:
    """The (team, structure) pairs to run; the single agent runs once, under ``single``.

    Raises:
        ValueError: Naming an unknown team composition or structure.
    """
    for team in compositions:
        if team not in TEAM_COMPOSITIONS:
            raise ValueError(f"unknown team {team!r}; choose from {sorted(TEAM_COMPOSITIONS)}")
    for name in structures:
        if name not in STRUCTURE_NAMES:
            raise ValueError(f"unknown structure {name!r}; choose from {list(STRUCTURE_NAMES)}")
    pairs: list[tuple[str, str]] = []
    for team in compositions:
        if team == "single":
            pairs.append(("single", "single"))
            continue
        pairs.extend((team, s) for s in structures if s != "single")
    return pairs


def plan_sessions(
    tasks: Sequence[Task],
    compositions: Sequence[str],
    structures: Sequence[str],
    seeds: Sequence[int],
    settings: Mapping[str, Any],
) -> list[SessionPlan]:
    """Expand tasks x variants x seeds into keyed session plans (task-major order)."""
    plans: list[SessionPlan] = []
    pairs = variants(compositions, structures)
    for task in tasks:
        for team, structure in pairs:
            for seed in seeds:
                key = session_key(task, team, structure, int(seed), settings)
                plans.append(SessionPlan(task, team, structure, int(seed), settings, key))
    return plans
