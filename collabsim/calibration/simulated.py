"""Read a folder of simulated sessions (``trace.jsonl`` files from ``collabsim run``).

Sessions that ended unscored (``infra_error``: the sandbox failed, see
:mod:`collabsim.session.sandboxing`; ``provider_error``: a model call failed;
``budget_exceeded``; :data:`~collabsim.session.results.UNSCORED_STATUSES`) show the
infrastructure or the budget, not behaviour, and are skipped.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from collabsim.calibration.kolab_sample import CalibrationInputError
from collabsim.graphs.model import WorkflowGraph
from collabsim.session.results import UNSCORED_STATUSES

TRACE_NAME = "trace.jsonl"


def trace_files(folder: str | Path) -> list[Path]:
    """Every ``trace.jsonl`` under ``folder`` (searched recursively), sorted.

    Only files called ``trace.jsonl`` count: a session folder also holds other JSONL files
    (``llm_calls.jsonl``) that are not traces.

    Raises:
        CalibrationInputError: When the folder is missing or holds no trace.
    """
    folder = Path(folder)
    if not folder.exists():
        raise CalibrationInputError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise CalibrationInputError(f"{folder}: not a folder")
    files = sorted(folder.rglob(TRACE_NAME))
    if not files:
        raise CalibrationInputError(f"{folder}: no {TRACE_NAME} files in this folder")
    return files


def ended_unscored(trace: Path) -> bool:
    """Whether the trace's last event is ``SESSION_END`` with an unscored status."""
    try:
        with open(trace, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 65536))
            tail = fh.read().splitlines()
        last = json.loads(next(line for line in reversed(tail) if line.strip()))
    except (OSError, ValueError, StopIteration):
        return False
    return (isinstance(last, dict) and last.get("action_type") == "SESSION_END"
            and isinstance(last.get("args"), dict) and last["args"].get("status") in UNSCORED_STATUSES)


def load_simulated_graphs(folder: str | Path) -> list[WorkflowGraph]:
    """Convert every trace under ``folder`` into a workflow graph.

    Raises:
        CalibrationInputError: Naming the folder, or the first trace that cannot be read.
    """
    from collabsim.graphs.from_trace import TraceFormatError, graph_from_trace_file

    graphs = []
    files = [path for path in trace_files(folder) if not ended_unscored(path)]
    if not files:
        raise CalibrationInputError(
            f"{folder}: every session in it ended unscored ({', '.join(sorted(UNSCORED_STATUSES))})")
    for path in files:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                graphs.append(graph_from_trace_file(path))
        except (TraceFormatError, ValueError) as err:
            raise CalibrationInputError(" ".join(str(err).split())) from None
    return graphs
