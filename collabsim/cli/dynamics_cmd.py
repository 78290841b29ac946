"""``collabsim dynamics PATH [--out table.csv]``: dynamics metrics, one row per session.

PATH is a Kolab graph JSON file, the Kolab explorer dataset file, a node-link JSON file
(the format is detected from the document's shape), a JSONL trace file, or a folder of
simulated traces (``*.jsonl``, searched recursively). The table (columns
:data:`~collabsim.metrics.dynamics.DYNAMICS_COLUMNS`) is printed with 3 decimals and, with
``--out``, written as CSV at full precision.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core import jsonio
from collabsim.core.csvsafe import safe_frame
from collabsim.core.outputs import OutputPathError, atomic_file, check_output_file
from collabsim.graphs.model import WorkflowGraph


class DynamicsInputError(Exception):
    """An input cannot be read; the message names the file."""


def register(subparsers: Any) -> None:
    """Add the ``dynamics`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser(
        "dynamics",
        help="collaboration-dynamics metrics of workflow graphs (Kolab files or traces)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "path",
        type=Path,
        help="graph file, explorer dataset, node-link JSON, trace .jsonl, or folder of traces",
    )
    parser.add_argument("--out", default=None, help="write the table as CSV here")
    parser.add_argument("--quiet", action="store_true", help="do not print data-quality warnings")
    parser.set_defaults(func=run)


def _json_graphs(path: Path) -> list[WorkflowGraph]:
    from collabsim.graphs.explorer_io import read_explorer
    from collabsim.graphs.kolab_io import kolab_to_graph
    from collabsim.graphs.nodelink import from_node_link, is_node_link

    try:
        data = jsonio.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DynamicsInputError(f"{path}: cannot read JSON: {err}") from err
    docs = data if isinstance(data, list) else [data]
    graphs: list[WorkflowGraph] = []
    try:
        for doc in docs:
            if isinstance(doc, dict) and isinstance(doc.get("sessions"), list):
                graphs.extend(read_explorer(doc))
            elif is_node_link(doc):
                graphs.append(from_node_link(doc))
            elif isinstance(doc, dict) and "session_id" in doc and "steps" in doc:
                graphs.append(kolab_to_graph(doc))
            else:
                raise DynamicsInputError(
                    f"{path}: not a Kolab graph, explorer dataset or node-link graph"
                )
    except DynamicsInputError:
        raise
    except Exception as err:  # any reader error -> name the file
        raise DynamicsInputError(f"{path}: {err}") from err
    if not graphs:
        raise DynamicsInputError(f"{path}: no sessions in this file")
    return graphs


def _trace_graph(path: Path) -> WorkflowGraph:
    from collabsim.graphs.from_trace import graph_from_trace_file

    try:
        return graph_from_trace_file(path)
    except Exception as err:
        raise DynamicsInputError(f"{path}: {err}") from err


def iter_graphs(path: Path, *, progress: bool = True) -> Iterator[WorkflowGraph]:
    """Yield the graphs found at ``path`` (see module docstring).

    Raises:
        DynamicsInputError: Naming the file that cannot be read, or an empty folder.
    """
    if path.is_dir():
        # A session folder also holds the LLM call log (``llm_calls.jsonl``), which is not a trace.
        # Unscored sessions (infra_error, provider_error, budget_exceeded) show the
        # infrastructure, not behaviour: skipped.
        from collabsim.calibration.simulated import ended_unscored

        files = sorted(f for f in path.rglob("*.jsonl") if not f.name.endswith("llm_calls.jsonl")
                       and not ended_unscored(f))
        if not files:
            raise DynamicsInputError(f"{path}: no *.jsonl trace files in this folder")
        from tqdm import tqdm

        for file in tqdm(files, desc="traces", unit="trace", disable=not progress, file=sys.stderr):
            yield _trace_graph(file)
    elif not path.exists():
        raise DynamicsInputError(f"{path}: no such file or folder")
    elif path.suffix == ".jsonl":
        yield _trace_graph(path)
    else:
        yield from _json_graphs(path)


def dynamics_table(path: Path, *, progress: bool = True) -> Any:
    """The dynamics table of every session at ``path`` as a pandas DataFrame."""
    import pandas as pd

    from collabsim.metrics.dynamics import DYNAMICS_COLUMNS, dynamics_row

    rows = [dynamics_row(g) for g in iter_graphs(path, progress=progress)]
    return pd.DataFrame(rows, columns=list(DYNAMICS_COLUMNS))


def run(args: argparse.Namespace) -> int:
    """Execute ``collabsim dynamics``; returns the exit code."""
    import pandas as pd

    out = None
    if args.out is not None:
        try:
            out = check_output_file(args.out, option="--out", inputs=[args.path])
        except OutputPathError as err:
            return user_error("dynamics", f"error: {err}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            table = dynamics_table(args.path, progress=sys.stderr.isatty())
        except DynamicsInputError as err:
            return user_error("dynamics", f"error: {err}")
    if not args.quiet:
        for w in caught:
            print(f"warning: {w.message}", file=sys.stderr)
    with pd.option_context(
        "display.max_rows", None, "display.max_columns", None, "display.width", 250
    ):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    if out is not None:
        try:
            with atomic_file(out) as tmp:
                safe_frame(table).to_csv(tmp, index=False)
        except OSError as err:
            return user_error("dynamics", f"error: --out {out}: cannot write ({err.strerror or err})")
        print(f"wrote {len(table)} rows to {out}", file=sys.stderr)
    return 0
