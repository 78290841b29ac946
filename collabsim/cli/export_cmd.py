"""``collabsim export RUN --format jsonl|parquet --out DIR``: trajectories for trainers.

Writes, for every stored session of the job folder RUN and every seat that decided (the
agent and each collaborator), ``trajectories.<ext>`` (one row per decision: the seat's
observation as the gym text interface renders it, its action text, reward, terminated /
truncated, info) and ``transcripts.<ext>`` (one row per session and seat: the chat
``messages`` [{role, content}] SFT trainers read). Schema and a loading example:
``docs/export.md``. Sessions are replayed with the run's settings and must reproduce the
stored traces; only ``policy=scripted`` runs can be exported.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.jsonio import dumps
from collabsim.core.outputs import OutputPathError, StagedOutput, check_output_dir

FORMATS = ("jsonl", "parquet")
OWN_NAMES = ("trajectories.jsonl", "transcripts.jsonl", "trajectories.parquet",
             "transcripts.parquet")


def register(subparsers: Any) -> None:
    """Add the ``export`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser(
        "export",
        help="write a run's sessions as per-seat trajectories and chat transcripts "
             "(JSONL or Parquet) for RL / SFT trainers",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run", type=Path, help="a `collabsim run` job folder")
    parser.add_argument("--format", choices=FORMATS, default="jsonl",
                        help="file format (default: jsonl; parquet needs pyarrow)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    try:
        out = check_output_dir(args.out, option="--out", inputs=[args.run],
                               own_names=OWN_NAMES)
    except OutputPathError as err:
        return user_error("export", str(err))
    if args.format == "parquet" and importlib.util.find_spec("pyarrow") is None:
        return user_error("export", "--format parquet needs the package pyarrow "
                                    "(pip install pyarrow), or use --format jsonl")
    if not args.run.is_dir():
        return user_error("export", f"{args.run}: not a folder; RUN must be a job folder")
    from collabsim.envs.trajectories import ExportError, replay_run

    steps: list[dict[str, Any]] = []
    transcripts: list[dict[str, Any]] = []
    try:
        for seat in replay_run(args.run):
            steps.extend(seat.steps)
            transcripts.append({"session": seat.session, "seat": seat.seat, "role": seat.role,
                                "messages": seat.messages()})
    except ExportError as err:
        return user_error("export", str(err))
    try:
        with StagedOutput(out) as staged:
            _write(staged.dir, "trajectories", steps, args.format)
            _write(staged.dir, "transcripts", transcripts, args.format)
            staged.publish()
    except OSError as err:
        return user_error("export", f"--out: cannot write {args.out}: {err.strerror}")
    print(f"{len(transcripts)} seat trajectories, {len(steps)} steps -> {out}")
    return 0


def _write(folder: Path, name: str, rows: list[dict[str, Any]], fmt: str) -> None:
    if fmt == "jsonl":
        with (folder / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(dumps(row, sort_keys=False) + "\n")
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), folder / f"{name}.parquet")
