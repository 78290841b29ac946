"""Run the ``collabsim`` command inside the test process, seen the way a shell sees it.

A subprocess costs about a second per call (interpreter start, imports, Hydra set-up); tests
whose subject is what a command says and writes, not the process boundary itself, call
:func:`collabsim_in_process` instead and get the same :class:`subprocess.CompletedProcess`:

- ``returncode`` is what ``python -m collabsim.cli.main`` exits with (``SystemExit`` codes
  are mapped the way the interpreter maps them);
- ``stdout``/``stderr`` are captured at the file-descriptor level (``capfd``), and every
  warning a plain interpreter would print (Python's default filters) is added to ``stderr``;
- an exception escaping ``main`` (a traceback in a real process) propagates and fails the test;
- the logging set-up a Hydra job installs (handlers on the root logger writing to the
  captured stdout and the job's log file) is undone afterwards, as if the job had run in a
  process of its own.

Keep a real subprocess where exit codes, signals or tracebacks through a process are the point.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

# warnings a plain ``python -m ...`` run does not print (its default filters)
_HIDDEN_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def _exit_status(code: object) -> tuple[int, str]:
    """The process exit status and stderr text of ``SystemExit(code)`` at top level."""
    if code is None:
        return 0, ""
    if isinstance(code, int):
        return code, ""
    return 1, f"{code}\n"


@contextlib.contextmanager
def logging_restored() -> Iterator[None]:
    """Put the handlers, level and flags of every existing logger back as they were, closing
    handlers added meanwhile: a Hydra job reconfigures logging for the whole process."""
    loggers = [logging.root, *(lg for lg in logging.Logger.manager.loggerDict.values()
                                if isinstance(lg, logging.Logger))]
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate, lg.disabled) for lg in loggers]
    disabled = logging.root.manager.disable
    try:
        yield
    finally:
        for logger, handlers, level, propagate, off in saved:
            for handler in logger.handlers:
                if handler not in handlers:
                    handler.close()
            logger.handlers[:] = handlers
            logger.setLevel(level)
            logger.propagate, logger.disabled = propagate, off
        logging.disable(disabled)


def collabsim_in_process(
    args: Sequence[str],
    *,
    cwd: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> subprocess.CompletedProcess[str]:
    """Run ``collabsim *args`` in this process with ``cwd`` as working folder.

    Args:
        args: The command line after ``collabsim``.
        cwd: Working folder of the command (stays the test's working folder until teardown).
        capfd: The test's ``capfd`` fixture (output of earlier steps is discarded).
        monkeypatch: The test's ``monkeypatch`` fixture (restores the working folder).

    Returns:
        The exit status and the captured output, as :func:`subprocess.run` gives them.
    """
    from collabsim.cli.main import main

    capfd.readouterr()
    monkeypatch.chdir(cwd)
    extra = ""
    with logging_restored(), warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for category in _HIDDEN_BY_DEFAULT:
            warnings.simplefilter("ignore", category)
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code, extra = _exit_status(exit_.code)
    out, err = capfd.readouterr()
    shown = "".join(
        warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line)
        for w in caught
    )
    return subprocess.CompletedProcess(["collabsim", *args], code, out, err + extra + shown)


def collabsim_exit_code(args: Sequence[str], *, cwd: Path) -> int:
    """Run ``collabsim *args`` in this process from ``cwd`` and return its exit code.

    For module- and session-scoped fixtures that only need a command's files (a job or a
    sweep to read); its output goes wherever pytest's capture sends it.
    """
    from collabsim.cli.main import main

    with pytest.MonkeyPatch.context() as patch, logging_restored():
        patch.chdir(cwd)
        try:
            return main(list(args))
        except SystemExit as exit_:
            return _exit_status(exit_.code)[0]
