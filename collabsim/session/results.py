"""Session results: one frozen record per session, written atomically as JSON."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from collabsim.core import jsonio
from collabsim.core.errors import BUDGET_EXCEEDED, LOOP, PROVIDER_ERROR

INFRA_ERROR = "infra_error"
"""Status of a session during which the sandbox infrastructure failed (not the participants'
code): retried once by a job, never scored, left out of every aggregate."""

SESSION_STATUSES: tuple[str, ...] = (
    "finished",
    "max_turns",
    "timeout",
    LOOP,
    BUDGET_EXCEEDED,
    PROVIDER_ERROR,
    "error",
    INFRA_ERROR,
)

UNSCORED_STATUSES: frozenset[str] = frozenset({INFRA_ERROR, PROVIDER_ERROR, BUDGET_EXCEEDED})
"""Statuses that measure the infrastructure or the spending limit, not the team: such a
session gets no metrics, is left out of every aggregate and paired difference (counted in
the run's summary), is never reused from a result store and runs again on resume."""


@dataclass(frozen=True)
class SessionResult:
    """Outcome of one session.

    Attributes:
        task_id: Task key.
        team: Team label (``"single"``, ``"D"``, ``"R"``, ``"DR"``).
        structure: Structure name.
        seed: Session seed.
        policy: Policy label (from the session config, or participant class names).
        submitted_hypothesis: Result-editor text at the end (submitted by FINISH, or the
            current text when the session ended otherwise).
        status: ``finished``, ``max_turns``, ``timeout``, ``budget_exceeded`` (or another
            status raised through ``SessionAbort``), ``error``, or ``infra_error`` (the
            sandbox infrastructure failed; not a measure of the team).
        virtual_seconds: Virtual time at which the session ended.
        wall_seconds: Real time the session took (not part of the trace).
        turns: Decisions taken by all participants (waits included).
        counts: Actor -> action type -> number of actions decided (pending requests and
            ``INVALID`` included; gate outcome events and actions ``interrupted`` by the
            session's end excluded).
        n_events: Number of trace events.
        trace_path: Trace file, if one was written.
        error: What went wrong (status ``error`` or an abort reason), else None.
        gates: Gates enforced in the work phase (action -> owner).
    """

    task_id: str
    team: str
    structure: str
    seed: int
    policy: str
    submitted_hypothesis: str
    status: str
    virtual_seconds: float
    wall_seconds: float
    turns: int
    counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict, hash=False)
    n_events: int = 0
    trace_path: str | None = None
    error: str | None = None
    gates: Mapping[str, str] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable dict."""
        data = asdict(self)
        data["counts"] = {a: dict(c) for a, c in self.counts.items()}
        data["gates"] = dict(self.gates)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionResult:
        """Inverse of :meth:`to_dict`; unknown keys are ignored, missing ones raise KeyError.

        Raises:
            KeyError: A field is missing.
            ValueError: A field has the wrong shape (``counts`` not actor -> action -> count,
                ``gates`` not a mapping, a number that is none).
        """
        names = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        counts = data.get("counts") or {}
        gates = data.get("gates") or {}
        if not isinstance(counts, Mapping) or not all(
                isinstance(c, Mapping) for c in counts.values()):
            raise ValueError("counts must map each actor to {action type: count}")
        if not isinstance(gates, Mapping):
            raise ValueError("gates must map an action type to its owner")
        kwargs["counts"] = {
            str(a): {str(k): int(v) for k, v in c.items()} for a, c in counts.items()
        }
        kwargs["gates"] = dict(gates)
        kwargs["seed"] = int(data["seed"])
        kwargs["turns"] = int(data["turns"])
        kwargs["virtual_seconds"] = float(data["virtual_seconds"])
        kwargs["wall_seconds"] = float(data["wall_seconds"])
        return cls(**kwargs)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file in the same folder + os.replace).

    Readers never see a partial file. There is no fsync: a result lost to a power cut is
    simply run again, and syncing every record costs more than a whole scripted session.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` atomically (:func:`write_text_atomic`)."""
    write_text_atomic(path, jsonio.dumps(data, indent=2, sort_keys=True) + "\n")


def write_result(path: Path, result: SessionResult) -> None:
    """Write a result record atomically."""
    write_json_atomic(path, result.to_dict())


def read_result(path: Path) -> SessionResult:
    """Read a result record written by :func:`write_result`.

    Raises:
        ValueError: The file is not a valid result record (message names the file).
    """
    path = Path(path)
    try:
        return SessionResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a session result: {exc}") from exc
