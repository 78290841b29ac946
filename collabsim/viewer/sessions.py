"""The sessions of a page: one per trace, session folder or graph; many per sweep or store.

:func:`session_from_graph` turns one workflow graph (with its trace and result when it is a
simulated session) into a :class:`ViewSession`: the picker's row plus the full payload the
page draws. :func:`load_view_sessions` finds every session behind a path given to
``collabsim view``:

* a trace file (``trace.jsonl``) or a session folder holding one;
* a job folder, a multirun (sweep) folder or a result store: every session in it, with the
  metrics row the job wrote (Performance and the judge's factors);
* a Kolab graph JSON or node-link JSON file (one session);
* the Kolab explorer dataset: the session named by ``--session``, else all of them.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collabsim.experiment.collect import read_json_object
from collabsim.graphs.model import WorkflowGraph
from collabsim.viewer.model_turns import cost_card, model_turns, turn_totals
from collabsim.viewer.payload import graph_payload
from collabsim.viewer.sources import GraphSourceError, load_graph
from collabsim.viewer.story import (
    kolab_header,
    simulated_header,
    transcript_from_graph,
    transcript_from_trace,
)


@dataclass(frozen=True)
class ViewSession:
    """One session on a page.

    Attributes:
        index: The picker's row (id, title, task, team, structure, seed, status, outcome,
            perf): what its filters and sort keys read.
        payload: Everything the page draws for it (graph, header, transcript).
    """

    index: dict[str, Any]
    payload: dict[str, Any]


def _clean(row: Mapping[str, Any] | None) -> dict[str, Any]:
    out = {}
    for key, value in (row or {}).items():
        if isinstance(value, float) and not math.isfinite(value):
            continue
        if hasattr(value, "item"):  # numpy scalars
            value = value.item()
        out[str(key)] = value
    return out


def _trace_path(graph: WorkflowGraph) -> Path | None:
    path = graph.session.extra.get("trace_path")
    return Path(path) if path and Path(path).is_file() else None


def session_from_graph(
    graph: WorkflowGraph,
    *,
    row: Mapping[str, Any] | None = None,
    question: str = "",
    gold: str | None = None,
    title: str | None = None,
) -> ViewSession:
    """The page data of one session.

    A graph read from a simulated trace (``session.extra["trace_path"]``) gets the trace as
    its transcript and the ``result.json`` beside it (status, submitted hypothesis) in its
    header; any other graph is a recorded session (its nodes are the transcript).

    Args:
        graph: The session's workflow graph.
        row: The session's metrics row (``Performance``, factors, ...), when known.
        question: The task question when the trace does not record it.
        gold: The gold hypothesis, only when the user asked to see it.
        title: Title in the picker (default: the session id).
    """
    from collabsim.graphs.from_trace import read_trace

    row = _clean(row)
    payload = graph_payload(graph)
    trace = _trace_path(graph)
    cost: dict[str, Any] | None = None
    if trace is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            events = read_trace(trace)
        result = read_json_object(trace.parent / "result.json")
        header = simulated_header(graph, result, row, question=question, gold=gold)
        payload["transcript"] = transcript_from_trace(events, graph)
        turns = model_turns(trace.parent)
        if turns:
            payload["model_turns"] = turns
            cost = turn_totals(turns)
            header["cards"] = [*header["cards"], cost_card(cost)]
    else:
        header = kolab_header(graph)
        if question:
            header["question"] = question
        payload["transcript"] = transcript_from_graph(graph)
    for node in payload["nodes"]:  # the transcript holds the full text and output
        node["detail"] = ""
    payload["header"] = header
    facts = dict(header["facts"])
    index = {
        "id": graph.session.session_id,
        "title": title or graph.session.session_id,
        "kind": header["kind"],
        "task": facts.get("task", ""),
        "team": facts.get("team", facts.get("participant", "")),
        "structure": facts.get("structure", facts.get("category", "")),
        "seed": facts.get("seed", ""),
        "status": facts.get("status", ""),
        "outcome": header["outcome"],
        "perf": header["performance"],
        "nodes": len(graph.nodes),
    }
    if cost is not None:
        index["cost"] = cost
    return ViewSession(index, payload)


class _Tasks:
    """Finds the task a stored session ran (for its question in old traces, or the gold)."""

    def __init__(self, jobs: Sequence[Path], tasks_roots: Sequence[Path]) -> None:
        from collabsim.experiment.collect import TaskFinder, job_config

        specs = [cfg["tasks"] for job in jobs
                 if (cfg := job_config(job)) is not None and isinstance(cfg.get("tasks"), dict)]
        self._finder = TaskFinder(list(tasks_roots), specs)

    def find(self, session_dir: Path) -> Any | None:
        plan = read_json_object(session_dir / "plan.json")
        if not plan or not plan.get("key"):
            return None
        try:
            return self._finder.find(plan)
        except (KeyError, TypeError, ValueError, OSError):
            return None


def _simulated(
    folder: Path, row: Mapping[str, Any] | None, tasks: _Tasks | None, show_gold: bool
) -> ViewSession:
    from collabsim.graphs.from_trace import graph_from_trace_file

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = graph_from_trace_file(folder / "trace.jsonl")
    question, gold = "", None
    if tasks is not None and (show_gold or not graph.session.goal):
        task = tasks.find(folder)
        if task is not None:
            question = task.query
            if show_gold:
                gold = task.gold_hypothesis or "(this task has no gold hypothesis)"
        elif show_gold:
            gold = "(task not found: pass --tasks-root)"
    return session_from_graph(graph, row=row, question=question, gold=gold,
                              title=folder.name)


def _traceless(row: Mapping[str, Any]) -> ViewSession:
    """A session row whose trace is not stored: its header only."""
    from collabsim.graphs.model import SessionInfo

    graph = WorkflowGraph(SessionInfo(
        f"{row.get('task_id')}|{row.get('team')}|{row.get('structure')}|seed{row.get('seed')}",
        extra={k: row.get(k) for k in ("task_id", "team", "structure", "seed")}), [], [], [])
    view = session_from_graph(graph, row=row)
    header = simulated_header(graph, None, _clean(row))
    header["error"] = header["error"] or "no trace stored for this session"
    view.payload["header"] = header
    view.payload["transcript"] = []
    view.index.update(kind="simulated", outcome=header["outcome"],
                      perf=header["performance"], task=str(row.get("task_id", "")),
                      team=str(row.get("team", "")), structure=str(row.get("structure", "")),
                      seed=str(row.get("seed", "")))
    return view


def _sweep(path: Path, tasks_roots: Sequence[Path], show_gold: bool) -> list[ViewSession]:
    from collabsim.experiment.collect import ReportInputError, collect_sessions

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            collected = collect_sessions([path], tasks_roots)
    except ReportInputError as err:
        raise GraphSourceError(str(err)) from err
    tasks = _Tasks(collected.inputs.jobs, tasks_roots)
    out = []
    for _, series in collected.sessions.iterrows():
        row = _clean(series.to_dict())
        folder = Path(row["session_dir"]) if row.get("session_dir") else None
        if folder is not None and (folder / "trace.jsonl").is_file():
            out.append(_simulated(folder, row, tasks, show_gold))
        else:
            out.append(_traceless(row))
    return out


def _job_row(folder: Path) -> tuple[dict[str, Any] | None, list[Path]]:
    """The metrics row of one stored session (from its job's sessions.csv, or computed for a
    session found only in a store) and the job folders seen."""
    from collabsim.experiment.collect import ReportInputError, collect_sessions

    root = folder.parent.parent if folder.parent.name == "sessions" else None
    if root is None:
        return None, []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            collected = collect_sessions([root])
    except ReportInputError:
        return None, []
    match = collected.sessions[collected.sessions["session_dir"] == str(folder.resolve())]
    jobs = list(collected.inputs.jobs)
    return (_clean(match.iloc[0].to_dict()) if len(match) else None), jobs


def load_view_sessions(
    path: str | Path,
    session: str | None = None,
    *,
    show_gold: bool = False,
    tasks_roots: Sequence[str | Path] = (),
) -> list[ViewSession]:
    """Every session behind ``path`` (see the module docstring), in report order.

    Args:
        path: Trace, session folder, job / sweep / store folder, or graph / explorer file.
        session: Session id to pick from an explorer file (default: all of its sessions).
        show_gold: Put each task's gold hypothesis in the header (simulated sessions).
        tasks_roots: Task roots to find stored sessions' tasks in (questions of old traces,
            gold hypotheses).

    Raises:
        GraphSourceError: Missing path, unknown format, or nothing to show.
    """
    from collabsim.graphs.explorer_io import read_explorer

    path = Path(path)
    roots = [Path(r) for r in tasks_roots]
    trace = path / "trace.jsonl" if path.is_dir() else path
    if session is not None and (path.is_dir() or trace.suffix == ".jsonl"):
        raise GraphSourceError(f"--session: picks a session of an explorer file, not of {path} "
                               "(a folder's page lists all its sessions)")
    if path.is_dir() and not trace.is_file():
        return _sweep(path, roots, show_gold)
    if not path.exists():
        raise GraphSourceError(f"{path}: no such file or folder")
    if trace.suffix == ".jsonl":
        folder = trace.parent
        row, jobs = _job_row(folder)
        tasks = _Tasks(jobs, roots) if (show_gold or roots or jobs) else None
        return [_simulated(folder, row, tasks, show_gold)] if trace.name == "trace.jsonl" \
            else [session_from_graph(load_graph(trace))]
    if session is None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            data = None
        if isinstance(data, dict) and isinstance(data.get("sessions"), list):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                graphs = read_explorer(data)
            return [session_from_graph(g) for g in graphs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [session_from_graph(load_graph(path, session))]
