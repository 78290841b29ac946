"""A worker's process state as set up, and putting it back for the next session (reuse).

:meth:`Sandbox.reset <collabsim.sandbox.Sandbox.reset>` lets one worker serve the sessions of
one owner in turn (the episodes of a gym environment) instead of forking a fresh worker per
session. Before it is reused, the worker puts back what a cell can change through ordinary
Python: the namespace, modules imported by cells (they are imported afresh), ``sys.path``,
the environment, the working directory, warning filters, builtins, the attributes of the
modules cells start with (``pd``, ``np``, the table helpers), pandas options, numpy error
settings, the signal handlers the limits rely on, the cells' source lines, the binned-table
cache and the random seeds. A worker with a thread other than its main thread is not reused
(the thread could act in the next session). Changes deeper inside a library (e.g. a method
patched onto ``pd.DataFrame``) are not undone: reuse is for sessions of one owner, never
across owners, and a fresh worker (no reset) remains the default everywhere else.
"""

from __future__ import annotations

import builtins
import copy
import linecache
import os
import random
import signal
import sys
import warnings
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

_SIGNALS = (signal.SIGXFSZ, signal.SIGALRM, signal.SIGPROF, signal.SIGXCPU, signal.SIGINT)
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
            handlers={int(s): signal.getsignal(s) for s in _SIGNALS},
        )

    def restore(self, dropped: list[Any]) -> None:
        """Put the recorded state back.

        Runs under the audit policy like a cell (it may call functions a cell replaced).

        Args:
            dropped: Receives every object the restore lets go of; the caller releases them
                (and collects garbage) once the state is back.

        Raises:
            NotReusable: The worker runs another thread.
        """
        threads = os.listdir(f"/proc/{os.getpid()}/task")
        if len(threads) != 1:
            raise NotReusable(f"{len(threads)} threads are running")
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
        import numpy as np
        from pandas._config import config as pd_config

        _restore_dict(pd_config._global_config, copy.deepcopy(self.pandas_options), dropped)
        np.seterr(**self.numpy_errors)
        for signum, handler in self.handlers.items():
            dropped.append(signal.signal(signum, handler))
        for key in [k for k in linecache.cache if str(k).startswith("<cell ")]:
            dropped.append(linecache.cache.pop(key))
        helpers = sys.modules.get("collabsim.domain.analysis_helpers")
        if helpers is not None:
            dropped.append(dict(helpers._TABLES))
            helpers.clear_tables()
        random.seed(0)
        np.random.seed(0)


def _restore_dict(current: dict[str, Any], saved: dict[str, Any], dropped: list[Any]) -> None:
    for key in set(current) - set(saved):
        dropped.append(current.pop(key))
    dropped.extend(v for k, v in current.items() if saved.get(k) is not v)
    current.update(saved)


__all__ = ["Baseline", "NotReusable"]
