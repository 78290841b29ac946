"""One progress bar for a whole sweep (Hydra callback), instead of one per job.

Parallel jobs (``launcher=joblib``, Ray, SLURM) each drawing a bar on one terminal overwrite
each other. In a multirun the jobs draw none; the driver process draws one bar for the
sweep by counting the sessions finished so far: the ``result.json`` files the jobs' stores
gain under the sweep folder (and under a shared ``run.store``), polled twice a second, so it
works for every launcher whose jobs write to a folder the driver sees. Its total is the
number of sessions the command line plans when ``collabsim run`` could count them (a basic
sweep; an Optuna sweep's trials are not known in advance, so its bar counts without a total).
Sessions reused from a store are not counted: they are not run.

Enabled with the sweep report by ``hydra/callbacks/sweep_report.yaml``; ``run.progress=false``
switches it off.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

POLL_SECONDS = 0.5
_expected: dict[str, int | None] = {"sessions": None}


def expect(sessions: int | None) -> None:
    """Record how many sessions the command line plans (None: not known in advance)."""
    _expected["sessions"] = sessions


def count_results(folder: Path, depth: int) -> int:
    """``result.json`` files of store sessions under ``folder``: ``sessions/*/result.json``
    at ``depth`` 0 (a store), ``*/sessions/*/result.json`` at 1 (a sweep of job stores)."""
    pattern = "sessions/*/result.json" if depth == 0 else "*/sessions/*/result.json"
    try:
        return sum(1 for _ in Path(folder).glob(pattern))
    except OSError:
        return 0


class SweepProgress:
    """A polling thread drawing one tqdm bar of the sessions a sweep has finished.

    Args:
        sweep_dir: The sweep folder (job folders below it).
        store: A shared result store of the sweep, if any.
        total: Sessions planned, or None.
    """

    def __init__(self, sweep_dir: Path, store: Path | None, total: int | None) -> None:
        from tqdm.auto import tqdm

        self.sweep_dir = Path(sweep_dir)
        self.store = Path(store).expanduser() if store else None
        self._base = self._count()
        self._stop = threading.Event()
        self.bar = tqdm(total=total, desc="sweep", unit="session", dynamic_ncols=True)
        self._thread = threading.Thread(target=self._poll, name="sweep-progress", daemon=True)

    def _count(self) -> int:
        done = count_results(self.sweep_dir, 1)
        if self.store is not None and not self.store.resolve().is_relative_to(
                self.sweep_dir.resolve()):
            done += count_results(self.store, 0)
        return done

    def _update(self) -> None:
        done = self._count() - self._base
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)

    def _poll(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self._update()

    def start(self) -> SweepProgress:
        """Start polling."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Count once more, stop polling and close the bar."""
        self._stop.set()
        self._thread.join(timeout=5)
        self._update()
        self.bar.close()


# The bars being drawn, by sweep folder. Not on the callback object: launchers pickle the
# callbacks with the job (joblib), and a thread or a bar does not pickle.
_active: dict[str, SweepProgress] = {}


class SweepProgressCallback(Callback):
    """Draws one progress bar for the sweep while its jobs run."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Start the bar unless ``run.progress`` is false."""
        run = config.get("run") or {}
        if not bool(run.get("progress", True)):
            return
        sweep_dir = str(config.hydra.sweep.dir)
        _active[sweep_dir] = SweepProgress(Path(sweep_dir), run.get("store"),
                                           _expected["sessions"]).start()

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Close the bar."""
        progress = _active.pop(str(config.hydra.sweep.dir), None)
        if progress is not None:
            progress.stop()
