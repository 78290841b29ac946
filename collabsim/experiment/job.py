"""The main job: ``run(cfg)`` plans, runs and tabulates sessions from a resolved config.

``run`` is pure with respect to its inputs: it takes a plain mapping (the Hydra app resolves
and converts its config first) and an output folder, and returns a :class:`JobOutcome`. It
never imports Hydra, so it is equally usable from notebooks, tests and other launchers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.plan import TEAM_COMPOSITIONS, SessionPlan, plan_sessions
from collabsim.experiment.results_table import summarise
from collabsim.experiment.runner import RunSummary, run_plans
from collabsim.experiment.store import ResultStore
from collabsim.experiment.tasksource import resolve_tasks
from collabsim.participants.team import team_from_dict
from collabsim.sandbox import SandboxLimits
from collabsim.session.clock import ClockSpec
from collabsim.session.config import SessionConfig
from collabsim.session.structures import structure_from_dict


@dataclass(frozen=True)
class JobOutcome:
    """What a job produced.

    Attributes:
        sessions: One row per session (identifiers, status, metrics).
        aggregate: Rows per (structure, team): mean and standard error over tasks.
        report: The printed tables (plain text).
        output_dir: Where results, traces and tables were written.
        summary: Counts of sessions run and reused.
        wall_seconds: Time the job took.
    """

    sessions: pd.DataFrame
    aggregate: pd.DataFrame
    report: str
    output_dir: Path
    summary: RunSummary
    wall_seconds: float


def outcome_settings(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of the config that change a session's outcome (they enter its store key)."""
    policy = dict(cfg.get("policy") or {})
    settings: dict[str, Any] = {
        "policy": policy,
        "clock": dict(cfg.get("clock") or {}),
        "sandbox": dict(cfg.get("sandbox") or {}),
        "max_turns": int(cfg["run"]["max_turns"]),
        "max_virtual_seconds": float(cfg["run"]["max_virtual_seconds"]),
        "structure_overrides": dict((cfg.get("structure") or {}).get("overrides") or {}),
        "profiles": dict((cfg.get("team") or {}).get("profiles") or {}),
    }
    if policy.get("name") == "llm":
        llm = dict(cfg.get("llm") or {})
        settings["llm"] = {k: llm.get(k) for k in ("agent", "collaborator", "budget")}
    return settings


def _session_config(plan: SessionPlan) -> SessionConfig:
    settings = plan.settings
    profiles = settings.get("profiles") or {}
    collaborators = [
        {**profiles[key], "key": key} if profiles.get(key) else key
        for key in TEAM_COMPOSITIONS[plan.team]
    ]
    overrides = (settings.get("structure_overrides") or {}).get(plan.structure) or {}
    structure = structure_from_dict({"name": plan.structure, **overrides})
    clock_cfg = {k: v for k, v in (settings.get("clock") or {}).items() if k != "seed_offset"}
    sandbox_cfg = settings.get("sandbox") or {}
    return SessionConfig(
        task=plan.task,
        team=team_from_dict({"collaborators": collaborators}),
        structure=structure,
        seed=plan.seed,
        clock=ClockSpec(**clock_cfg),
        limits=SandboxLimits(**sandbox_cfg),
        max_turns=int(settings["max_turns"]),
        max_time=float(settings["max_virtual_seconds"]),
        policy=str((settings.get("policy") or {}).get("name", "")),
    )


def run(cfg: Mapping[str, Any], output_dir: Path) -> JobOutcome:
    """Run the job described by ``cfg`` and write its outputs under ``output_dir``.

    Args:
        cfg: Resolved configuration as plain containers (see ``configs/config.yaml``).
        output_dir: Folder for tables (and, unless ``run.store`` is set, results and traces).

    Returns:
        The per-session table, the aggregate table and the printed report.
    """
    started = time.perf_counter()
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    run_cfg = cfg["run"]
    tasks, _report = resolve_tasks(cfg["tasks"])
    compositions = list((cfg.get("team") or {}).get("compositions") or ["single"])
    structures = list((cfg.get("structure") or {}).get("names") or ["default"])
    seeds = [int(s) for s in cfg.get("seeds") or [0]]
    settings = outcome_settings(cfg)
    plans = plan_sessions(tasks, compositions, structures, seeds, settings)
    store = ResultStore(Path(run_cfg.get("store") or output_dir))
    max_concurrency = int(run_cfg.get("max_concurrency", 4))
    builder = ParticipantBuilder(cfg, max_concurrency=max(8, max_concurrency))
    try:
        summary = asyncio.run(
            run_plans(
                plans,
                store,
                _session_config,
                builder.build,
                max_concurrency=max_concurrency,
                progress=bool(run_cfg.get("progress", True)),
            )
        )
    finally:
        builder.close()
    sessions, aggregate, report = summarise(
        plans, summary.results, store, tasks, show_sessions=bool(run_cfg.get("show_sessions", True))
    )
    sessions.to_csv(output_dir / "sessions.csv", index=False)
    aggregate.to_csv(output_dir / "aggregate.csv", index=False)
    (output_dir / "report.txt").write_text(report + "\n", encoding="utf-8")
    return JobOutcome(
        sessions=sessions,
        aggregate=aggregate,
        report=report,
        output_dir=output_dir,
        summary=summary,
        wall_seconds=time.perf_counter() - started,
    )
