"""A worker's process state as set up, and putting it back for the next session (reuse).

:meth:`Sandbox.reset <collabsim.sandbox.Sandbox.reset>` lets one worker serve the sessions of
one owner in turn (the episodes of a gym environment) instead of forking a fresh worker per
session. Before it is reused, the worker puts back what a cell can change through ordinary
Python: the namespace, modules imported by cells (they are imported afresh), ``sys.path``,
the environment, the working directory, warning filters, builtins, the attributes of the
modules cells start with (``pd``, ``np``, the table helpers), pandas options, numpy error
settings, every signal handler and the signal mask, the import machinery (``sys.meta_path``,
``sys.path_hooks``, the importer cache), the interpreter's hooks and settings (display,
except, breakpoint and unraisable hooks, standard streams, tracing, recursion limit, switch
interval, integer-string digit limit), the garbage collector (enabled, thresholds,
callbacks, debug flags), the umask, the locale, the virtual timer, the cells' source lines,
the binned-table cache and the random seeds.

What cannot be put back makes the worker unfit for reuse (:class:`NotReusable`: a fresh
worker replaces it): a thread other than the main thread (it could act in the next
session), a file descriptor that was not open at set-up or one that now refers to another
file (e.g. a removed file kept open, whose space the next session would carry), a lowered
scheduling priority, and an audit hook added by a cell (audit hooks cannot be removed; the
worker's :meth:`~collabsim.sandbox.worker.Worker.reset` checks that). Changes deeper inside a
library (e.g. a method patched onto ``pd.DataFrame``) are not undone: reuse is for sessions
of one owner, never across owners, and a fresh worker (no reset) remains the default
everywhere else.
"""

from __future__ import annotations

import builtins
import copy
import gc
import linecache
import locale
import os
import random
import signal
import sys
import warnings
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

_SYS_HOOKS = ("displayhook", "excepthook", "breakpointhook", "unraisablehook", "stdin",
              "stdout", "stderr", "dont_write_bytecode")
_MODULES = ("pandas", "numpy", "collabsim.domain.analysis_helpers", "collabsim.domain.tables")


class NotReusable(Exception):
    """The worker cannot be brought back to its baseline; a fresh one must replace it."""


