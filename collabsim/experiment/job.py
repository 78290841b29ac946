"""The main job: ``run(cfg)`` plans, runs and tabulates sessions from a job's settings.

``run`` is pure with respect to its inputs: it takes the job's validated
:class:`~collabsim.experiment.settings.JobSettings` (or a resolved plain mapping, which it
validates) and an output folder, and returns a :class:`JobOutcome`. The settings object is
what travels on: to the session configs (:mod:`collabsim.experiment.session_configs`) and
the participant builder (:mod:`collabsim.experiment.participants`). It never imports Hydra,
so it is equally usable from notebooks, tests and other launchers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from collabsim.core.csvsafe import safe_frame
from collabsim.core.outputs import atomic_file, atomic_write_text, is_out_of_space
from collabsim.domain.stats.cell import CELL_MODULES
from collabsim.domain.stats.family import STATISTICAL, family_of
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.plan import SessionPlan, outcome_settings, plan_sessions
from collabsim.experiment.results_table import SessionRows, summarise
from collabsim.experiment.runner import RunSummary, run_plans
from collabsim.experiment.session_configs import SessionConfigs
from collabsim.experiment.settings import JobSettings, validate_job
from collabsim.experiment.store import ResultStore
from collabsim.experiment.tasksource import resolve_tasks
from collabsim.sandbox import SandboxPool, set_preload_files, set_preload_modules
from collabsim.tasks.discoverybench import TaskProblem
from collabsim.tasks.model import Task

JOB_OUTPUT_NAMES: tuple[str, ...] = (
    "sessions.csv", "aggregate.csv", "report.txt", "task_problems.csv", "sessions",
    ".hydra", "run_app.log",
)
"""What a job writes in its folder (with Hydra's ``.hydra/`` and job log): an existing folder
holding any of them must be an earlier job's (:data:`JOB_MARKER`), never the user's files."""

JOB_MARKER = ".hydra/config.yaml"
"""The file every job folder has (Hydra writes it first)."""


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
        phases: Wall seconds per phase: ``plan`` (validation, tasks), ``sessions`` (running
            them, including the metrics computed as each ends), ``metrics_overlapped`` (the
            part of ``sessions`` spent on metrics), ``summary`` (the remaining metrics and
            the tables), ``write`` (the output files).
        task_problems: Problems of the task root: task files skipped as bad data and
            queries their data cannot answer (those tasks are not run).
        task_problems_file: Where they are listed (``task_problems.csv``), or None.
    """

    sessions: pd.DataFrame
    aggregate: pd.DataFrame
    report: str
    output_dir: Path
    summary: RunSummary
    wall_seconds: float
    phases: dict[str, float] = field(default_factory=dict)
    task_problems: int = 0
    task_problems_file: Path | None = None


class JobInterrupted(Exception):
    """The job was stopped by Ctrl-C; finished sessions are in the store.

    Attributes:
        finished: Sessions of the job whose results are stored.
        total: Sessions in the job.
        store: The store root (rerun on it to resume).
    """

    def __init__(self, finished: int, total: int, store: Path) -> None:
        super().__init__(f"interrupted: {finished} of {total} sessions finished (store {store})")
        self.finished = finished
        self.total = total
        self.store = store


class JobWriteError(Exception):
    """Writing the job's results failed (a full disk, a folder that became read-only).

    Sessions finished before the failure stay in the store (a rerun with the same store
    reuses them); the tables of those sessions were written when the disk allowed it.

    Attributes:
        path: The file that could not be written (None when unknown).
        reason: The system's reason (``No space left on device``).
        finished: Sessions of the job whose results are stored.
        total: Sessions in the job.
        store: The store root.
        tables: The table files that were written despite the failure.
    """

    def __init__(self, err: OSError, finished: int, total: int, store: Path,
                 tables: list[Path]) -> None:
        self.path = Path(err.filename) if err.filename else None
        self.reason = err.strerror or str(err)
        self.no_space = is_out_of_space(err)
        self.finished = finished
        self.total = total
        self.store = store
        self.tables = tables
        where = f" writing {self.path}" if self.path else ""
        super().__init__(f"{self.reason}{where}: {finished} of {total} sessions finished")


def _write_task_problems(output_dir: Path, problems: tuple[TaskProblem, ...]) -> Path | None:
    """List the task files skipped as bad data and the queries their data cannot answer in
    ``task_problems.csv`` (path, field, message, and the task left out when the problem
    concerns one query); None if there are none."""
    if not problems:
        return None
    table = pd.DataFrame(
        [{"path": str(p.path), "field": p.field or "", "message": p.message,
          "task_id": p.task_id or ""} for p in problems],
        columns=["path", "field", "message", "task_id"],
    )
    path = output_dir / "task_problems.csv"
    with atomic_file(path) as tmp:
        safe_frame(table).to_csv(tmp, index=False)
    return path


def _write_tables(output_dir: Path, sessions: pd.DataFrame, aggregate: pd.DataFrame,
                  report: str) -> list[Path]:
    """Write sessions.csv, aggregate.csv and report.txt, each atomically; returns them.

    Text cells that a spreadsheet would run as a formula are neutralised
    (:mod:`collabsim.core.csvsafe`).
    """
    written = []
    for name, table in (("sessions.csv", sessions), ("aggregate.csv", aggregate)):
        with atomic_file(output_dir / name) as tmp:
            safe_frame(table).to_csv(tmp, index=False)
        written.append(output_dir / name)
    written.append(atomic_write_text(output_dir / "report.txt", report + "\n"))
    return written


def _salvage_tables(
    err: OSError, plans: list[SessionPlan], store: ResultStore, tasks: list[Task],
    output_dir: Path, settings: JobSettings,
) -> JobWriteError:
    """After a failed write: the tables of the stored sessions, written if the disk allows."""
    done = [(p, r) for p in plans if (r := store.load(p, warn=False)) is not None]
    written: list[Path] = []
    if done:
        try:
            sessions, aggregate, report = summarise(
                [p for p, _ in done], [r for _, r in done], store, tasks, show_sessions=False,
                initiative_counted=settings.metrics.initiative_events)
            written = _write_tables(output_dir, sessions, aggregate, report)
        except OSError:
            written = []
    return JobWriteError(err, len(done), len(plans), store.root, written)


def _run_interruptibly(
    work: Coroutine[Any, Any, RunSummary], plans: list[SessionPlan], store: ResultStore
) -> RunSummary:
    try:
        return asyncio.run(work)
    except KeyboardInterrupt:
        # asyncio.run has cancelled the sessions in flight (their sandboxes closed); what
        # finished is in the store, so a rerun picks up from there.
        finished = sum(store.load(plan) is not None for plan in plans)
        raise JobInterrupted(finished, len(plans), store.root) from None


@dataclass(frozen=True)
class JobPlan:
    """A validated job, ready to run.

    Attributes:
        settings: The typed configuration (one object per config group).
        tasks: The selected tasks.
        plans: Every session of the job, keyed for the store.
        problems: Problems of the task root (bad data, queries their data cannot answer).
    """

    settings: JobSettings
    tasks: list[Task]
    plans: list[SessionPlan]
    problems: tuple[TaskProblem, ...] = ()


def plan_job(cfg: JobSettings | Mapping[str, Any]) -> JobPlan:
    """Expand a job configuration into session plans (writes nothing).

    Args:
        cfg: The job's validated settings, or its resolved configuration as plain containers
            (validated here).

    Raises:
        SettingsError: A bad setting.
        TaskSelectionError: The task selection is empty or names missing tasks or data.
    """
    settings = cfg if isinstance(cfg, JobSettings) else validate_job(cfg)
    tasks, report = resolve_tasks(settings.tasks.model_dump())
    plans = plan_sessions(
        tasks,
        settings.team.compositions,
        settings.structure.names,
        settings.seeds,
        outcome_settings(settings.model_dump()),
    )
    return JobPlan(settings, tasks, plans, tuple(report.problems))


def reuses_sandboxes(settings: JobSettings) -> bool:
    """Whether the job's sessions take turns on reset sandbox workers (``run.reuse_sandboxes``).

    ``auto`` (the default) reuses them only under ``policy=scripted``: its cells are
    collabsim's own code, while a model's code could patch a library deep enough (e.g. a
    method added to ``pd.DataFrame``) for the reset to miss it, and one session could then
    change the next one's results. ``true`` / ``false`` decide for every policy.
    """
    setting = settings.run.reuse_sandboxes
    if setting == "auto":
        return settings.policy.name == "scripted"
    return setting


def run(cfg: JobSettings | Mapping[str, Any], output_dir: Path) -> JobOutcome:
    """Run the job described by ``cfg`` and write its outputs under ``output_dir``.

    Args:
        cfg: The job's validated settings, or its resolved configuration as plain containers
            (see ``configs/config.yaml``), validated against
            :class:`~collabsim.experiment.settings.JobSettings` first.
        output_dir: Folder for tables (and, unless ``run.store`` is set, results and traces).

    Returns:
        The per-session table, the aggregate table and the printed report.

    Raises:
        SettingsError: A bad setting (nothing is written).
        TaskSelectionError: The task selection is empty or names missing tasks or data.
        JobInterrupted: Ctrl-C; finished sessions stay in the store for a rerun.
        JobWriteError: A result or table could not be written (e.g. the disk is full);
            finished sessions stay in the store, their tables are written when possible.
    """
    started = time.perf_counter()
    phases: dict[str, float] = {}
    job = plan_job(cfg)
    settings, tasks, plans = job.settings, job.tasks, job.plans
    output_dir = Path(output_dir)
    run_cfg = settings.run
    output_dir.mkdir(parents=True, exist_ok=True)
    problems_file = _write_task_problems(output_dir, job.problems)
    store = ResultStore(Path(run_cfg.store or output_dir).expanduser())
    max_concurrency = run_cfg.max_concurrency
    # The sandbox's fork server parses the task files once; each session's first cell then
    # copies the parsed table instead of parsing the CSV again.
    set_preload_files([str(d.path) for t in tasks for d in t.datasets if d.path is not None])
    # Statistical cells import statsmodels and scipy: the fork server imports them once when
    # a task of that family runs (about 1.5 s of CPU; time-series jobs do not pay it).
    if any(family_of(t) == STATISTICAL for t in tasks):
        set_preload_modules(CELL_MODULES)
    builder = ParticipantBuilder(settings, max_concurrency=max(8, max_concurrency))
    # Each session's metrics are computed as it ends, while the others wait on their sandboxes.
    rows = SessionRows(plans, store, tasks,
                       initiative_counted=settings.metrics.initiative_events)
    # A finished session's sandbox worker serves the next session, reset (no fork per session).
    pool = SandboxPool(max_idle=max_concurrency) if reuses_sandboxes(settings) else None
    phases["plan"] = time.perf_counter() - started
    try:
        summary = _run_interruptibly(
            run_plans(
                plans,
                store,
                SessionConfigs(settings),
                builder.build,
                max_concurrency=max_concurrency,
                progress=run_cfg.progress,
                on_result=rows.add,
                executor_factory=pool,
            ),
            plans,
            store,
        )
    except OSError as err:
        raise _salvage_tables(err, plans, store, tasks, output_dir, settings) from None
    finally:
        builder.close()
        if pool is not None:
            pool.close()
    phases["sessions"] = time.perf_counter() - started - phases["plan"]
    phases["metrics_overlapped"] = rows.seconds
    sessions, aggregate, report = summarise(
        plans, summary.results, store, tasks, show_sessions=run_cfg.show_sessions,
        rows=rows,
    )
    phases["summary"] = time.perf_counter() - started - phases["plan"] - phases["sessions"]
    try:
        _write_tables(output_dir, sessions, aggregate, report)
    except OSError as err:
        finished = sum(r is not None for r in summary.results)
        raise JobWriteError(err, finished, len(plans), store.root, []) from None
    wall = time.perf_counter() - started
    phases["write"] = wall - phases["plan"] - phases["sessions"] - phases["summary"]
    return JobOutcome(
        sessions=sessions,
        aggregate=aggregate,
        report=report,
        output_dir=output_dir,
        summary=summary,
        wall_seconds=wall,
        phases=phases,
        task_problems=len(job.problems),
        task_problems_file=problems_file,
    )
