"""The one guard every command runs on a user-named output path, and atomic writes.

A command that writes where the user said (``collabsim view --out``, ``report --out``,
``kolab report --out``, ``calibrate --out``, ``fidelity --out``, ``dynamics --out``,
``data fetch --dest``) checks the path with :func:`check_output_file` or
:func:`check_output_dir` BEFORE it computes or writes anything. The guard refuses, with
:class:`OutputPathError` (one line naming the option and the path):

* an empty path (``--out ''``);
* a device, pipe, socket or other non-regular file (``--out /dev/null`` must never turn the
  device into a regular file);
* any input of the same command (``collabsim view trace.jsonl --out trace.jsonl``), and for a
  file any existing data file inside an input folder (``collabsim view JOB --out
  JOB/sessions.csv``; a page, ``.html``, may be replaced);
* for a file: an existing folder; for a folder: an existing file, and a non-empty folder that
  collabsim did not write (it holds entries other than the command's own output names).

Writes are atomic: :func:`atomic_file` hands out a temporary file beside the target and
``os.replace``-s it into place only when the block succeeds; :class:`StagedOutput` does the
same for a folder of files.

This module imports nothing from collabsim, so the engine and every command may use it.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType

OUT_OF_SPACE_ERRNOS: frozenset[int] = frozenset({errno.ENOSPC, errno.EDQUOT})
"""Errors of a write that failed because the disk (or the user's quota) is full."""


def is_out_of_space(exc: BaseException) -> bool:
    """True for an ``OSError`` saying the disk or quota is full (nothing more can be written,
    so the job stops with one line instead of failing session after session)."""
    return isinstance(exc, OSError) and exc.errno in OUT_OF_SPACE_ERRNOS


class OutputPathError(ValueError):
    """A user-named output path is unsafe to write; the message is one line naming it."""


def _shown(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _same(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _common_checks(path: Path | str, option: str, inputs: Iterable[Path | str]) -> Path:
    if not os.fspath(path).strip():
        raise OutputPathError(f"{option}: the path is empty")
    out = Path(path).expanduser()
    for source in inputs:
        if os.fspath(source) and _same(out, Path(source).expanduser()):
            raise OutputPathError(
                f"{option} {_shown(out)}: is an input of this command; choose another path"
            )
    return out


def _in_input_folder(out: Path, source: Path) -> bool:
    """``out`` is an existing data file in the input folder ``source`` (a job folder's
    ``sessions.csv``, a session's ``result.json``: the command may read it). A page
    (``.html``) is no command's input: a rerun may replace the page it wrote there."""
    if out.suffix.lower() in (".html", ".htm") or not source.is_dir():
        return False
    if not os.path.lexists(out):
        return False
    try:
        return out.resolve().is_relative_to(source.resolve())
    except (OSError, RuntimeError):
        return False


def check_output_file(
    path: Path | str, *, option: str = "--out", inputs: Iterable[Path | str] = ()
) -> Path:
    """Check a user-named output FILE before anything is computed or written.

    An existing regular file (e.g. the previous run's page) may be replaced; a folder, a
    device or other special file, or one of ``inputs`` may not.

    Args:
        path: The path as the user gave it.
        option: The option name shown in the message (``--out``).
        inputs: The command's input paths.

    Returns:
        The path (``~`` expanded).

    Raises:
        OutputPathError: One line naming the option, the path and what is wrong.
    """
    out = _common_checks(path, option, inputs)
    inside = next((Path(i) for i in inputs if os.fspath(i)
                   and _in_input_folder(out, Path(i).expanduser())), None)
    if inside is not None:
        raise OutputPathError(
            f"{option} {_shown(out)}: is a file in the input folder {_shown(inside)}; "
            "choose another path")
    try:
        info = out.stat()
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise OutputPathError(f"{option} {_shown(out)}: cannot check it ({err.strerror})") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise OutputPathError(f"{option} {_shown(out)}: is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise OutputPathError(
                f"{option} {_shown(out)}: is {_kind(info.st_mode)}; collabsim writes only "
                "regular files"
            )
    _check_parent(out, option)
    return out


def check_output_dir(
    path: Path | str,
    *,
    option: str = "--out",
    inputs: Iterable[Path | str] = (),
    own_names: Sequence[str] = (),
) -> Path:
    """Check a user-named output FOLDER before anything is computed or written.

    Allowed: a new path, an empty folder, or a folder whose entries all match ``own_names``
    (glob patterns of the command's own output: a rerun replaces its earlier files).

    Raises:
        OutputPathError: One line naming the option, the path and what is wrong.
    """
    out = _common_checks(path, option, inputs)
    if out.is_symlink() and not out.exists():
        raise OutputPathError(f"{option} {_shown(out)}: is a dangling link")
    try:
        info = out.stat()
    except FileNotFoundError:
        _check_parent(out, option)
        return out
    except OSError as err:
        raise OutputPathError(f"{option} {_shown(out)}: cannot check it ({err.strerror})") from None
    if not stat.S_ISDIR(info.st_mode):
        what = "" if stat.S_ISREG(info.st_mode) else f" ({_kind(info.st_mode)})"
        raise OutputPathError(f"{option} {_shown(out)}: exists and is not a folder{what}")
    try:
        entries = [e.name for e in os.scandir(out)]
    except OSError as err:
        raise OutputPathError(f"{option} {_shown(out)}: cannot list it ({err.strerror})") from None
    if entries:
        foreign = [n for n in entries if not any(fnmatch.fnmatch(n, p) for p in own_names)]
        if foreign:
            raise OutputPathError(
                f"{option} {_shown(out)}: folder holds files collabsim did not write (e.g. "
                f"{_shown(sorted(foreign)[0])}); choose a new or empty folder"
            )
    return out


def writable_dir_problem(path: Path | str) -> str | None:
    """Why collabsim cannot create and write the folder ``path``, else None.

    The path must be a folder or not exist yet, and the nearest existing folder on its way
    must take a new entry: that is tried (a temporary folder made and removed at once), since
    permission bits do not show a read-only mount, a pseudo file system such as ``/proc`` or
    a full quota.
    """
    target = Path(path).expanduser()
    problem = _not_a_folder(target) if os.fspath(path).strip() else "the path is empty"
    if problem is not None:
        return problem
    existing = target
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{_shown(existing)} is not a folder"
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".collabsim-probe-", dir=existing))
    except OSError as err:
        return f"cannot create folders under {_shown(existing)} ({err.strerror})"
    return None


def _not_a_folder(target: Path) -> str | None:
    """Why an existing ``target`` is no folder (None for a folder or a new path)."""
    if target.is_symlink() and not target.exists():
        return f"{_shown(target)} is a dangling link"
    try:
        info = target.stat()
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"cannot check {_shown(target)} ({err.strerror})"
    if stat.S_ISDIR(info.st_mode):
        return None
    what = "a file" if stat.S_ISREG(info.st_mode) else _kind(info.st_mode)
    return f"{_shown(target)} exists and is not a folder ({what})"


def job_dir_problem(path: Path | str, own_names: Sequence[str], marker: str) -> str | None:
    """Why a command may not write its job folder ``path``, else None.

    Beyond :func:`writable_dir_problem`: an existing folder may hold the command's own output
    (``own_names``: glob patterns of top-level names) only where an earlier job of it wrote
    them, which ``marker`` (a relative path such as ``.hydra/config.yaml``) shows; and no path
    the command writes may be a symbolic link, through which a write would land in another
    file.
    """
    problem = writable_dir_problem(path)
    if problem is not None or not Path(path).expanduser().is_dir():
        return problem
    root = Path(path).expanduser()
    try:
        names = sorted(e.name for e in os.scandir(root))
    except OSError as err:
        return f"cannot list {_shown(root)} ({err.strerror})"
    present = [root / n for n in names if any(fnmatch.fnmatch(n, p) for p in own_names)]
    for entry in present:
        links = [entry, *(entry.rglob("*") if entry.is_dir() and not entry.is_symlink()
                          else ())]
        linked = next((p for p in links if p.is_symlink()), None)
        if linked is not None:
            return (f"{_shown(linked)} is a symbolic link; collabsim would write through it: "
                    "remove it or choose a new folder")
    if present and not (root / marker).is_file():
        return (f"{_shown(present[0])} was not written by collabsim (no {marker} beside it) "
                "and would be replaced: choose a new or empty folder")
    return None


def _check_parent(out: Path, option: str) -> None:
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        if parent.is_symlink():
            break
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise OutputPathError(f"{option} {_shown(out)}: {_shown(parent)} is not a folder")


@contextlib.contextmanager
def atomic_file(path: Path | str) -> Iterator[Path]:
    """``with atomic_file(out) as tmp:`` write ``tmp``; it replaces ``out`` on success.

    The temporary file sits beside ``out`` (same file system, so ``os.replace`` is atomic) and
    is removed when the block raises, leaving ``out`` as it was.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def atomic_write_text(path: Path | str, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    with atomic_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class StagedOutput:
    """Context manager: ``with StagedOutput(out) as staged:`` write into ``staged.dir``, then
    ``staged.publish(names)``; the staging folder is removed on exit, published or not.

    A failure half-way (a bad plot, a full disk) leaves the output folder as it was.
    """

    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self.dir = Path()

    def __enter__(self) -> StagedOutput:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        # Beside the target, so the final os.replace stays on one file system (atomic).
        self.dir = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", dir=self.out.parent))
        return self

    def publish(self, names: Sequence[str] | None = None) -> list[Path]:
        """Move the staged entries ``names`` (default: all, recursively) into the output
        folder; returns the new paths of the files."""
        self.out.mkdir(parents=True, exist_ok=True)
        if names is None:
            names = sorted(
                str(p.relative_to(self.dir)) for p in self.dir.rglob("*") if not p.is_dir()
            )
        written = []
        for name in names:
            target = self.out / name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.dir / name, target)
            written.append(target)
        return written

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