@dataclass
class Baseline:
    """Snapshot of the worker's process state at the end of its set-up."""

    workdir: str
    modules: frozenset[str] = field(default_factory=frozenset)
    path: list[str] = field(default_factory=list)
    environ: dict[str, str] = field(default_factory=dict)
    filters: list[Any] = field(default_factory=list)
    builtins: dict[str, Any] = field(default_factory=dict)
    module_dicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    pandas_options: dict[str, Any] = field(default_factory=dict)
    numpy_errors: dict[str, str] = field(default_factory=dict)
    handlers: dict[int, Any] = field(default_factory=dict)
    sigmask: frozenset[int] = field(default_factory=frozenset)
    fds: dict[int, tuple[int, int]] = field(default_factory=dict)
    meta_path: list[Any] = field(default_factory=list)
    path_hooks: list[Any] = field(default_factory=list)
    importer_cache: dict[str, Any] = field(default_factory=dict)
    sys_hooks: dict[str, Any] = field(default_factory=dict)
    recursion_limit: int = 1000
    switch_interval: float = 0.005
    int_digits: int | None = None
    gc_threshold: tuple[int, ...] = ()
    gc_callbacks: list[Any] = field(default_factory=list)
    umask: int = 0o022
    locale: str | None = None
    priority: int = 0

    @classmethod
    def take(cls, workdir: str) -> Baseline:
        """Record the current state (call at the end of the worker's set-up)."""
        import numpy as np
        from pandas._config import config as pd_config

        return cls(
            workdir=workdir,
            modules=frozenset(sys.modules),
            path=list(sys.path),
            environ=dict(os.environ),
            filters=list(warnings.filters),
            builtins=dict(vars(builtins)),
            module_dicts={
                name: dict(vars(sys.modules[name])) for name in _MODULES if name in sys.modules
            },
            pandas_options=copy.deepcopy(pd_config._global_config),
            numpy_errors=dict(np.geterr()),
            handlers=_signal_handlers(),
            sigmask=frozenset(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
            fds=_open_fds(),
            meta_path=list(sys.meta_path),
            path_hooks=list(sys.path_hooks),
            importer_cache=dict(sys.path_importer_cache),
            sys_hooks={name: getattr(sys, name) for name in _SYS_HOOKS},
            recursion_limit=sys.getrecursionlimit(),
            switch_interval=sys.getswitchinterval(),
            int_digits=getattr(sys, "get_int_max_str_digits", lambda: None)(),
            gc_threshold=gc.get_threshold(),
            gc_callbacks=list(gc.callbacks),
            umask=_umask(),
            locale=_locale(),
            priority=os.getpriority(os.PRIO_PROCESS, 0),
        )

    def restore(self, dropped: list[Any]) -> None:
        """Put the recorded state back.

        Runs under the audit policy like a cell (it may call functions a cell replaced).

        Args:
            dropped: Receives every object the restore lets go of; the caller releases them
                (and collects garbage) once the state is back.

        Raises:
            NotReusable: The worker runs another thread, or its scheduling priority was
                lowered (an unprivileged process cannot raise it again).
        """
        self._check_reusable()
        # the interpreter first: the restore below runs Python code
        self._restore_interpreter(dropped)
        self._restore_import_system(dropped)
        os.umask(self.umask)
        if self.locale is not None and _locale() != self.locale:
            locale.setlocale(locale.LC_ALL, self.locale)
        self._restore_modules(dropped)
        self._restore_libraries(dropped)

    def _check_reusable(self) -> None:
        """Raise :class:`NotReusable` on a second thread or a lowered priority."""
        threads = os.listdir(f"/proc/{os.getpid()}/task")
        if len(threads) != 1:
            raise NotReusable(f"{len(threads)} threads are running")
        if os.getpriority(os.PRIO_PROCESS, 0) != self.priority:
            raise NotReusable("the scheduling priority was changed")

    def _restore_interpreter(self, dropped: list[Any]) -> None:
        """Tracing, recursion and switch limits, the garbage collector, timers and signals."""
        sys.settrace(None)
        sys.setprofile(None)
        sys.setrecursionlimit(self.recursion_limit)
        sys.setswitchinterval(self.switch_interval)
        if self.int_digits is not None:
            sys.set_int_max_str_digits(self.int_digits)
        gc.enable()
        gc.set_debug(0)
        gc.set_threshold(*self.gc_threshold)
        dropped.append(list(gc.callbacks))
        gc.callbacks[:] = self.gc_callbacks
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        for signum, handler in self.handlers.items():
            dropped.append(signal.signal(signum, handler))
        signal.pthread_sigmask(signal.SIG_SETMASK, self.sigmask)

    def _restore_import_system(self, dropped: list[Any]) -> None:
        """The ``sys`` hooks, the import finders and path hooks, the importer cache."""
        for name, value in self.sys_hooks.items():
            dropped.append(getattr(sys, name, None))
            setattr(sys, name, value)
        dropped.append(list(sys.meta_path))
        sys.meta_path[:] = self.meta_path
        dropped.append(list(sys.path_hooks))
        sys.path_hooks[:] = self.path_hooks
        _restore_dict(sys.path_importer_cache, self.importer_cache, dropped)

    def _restore_modules(self, dropped: list[Any]) -> None:
        """Modules imported since set-up dropped; ``sys.path``, environment, folder, warning
        filters, builtins and the recorded module dicts put back."""
        for name in set(sys.modules) - self.modules:
            dropped.append(sys.modules.pop(name))
        dropped.append(list(sys.path))
        sys.path[:] = self.path
        os.environ.clear()
        os.environ.update(self.environ)
        os.chdir(self.workdir)
        dropped.append(list(warnings.filters))
        warnings.filters[:] = self.filters
        warnings._filters_mutated()  # type: ignore[attr-defined]  # drop cached decisions
        _restore_dict(vars(builtins), self.builtins, dropped)
        for name, saved in self.module_dicts.items():
            module = sys.modules.get(name)
            if isinstance(module, ModuleType):
                _restore_dict(vars(module), saved, dropped)

    def _restore_libraries(self, dropped: list[Any]) -> None:
        """pandas options, numpy error handling, cell source lines, the analysis helpers'
        tables and the random seeds."""
        import numpy as np
        from pandas._config import config as pd_config

        _restore_dict(pd_config._global_config, copy.deepcopy(self.pandas_options), dropped)
        np.seterr(**self.numpy_errors)
        for key in [k for k in linecache.cache if str(k).startswith("<cell ")]:
            dropped.append(linecache.cache.pop(key))
        helpers = sys.modules.get("collabsim.domain.analysis_helpers")
        if helpers is not None:
            dropped.append(dict(helpers._TABLES))
            helpers.clear_tables()
        random.seed(0)
        np.random.seed(0)

    def check_files(self) -> None:
        """Raise :class:`NotReusable` when the open file descriptors differ from set-up.

        Call once the restore's dropped objects are released and garbage is collected: a
        descriptor still open then is held by no Python object of the session (a raw
        ``os.open``) or by one the restore cannot reach; closing it underneath its owner is
        unsafe, so the worker is replaced instead.
        """
        now = _open_fds()
        extra = sorted(set(now) - set(self.fds))
        if extra:
            raise NotReusable(f"{len(extra)} files opened by the session are still open")
        changed = sorted(fd for fd, key in self.fds.items() if now.get(fd) != key)
        if changed:
            raise NotReusable(f"file descriptors {changed} were closed or replaced")


def _open_fds() -> dict[int, tuple[int, int]]:
    """The process's open descriptors: fd -> (device, inode) of what it refers to."""
    found: dict[int, tuple[int, int]] = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            info = os.fstat(int(name))
        except (OSError, ValueError):  # the listing's own descriptor, closed by now
            continue
        found[int(name)] = (info.st_dev, info.st_ino)
    return found


def _signal_handlers() -> dict[int, Any]:
    """Every signal handler Python can set (KILL and STOP excluded)."""
    handlers: dict[int, Any] = {}
    for signum in signal.valid_signals():
        if signum in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            handler = signal.getsignal(signum)
        except (OSError, ValueError):
            continue
        if handler is not None:
            handlers[int(signum)] = handler
    return handlers


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _locale() -> str | None:
    try:
        return locale.setlocale(locale.LC_ALL)
    except locale.Error:
        return None


def _restore_dict(current: dict[str, Any], saved: dict[str, Any], dropped: list[Any]) -> None:
    for key in set(current) - set(saved):
        dropped.append(current.pop(key))
    dropped.extend(v for k, v in current.items() if saved.get(k) is not v)
    current.update(saved)


__all__ = ["Baseline", "NotReusable"]
