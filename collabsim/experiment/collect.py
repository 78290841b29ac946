"""Gather finished sessions from job folders, multirun folders and result stores.

A **job folder** is what one ``collabsim run`` job writes: ``sessions.csv`` (one metrics row
per session), ``aggregate.csv``, ``.hydra/config.yaml`` and, unless ``run.store`` pointed
elsewhere, the store folders ``sessions/<slug>/{plan.json,result.json,trace.jsonl}``. A
**multirun folder** holds one job folder per sweep point. A **result store** holds session
folders only (``run.store=PATH`` shared by many jobs).

Rows from job folders are used as written (they were computed by the job itself). Sessions
found only in a store get their row computed here with the same
:func:`collabsim.reporting.tables.metrics_table`; their task is found by recomputing the
store key (:func:`collabsim.experiment.plan.session_key`) for candidate tasks, so a task is
only ever matched to the exact task the session ran. Every row carries its ``session_key``;
the combined table keeps one row per key. Rows also carry two private columns for
:mod:`collabsim.reporting.variants`: the session's outcome settings (from its
``plan.json``) and the values of the jobs' variant-naming command-line overrides.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from collabsim.reporting.tables import STRUCTURE_ORDER, TEAM_ORDER
from collabsim.reporting.variants import (
    OVERRIDES_COLUMN,
    SETTINGS_COLUMN,
    SUITE_COLUMN,
    override_keys,
    override_values,
)

SKIP_DIRS = frozenset({"sessions", ".hydra", "wandb", "figures", "views", "__pycache__"})


class ReportInputError(ValueError):
    """A report input cannot be used; the message names the path."""


@dataclass(frozen=True)
class Inputs:
    """Where the results are.

    Attributes:
        jobs: Job folders (each with ``sessions.csv``).
        stores: Result-store roots (each with ``sessions/*/result.json``).
    """

    jobs: tuple[Path, ...] = ()
    stores: tuple[Path, ...] = ()


@dataclass
class Collected:
    """The combined sessions table and what was noticed while building it."""

    sessions: pd.DataFrame
    inputs: Inputs
    notes: list[str] = field(default_factory=list)


def _has_store_sessions(folder: Path) -> bool:
    sessions = folder / "sessions"
    return sessions.is_dir() and any(sessions.glob("*/result.json"))


def find_inputs(paths: Iterable[str | Path]) -> Inputs:
    """Classify every given path (searched recursively) into job folders and stores.

    Raises:
        ReportInputError: A path does not exist or holds no job folder and no store.
    """
    jobs: list[Path] = []
    stores: list[Path] = []
    for raw in paths:
        root = Path(raw).expanduser()
        if not root.is_dir():
            raise ReportInputError(f"{root}: no such folder")
        found = False
        for dirpath, dirnames, filenames in os.walk(root):
            here = Path(dirpath)
            if "sessions.csv" in filenames:
                jobs.append(here.resolve())
                found = True
            elif _has_store_sessions(here):
                stores.append(here.resolve())
                found = True
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        if not found:
            raise ReportInputError(
                f"{root}: no job folder (sessions.csv) or result store (sessions/*/result.json)"
            )
    return Inputs(tuple(dict.fromkeys(jobs)), tuple(dict.fromkeys(stores)))


def job_config(job: Path) -> dict[str, Any] | None:
    """The resolved config a job ran with (``.hydra/config.yaml``), or None."""
    path = job / ".hydra" / "config.yaml"
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    return data if isinstance(data, dict) else None


def job_overrides(job: Path) -> tuple[list[str], dict[str, Any] | None] | None:
    """A job's command-line overrides (``.hydra/overrides.yaml``) and Hydra's runtime choices
    of its config groups (``.hydra/hydra.yaml``); None when the job has no overrides file."""
    try:
        overrides = yaml.safe_load((job / ".hydra" / "overrides.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    if not isinstance(overrides, list):
        return None
    choices = None
    try:
        hydra_cfg = yaml.safe_load((job / ".hydra" / "hydra.yaml").read_text(encoding="utf-8"))
        choices = hydra_cfg["hydra"]["runtime"]["choices"]
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        pass
    return [str(o) for o in overrides], choices if isinstance(choices, dict) else None


def job_store(job: Path, cfg: dict[str, Any] | None) -> Path:
    """Where a job's session folders are: ``run.store`` when set, else the job folder."""
    store = ((cfg or {}).get("run") or {}).get("store")
    if store:
        path = Path(store).expanduser()
        return path if path.is_absolute() else (job / path if (job / path).is_dir() else path)
    return job


def _slug_prefix(task_id: str, team: str, structure: str, seed: Any) -> str:
    task = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(task_id))
    return f"{task}__{team}__{structure}__s{int(seed)}__"


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, or None when it is unreadable or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _match_folder(candidates: list[Path], row: pd.Series, settings: str | None) -> Path | None:
    if len(candidates) == 1:
        return candidates[0]
    if settings is not None:
        same = [c for c in candidates
                if _canonical((read_json_object(c / "plan.json") or {}).get("settings")) == settings]
        if len(same) == 1:
            return same[0]
        candidates = same or candidates
    # same identifiers under other settings: the result record must agree with the row
    agree = [c for c in candidates
             if (r := read_json_object(c / "result.json")) is not None
             and r.get("status") == row.get("status")
             and (r.get("submitted_hypothesis") or "") == (row.get("hypothesis") or "")]
    return agree[0] if len(agree) == 1 else None


def settings_fingerprint(cfg: dict[str, Any] | None) -> str | None:
    """Canonical JSON of the outcome settings of a job config (as stored in plan.json)."""
    if cfg is None:
        return None
    from collabsim.experiment.plan import outcome_settings

    try:
        return _canonical(json.loads(_canonical(outcome_settings(cfg))))
    except (KeyError, TypeError, ValueError):
        return None


def match_session_dirs(rows: pd.DataFrame, store: Path, cfg: dict[str, Any] | None) -> list[Path | None]:
    """The store folder of every row of a job's sessions table (None when not found).

    A folder is matched by task, team, structure and seed; when a shared store holds the
    same identifiers under other settings, the job's settings (``cfg``) pick the folder.
    """
    settings = settings_fingerprint(cfg)
    folders: dict[str, list[Path]] = {}
    sessions_dir = Path(store) / "sessions"
    if sessions_dir.is_dir():
        for folder in sessions_dir.iterdir():
            if folder.is_dir():
                prefix = folder.name[: folder.name.rfind("__") + 2]
                folders.setdefault(prefix, []).append(folder)
    out = []
    for _, row in rows.iterrows():
        prefix = _slug_prefix(row["task_id"], row["team"], row["structure"], row["seed"])
        out.append(_match_folder(sorted(folders.get(prefix, [])), row, settings))
    return out


def _job_rows(job: Path, notes: list[str], override_keys: Sequence[str] = ()) -> pd.DataFrame:
    try:
        rows = pd.read_csv(job / "sessions.csv", keep_default_na=True)
    except (OSError, ValueError, pd.errors.EmptyDataError) as err:
        raise ReportInputError(f"{job / 'sessions.csv'}: cannot read ({err})") from err
    missing = {"task_id", "team", "structure", "seed"} - set(rows.columns)
    if missing:
        raise ReportInputError(f"{job / 'sessions.csv'}: missing columns {sorted(missing)}")
    cfg = job_config(job)
    folders = match_session_dirs(rows, job_store(job, cfg), cfg)
    fallback_settings = settings_fingerprint(cfg) or ""
    keys, dirs, settings = [], [], []
    for (_, row), folder in zip(rows.iterrows(), folders, strict=True):
        prefix = _slug_prefix(row["task_id"], row["team"], row["structure"], row["seed"])
        plan = read_json_object(folder / "plan.json") if folder is not None else None
        if plan is None or not plan.get("key"):
            notes.append(f"{job}: no session folder for {prefix.rstrip('_')}; "
                         "kept without a store key")
            keys.append(f"{job}::{prefix}{row.get('policy', '')}")
            dirs.append("")
            settings.append(fallback_settings)
        else:
            keys.append(str(plan["key"]))
            dirs.append(str(folder))
            settings.append(_canonical(plan.get("settings") or {}))
    rows["session_key"] = keys
    rows["session_dir"] = dirs
    rows["source"] = str(job)
    rows[SETTINGS_COLUMN] = settings
    rows[SUITE_COLUMN] = _job_suite(cfg)
    hydra_info = job_overrides(job)
    if hydra_info is None:
        rows[OVERRIDES_COLUMN] = ""
    else:
        values = override_values(override_keys, hydra_info[0], cfg, hydra_info[1])
        rows[OVERRIDES_COLUMN] = _canonical(values)
    return rows


def _job_suite(cfg: dict[str, Any] | None) -> str:
    from collabsim.experiment.tasksource import suite_label

    tasks = (cfg or {}).get("tasks")
    return suite_label(tasks if isinstance(tasks, dict) else None)


def _cached_suite(kind: str, root: Path) -> str:
    """The label of a cached generated suite ``<cache>/<kind>/v<version>-n<N>-s<seed>``,
    the same as the job that generated it gets (:func:`~collabsim.experiment.tasksource.suite_label`)."""
    from collabsim.experiment.tasksource import suite_label

    found = re.fullmatch(r"v.*-n(\d+)-s(\d+)", root.name)
    if found is None:
        return suite_label({"kind": kind, "root": str(root)})
    return suite_label({"kind": kind, "n_tasks": int(found[1]), "seed": int(found[2])})


class TaskFinder:
    """Finds the exact task a stored session ran by recomputing its store key."""

    def __init__(self, roots: Sequence[Path], specs: Sequence[dict[str, Any]]) -> None:
        self._roots = list(dict.fromkeys(Path(r) for r in roots))
        self._specs = list(specs)
        self._tasks: dict[str, list[tuple[Any, str]]] | None = None

    def _load(self) -> dict[str, list[tuple[Any, str]]]:
        from collabsim.experiment.tasksource import TaskSelectionError, resolve_tasks, suite_label
        from collabsim.tasks.discoverybench import load_tasks

        by_id: dict[str, list[tuple[Any, str]]] = {}
        found: list[tuple[Any, str]] = []
        for spec in self._specs:
            try:
                tasks = resolve_tasks({**spec, "limit": None, "ids": None, "datasets": None})[0]
            except (TaskSelectionError, OSError, ValueError):
                continue
            found += [(task, suite_label(spec)) for task in tasks]
        cache = Path(os.environ.get("COLLABSIM_CACHE_DIR") or Path.home() / ".cache" / "collabsim")
        for root in self._roots:
            found += [(task, f"root:{root}") for task in load_tasks(root).tasks]
        for kind in ("generated", "generated_stats"):
            for root in sorted((cache / kind).glob("v*-n*-s*")) if (cache / kind).is_dir() else []:
                found += [(task, _cached_suite(kind, root)) for task in load_tasks(root).tasks]
        for task, suite in found:
            by_id.setdefault(task.task_id, []).append((task, suite))
        return by_id

    def find(self, plan: dict[str, Any]) -> Any | None:
        """The task ``plan`` ran (its store key recomputes), or None."""
        return self.find_with_suite(plan)[0]

    def find_with_suite(self, plan: dict[str, Any]) -> tuple[Any | None, str]:
        """The task ``plan`` ran and the label of the suite it was found in
        (``"unknown"`` when not found)."""
        from collabsim.experiment.plan import session_key

        if self._tasks is None:
            self._tasks = self._load()
        for task, suite in self._tasks.get(str(plan.get("task_id")), []):
            key = session_key(task, str(plan["team"]), str(plan["structure"]), int(plan["seed"]),
                              plan.get("settings") or {})
            if key == plan.get("key"):
                return task, suite
        return None, "unknown"


def _store_rows(store: Path, known: set[str], finder: TaskFinder, notes: list[str]) -> pd.DataFrame:
    """Metrics rows of a store's sessions not in ``known`` (their keys are added to it).

    Sessions without a usable trace are left out with a note; sessions whose task is not
    found get empty outcome and process metrics.
    """
    from collabsim.core.redaction import Redactor
    from collabsim.reporting.tables import session_metrics_row
    from collabsim.session.trace import read_trace

    rows, extra = [], []
    unresolved = 0
    redact = Redactor()
    references: dict[str, Any] = {}
    for folder in sorted((store / "sessions").iterdir()):
        entry = _stored_session(folder, known, redact, notes)
        if entry is None:
            continue
        plan, result, trace = entry
        known.add(str(plan["key"]))
        task, suite = finder.find_with_suite(plan)
        if task is None:
            unresolved += 1
        reference = _reference_of(task, references)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            events = read_trace(trace, allow_truncated_tail=True)
            row = session_metrics_row({**result, "team": plan["team"]}, events, task, reference)
        rows.append(row)
        extra.append({**_stored_columns(plan, result, folder, store), SUITE_COLUMN: suite})
    if unresolved:
        notes.append(f"{store}: {unresolved} stored session(s) whose task was not found "
                     "(pass --tasks-root); their outcome and process metrics are empty")
    return _with_stored_columns(rows, extra)


def _stored_session(
    folder: Path, known: set[str], redact: Callable[[str], str], notes: list[str]
) -> tuple[dict[str, Any], dict[str, Any], Path] | None:
    """A store folder's plan, result and trace when it holds a new, consistent session.

    Returns:
        ``(plan, result, trace path)``, or None for a folder without a plan or result, a
        session already collected, or a result without a matching trace (noted).
    """
    from collabsim.experiment.integrity import trace_mismatch

    plan = read_json_object(folder / "plan.json")
    result = read_json_object(folder / "result.json")
    if plan is None or result is None or not plan.get("key") or plan["key"] in known:
        return None
    trace = folder / "trace.jsonl"
    if not trace.is_file():
        notes.append(f"{folder}: result without trace.jsonl; left out")
        return None
    mismatch = trace_mismatch(result, trace, redact)
    if mismatch is not None:
        notes.append(f"{folder}: result.json does not match its trace ({mismatch}); left out")
        return None
    return plan, result, trace


def _reference_of(task: Any | None, references: dict[str, Any]) -> Any | None:
    """The reference workflow of ``task`` (None: none), loaded once per file."""
    from collabsim.metrics.reference import load_reference

    if task is None or task.reference_workflow_path is None:
        return None
    path = str(task.reference_workflow_path)
    if path not in references:
        references[path] = load_reference(task.reference_workflow_path)
    return references[path]


def _stored_columns(
    plan: dict[str, Any], result: dict[str, Any], folder: Path, store: Path
) -> dict[str, Any]:
    """The columns of a stored session's row that come from its files, not its metrics."""
    return {
        "turns": result.get("turns"),
        "virtual_min": round(float(result.get("virtual_seconds") or 0) / 60.0, 1),
        "hypothesis": result.get("submitted_hypothesis"),
        "session_key": str(plan["key"]), "session_dir": str(folder), "source": str(store),
        SETTINGS_COLUMN: _canonical(plan.get("settings") or {}), OVERRIDES_COLUMN: "",
    }


def _with_stored_columns(rows: list[Any], extra: list[dict[str, Any]]) -> pd.DataFrame:
    """The metrics rows with the stored columns (turns and virtual minutes after status)."""
    if not rows:
        return pd.DataFrame()
    out = pd.DataFrame(rows)
    more = pd.DataFrame(extra)
    out.insert(out.columns.get_loc("status") + 1, "turns", more["turns"])
    out.insert(out.columns.get_loc("turns") + 1, "virtual_min", more["virtual_min"])
    for col in ("hypothesis", "session_key", "session_dir", "source", SETTINGS_COLUMN,
                OVERRIDES_COLUMN, SUITE_COLUMN):
        out[col] = more[col]
    return out


def _order(df: pd.DataFrame) -> pd.DataFrame:
    def rank(values: pd.Series, order: Sequence[str]) -> list[int]:
        return [order.index(v) if v in order else len(order) for v in values]

    keyed = df.assign(_s=rank(df["structure"], STRUCTURE_ORDER), _t=rank(df["team"], TEAM_ORDER))
    keyed = keyed.sort_values(["_s", "structure", "_t", "team", "task_id", "seed"], kind="stable")
    return keyed.drop(columns=["_s", "_t"]).reset_index(drop=True)


def collect_sessions(
    paths: Iterable[str | Path], tasks_roots: Sequence[str | Path] = ()
) -> Collected:
    """One sessions table from any mix of job folders, multirun folders and result stores.

    Args:
        paths: Folders to read (searched recursively).
        tasks_roots: Task roots to look in for sessions found only in a store (the jobs'
            own task settings and the generated suites in the cache are always tried).

    Returns:
        The table (one row per session key, ordered by structure, team, task, seed) with
        ``session_key``, ``session_dir`` and ``source`` columns, plus notes.

    Raises:
        ReportInputError: Naming a path that cannot be used, or when no session is found.
    """
    inputs = find_inputs(paths)
    notes: list[str] = []
    keys = list(dict.fromkeys(
        k for job in inputs.jobs if (info := job_overrides(job)) is not None
        for k in override_keys(info[0])))
    frames = [_job_rows(job, notes, keys) for job in inputs.jobs]
    known = {k for f in frames for k in f["session_key"]}
    specs = [cfg["tasks"] for job in inputs.jobs
             if (cfg := job_config(job)) is not None and isinstance(cfg.get("tasks"), dict)]
    finder = TaskFinder([Path(r) for r in tasks_roots], specs)
    for store in inputs.stores:
        frame = _store_rows(store, known, finder, notes)
        if len(frame):
            frames.append(frame)
    frames = [f for f in frames if len(f)]
    if not frames:
        raise ReportInputError("no finished session found in " + ", ".join(map(str, paths)))
    combined = pd.concat(frames, ignore_index=True)
    before = len(combined)
    combined = combined.drop_duplicates("session_key", keep="first")
    if len(combined) < before:
        notes.append(f"{before - len(combined)} duplicate session(s) (same key) counted once")
    return Collected(_order(combined), inputs, notes)
