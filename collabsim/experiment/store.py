"""The result store: one folder per session, keyed by the session's resolved configuration.

Layout under the store root::

    sessions/<slug>/result.json   # SessionResult, written atomically when the session ends
    sessions/<slug>/trace.jsonl   # the trace, appended as the session runs
    sessions/<slug>/plan.json     # what was run (task, team, structure, seed, settings)

A session counts as done when its ``result.json`` exists and reads back; a rerun skips it.
A crashed session leaves a trace without a result and is run again from the start.
"""

from __future__ import annotations

from pathlib import Path

from collabsim.experiment.plan import SessionPlan
from collabsim.session.results import SessionResult, read_result, write_json_atomic, write_result


class ResultStore:
    """Folder-per-session store of results and traces.

    Args:
        root: Store root folder (created on first write).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def session_dir(self, plan: SessionPlan) -> Path:
        """Folder holding one session's files."""
        return self.root / "sessions" / plan.slug

    def trace_path(self, plan: SessionPlan) -> Path:
        """Where the session's trace is written."""
        return self.session_dir(plan) / "trace.jsonl"

    def result_path(self, plan: SessionPlan) -> Path:
        """Where the session's result record is written."""
        return self.session_dir(plan) / "result.json"

    def load(self, plan: SessionPlan) -> SessionResult | None:
        """The stored result of a finished session, or None when it has not run (or is corrupt)."""
        path = self.result_path(plan)
        if not path.is_file():
            return None
        try:
            return read_result(path)
        except ValueError:
            return None

    def prepare(self, plan: SessionPlan) -> Path:
        """Create the session folder, record the plan and clear a stale trace; returns the trace path."""
        folder = self.session_dir(plan)
        folder.mkdir(parents=True, exist_ok=True)
        write_json_atomic(
            folder / "plan.json",
            {
                "key": plan.key,
                "task_id": plan.task.task_id,
                "team": plan.team,
                "structure": plan.structure,
                "seed": plan.seed,
                "settings": dict(plan.settings),
            },
        )
        trace = self.trace_path(plan)
        trace.unlink(missing_ok=True)
        return trace

    def save(self, plan: SessionPlan, result: SessionResult) -> None:
        """Write the result record atomically (marks the session done)."""
        write_result(self.result_path(plan), result)
