"""The result store: one folder per session, keyed by the session's resolved configuration.

Layout under the store root::

    sessions/<slug>/result.json   # SessionResult + the session key, written atomically at the end
    sessions/<slug>/trace.jsonl   # the trace, appended as the session runs
    sessions/<slug>/plan.json     # what was run (key, task, team, structure, seed, settings)
    sessions/<slug>/.lock         # held (flock) while a job runs the session

A session counts as done when its ``result.json`` reads back, carries the session's own
key and identity, and agrees with its ``trace.jsonl`` (the digest of the trace stored in the
record, the submitted text and status of the trace's ``SESSION_END``; see
:mod:`collabsim.experiment.integrity`); anything else (a record copied from another session or
edited after the fact, a folder, bad JSON, an unreadable file) counts as missing: the session
runs again and a warning names the file. So does a session stored with an unscored status
(:data:`~collabsim.session.results.UNSCORED_STATUSES`: ``infra_error``, ``provider_error``,
``budget_exceeded``; nothing about the team was measured), so a resume or a rerun on the
same store runs exactly those sessions again.
A crashed session leaves a trace without a result and is run again from the start.

Jobs sharing a store share the work: a job runs a session only while holding its lock, and
re-reads the result after taking it, so no session runs twice and no file is torn. The lock
is an advisory ``flock``, released by the kernel when its holder dies (even by kill -9).
Everything written goes through the credential redaction of :mod:`collabsim.llm.redact`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
from pathlib import Path

from collabsim.core.redaction import Redactor
from collabsim.experiment.integrity import (
    RECORD_DIGEST_KEY,
    TRACE_DIGEST_KEY,
    record_digest,
    trace_digest,
    trace_mismatch,
)
from collabsim.experiment.plan import SessionPlan
from collabsim.session.results import UNSCORED_STATUSES, SessionResult, write_json_atomic

log = logging.getLogger(__name__)


class SessionLock:
    """An exclusive lock on one session of a store (release it, or use it as a context)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None

    def __enter__(self) -> SessionLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class _UnusableRecord(Exception):
    """A stored ``result.json`` that cannot be used; the message says why."""


def _is_record_of(data: dict, plan: SessionPlan) -> bool:
    """Whether a record carries ``plan``'s key and identity (task, team, structure, seed)."""
    identity = (data.get("task_id"), data.get("team"), data.get("structure"), data.get("seed"))
    return data.get("key") == plan.key and identity == (
        plan.task.task_id,
        plan.team,
        plan.structure,
        plan.seed,
    )


class ResultStore:
    """Folder-per-session store of results and traces.

    Args:
        root: Store root folder (created on first write).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._redact = Redactor()

    def session_dir(self, plan: SessionPlan) -> Path:
        """Folder holding one session's files."""
        return self.root / "sessions" / plan.slug

    def trace_path(self, plan: SessionPlan) -> Path:
        """Where the session's trace is written."""
        return self.session_dir(plan) / "trace.jsonl"

    def result_path(self, plan: SessionPlan) -> Path:
        """Where the session's result record is written."""
        return self.session_dir(plan) / "result.json"

    def load(self, plan: SessionPlan, *, warn: bool = True) -> SessionResult | None:
        """The stored result of a finished session, or None when it must run (again).

        Args:
            plan: The session.
            warn: Log a warning when an entry exists but cannot be used.
        """
        path = self.result_path(plan)
        try:
            return self._checked_result(plan, path)
        except _UnusableRecord as why:
            if warn:
                log.warning("%s: %s; the session runs again", path, why)
            return None

    def _checked_result(self, plan: SessionPlan, path: Path) -> SessionResult | None:
        """Read ``path`` and check it is the finished result of ``plan`` (None: no file).

        Raises:
            _UnusableRecord: The file exists but cannot be used; the message says why.
        """
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:
            raise _UnusableRecord(f"unreadable ({type(err).__name__})") from err
        if not isinstance(data, dict):
            raise _UnusableRecord("not a result record")
        if not _is_record_of(data, plan):
            raise _UnusableRecord("belongs to another session or configuration")
        try:
            result = SessionResult.from_dict(data)
        except (KeyError, TypeError, ValueError) as err:
            raise _UnusableRecord(f"not a result record ({err})") from err
        if result.status in UNSCORED_STATUSES:
            raise _UnusableRecord(f"status {result.status}, not scored")
        mismatch = trace_mismatch(data, self.trace_path(plan), self._redact)
        if mismatch is not None:
            raise _UnusableRecord(f"does not match its trace: {mismatch}")
        return result

    def try_lock(self, plan: SessionPlan) -> SessionLock | None:
        """Take the session's lock if no other job holds it, else return None."""
        return self._lock(plan, blocking=False)

    def lock(self, plan: SessionPlan) -> SessionLock:
        """Take the session's lock, waiting while another job holds it."""
        lock = self._lock(plan, blocking=True)
        assert lock is not None
        return lock

    def _lock(self, plan: SessionPlan, *, blocking: bool) -> SessionLock | None:
        folder = self.session_dir(plan)
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return SessionLock(fd)

    def prepare(self, plan: SessionPlan) -> Path:
        """Create the session folder, record the plan and clear a stale trace; returns the trace path."""
        folder = self.session_dir(plan)
        folder.mkdir(parents=True, exist_ok=True)
        record = {
            "key": plan.key,
            "task_id": plan.task.task_id,
            "team": plan.team,
            "structure": plan.structure,
            "seed": plan.seed,
            "settings": dict(plan.settings),
        }
        write_json_atomic(folder / "plan.json", self._redact.data(record))
        trace = self.trace_path(plan)
        trace.unlink(missing_ok=True)
        return trace

    def save(self, plan: SessionPlan, result: SessionResult) -> SessionResult:
        """Write the result record with the session key and the digest of its trace
        atomically (marks the session done).

        Returns:
            The result as stored (credentials redacted), so that tables built now equal
            the tables a rerun builds from the store.
        """
        path = self.result_path(plan)
        if path.is_dir() and not path.is_symlink():
            # Something else sits where the record goes; the store owns this folder.
            with contextlib.suppress(OSError):
                shutil.rmtree(path)
        record = self._redact.data({**result.to_dict(), "key": plan.key})
        digest = trace_digest(self.trace_path(plan))
        if digest is not None:
            record[TRACE_DIGEST_KEY] = digest
        record[RECORD_DIGEST_KEY] = record_digest(record)
        write_json_atomic(path, record)
        return SessionResult.from_dict(record)
