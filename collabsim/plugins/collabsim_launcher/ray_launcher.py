"""``launcher=ray``: the Hydra entry of collabsim's Ray launcher.

The work is done in :mod:`collabsim.cli.ray_launcher` (imported, with Ray, only when a sweep
is launched, so Hydra's start-up scan of ``hydra_plugins`` works without the [ray] extra).
"""

from __future__ import annotations

from collections.abc import Sequence

from hydra.core.utils import JobReturn
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig


class CollabsimRayLauncher(Launcher):
    """One Ray task per sweep job, on a running cluster or a local Ray.

    Args:
        ray: ``init`` (``ray.init`` arguments; ``address`` chooses the cluster) and ``remote``
            (``ray.remote`` options of each job: ``num_cpus``, ``max_calls``, ...).
        local: ``ray.init`` arguments for a local Ray started when no cluster is running.
    """

    def __init__(self, ray: DictConfig, local: DictConfig | None = None) -> None:
        self.ray_cfg = ray
        self.local_cfg = local
        self.hydra_context: HydraContext | None = None
        self.task_function: TaskFunction | None = None
        self.config: DictConfig | None = None
        self.ray_status = ""

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction,
              config: DictConfig) -> None:
        """Join or start Ray, and keep what :meth:`launch` needs (Hydra's sweeper calls this
        once, before it writes the sweep folder, so a cluster that cannot be reached leaves
        nothing behind)."""
        from collabsim.cli.ray_launcher import connect

        self.config = config
        self.hydra_context = hydra_context
        self.task_function = task_function
        self.ray_status = connect(self)

    def launch(self, job_overrides: Sequence[Sequence[str]],
               initial_job_idx: int) -> Sequence[JobReturn]:
        """Start or join Ray, run every job as a Ray task, wait for all of them."""
        from collabsim.cli.ray_launcher import launch

        return launch(self, job_overrides, initial_job_idx)

    def __repr__(self) -> str:
        return f"CollabsimRayLauncher(ray={self.ray_cfg!r}, local={self.local_cfg!r})"
