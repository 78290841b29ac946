"""``launcher=ray``: hydra-ray-launcher's Ray launcher, made to run against a real cluster.

hydra-ray-launcher 1.2 always passes ``object_store_memory`` to ``ray.init``, which Ray refuses
when it joins a running cluster ("When connecting to an existing cluster, object_store_memory
must not be provided"), and its jobs resolve the relative sweep folder (``multirun/…``) in the
Ray worker's working folder, i.e. wherever ``ray start`` ran, so the sweep report at the end
finds no job folder. This launcher:

* joins a running cluster (``ray start --head`` on this machine, ``$RAY_ADDRESS``, or the
  ``ray.init.address`` given) with only the settings Ray accepts for a connection; with
  ``address: null`` and no cluster running it starts a local Ray for the sweep, sized by the
  ``local`` settings (CPUs, a small object store, no dashboard); an address where nothing
  listens ends the command with one line (Ray itself would retry it for minutes);
* sends every job the driver's absolute sweep folder and working folder, so job outputs, a
  relative ``run.store`` and relative task paths mean on the worker what they mean on the
  driver (the same paths on every node: a shared file system on a multi-node cluster).

Hydra's entry is ``hydra_plugins.collabsim_launcher.ray_launcher.CollabsimRayLauncher`` (Hydra
takes launchers from the ``hydra_plugins`` namespace only); it imports this module when a sweep
is launched. Requires the ``[ray]`` extra (``pip install 'collabsim[ray]'``), which
``collabsim run`` names when it is missing. A job runs through Hydra's public
``hydra.core.utils.run_job``, as hydra-ray-launcher's own workers do.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ray
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, configure_log, filter_overrides, run_job, setup_globals
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf, open_dict

log = logging.getLogger(__name__)

# ray.init arguments that size or configure a new local Ray; Ray refuses them (or ignores
# them) when it connects to a cluster that is already running.
LOCAL_ONLY = frozenset({
    "num_cpus", "num_gpus", "resources", "labels", "object_store_memory",
    "include_dashboard", "dashboard_host", "dashboard_port", "_node_ip_address",
    "_memory", "_temp_dir", "_system_config", "_plasma_directory",
})


class RayStartError(RuntimeError):
    """No Ray cluster could be joined or started; the message is one line for the user."""


def _plain(cfg: Any) -> dict[str, Any]:
    if cfg is None:
        return {}
    if isinstance(cfg, DictConfig):
        return dict(OmegaConf.to_container(cfg, resolve=True))  # type: ignore[arg-type]
    return dict(cfg)


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """Raise a RayStartError when nothing listens at a ``HOST:PORT`` address (Ray itself
    retries such an address for many minutes); ``ray://`` and other schemes are left to Ray."""
    if "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        raise RayStartError(
            f"hydra.launcher.ray.init.address={address}: no Ray cluster there ({err}); start "
            "one with `ray start --head`, or set hydra.launcher.ray.init.address=null to start "
            "a local Ray"
        ) from None


def start_ray(init: dict[str, Any], local: dict[str, Any]) -> str:
    """Join the Ray cluster ``init`` names, or start a local one; returns how it went.

    Args:
        init: ``ray.init`` arguments. ``address`` null: the running cluster if there is one
            (``ray start`` on this machine or ``$RAY_ADDRESS``), else a new local Ray sized by
            ``local``; ``auto``: the running cluster or an error; anything else: that address.
        local: ``ray.init`` arguments used only when a local Ray is started.

    Raises:
        RayStartError: ``address`` names a cluster that cannot be reached.
    """
    if ray.is_initialized():
        return "Ray is already initialised in this process"
    address = init.get("address")
    if address and address not in ("auto", "local"):
        _check_reachable(str(address))
    connect = {k: v for k, v in init.items() if k not in LOCAL_ONLY and k != "address"}
    ignored = sorted(k for k in init if k in LOCAL_ONLY)
    try:
        ray.init(address=address or "auto", **connect)
    except ConnectionError as err:
        if address:
            raise RayStartError(
                f"hydra.launcher.ray.init.address={address}: no Ray cluster there "
                f"({' '.join(str(err).split())[:200]}); start one with `ray start --head`, "
                "or set hydra.launcher.ray.init.address=null to start a local Ray"
            ) from None
    else:
        where = ray.get_runtime_context().gcs_address
        note = f" (ignoring {', '.join(ignored)}: they size a new local Ray)" if ignored else ""
        return f"joined the running Ray cluster at {where}{note}"
    settings = {k: v for k, v in init.items() if k != "address"} | {
        k: v for k, v in local.items() if v is not None}
    ray.init(**settings)
    return f"no running Ray cluster found: started a local Ray ({ray.cluster_resources()})"


def run_job_in(cwd: str, hydra_context: HydraContext, sweep_config: DictConfig,
               task_function: TaskFunction, singleton_state: dict[Any, Any]) -> JobReturn:
    """Run one sweep job on a Ray worker, from the driver's working folder ``cwd``."""
    if os.path.isdir(cwd):
        os.chdir(cwd)
    else:
        print(f"collabsim ray job: the driver's folder {cwd} does not exist on this node; "
              f"running in {os.getcwd()}", file=sys.stderr)
    # the worker is a fresh process: restore Hydra's globals and singletons (the config
    # store, the plugins) as the driver had them, then run the job as any launcher does
    setup_globals()
    Singleton.set_state(singleton_state)
    return run_job(hydra_context=hydra_context, task_function=task_function,
                   config=sweep_config, job_dir_key="hydra.sweep.dir",
                   job_subdir_key="hydra.sweep.subdir")


def connect(launcher: Any) -> str:
    """Join or start Ray for the sweep (once; Hydra's sweeper calls this at set-up, before it
    writes the sweep folder); returns how it went. A cluster that cannot be reached ends the
    command with one line and exit code 2."""
    try:
        return start_ray(_plain(launcher.ray_cfg.get("init")), _plain(launcher.local_cfg))
    except RayStartError as err:
        print(f"collabsim run: {err}", file=sys.stderr)
        raise SystemExit(2) from None


def launch(launcher: Any, job_overrides: Sequence[Sequence[str]],
           initial_job_idx: int) -> list[JobReturn]:
    """Start or join Ray, submit every job of the sweep, wait for all of them.

    Args:
        launcher: The set-up ``CollabsimRayLauncher`` (``ray_cfg``, ``local_cfg``, ``config``,
            ``hydra_context``, ``task_function``).
        job_overrides: One override list per job.
        initial_job_idx: Number of the first job.
    """
    setup_globals()
    config, context = launcher.config, launcher.hydra_context
    assert config is not None and context is not None and launcher.task_function is not None
    configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    log.info("Ray launcher: %s", getattr(launcher, "ray_status", None) or connect(launcher))
    cwd = os.getcwd()
    sweep_dir = Path(str(config.hydra.sweep.dir)).absolute()
    sweep_dir.mkdir(parents=True, exist_ok=True)
    log.info("Ray launcher: %d jobs, sweep folder %s", len(job_overrides), sweep_dir)
    remote = _plain(launcher.ray_cfg.get("remote"))
    job = ray.remote(**remote)(run_job_in) if remote else ray.remote(run_job_in)
    runs = []
    for offset, overrides in enumerate(job_overrides):
        idx = initial_job_idx + offset
        log.info("\t#%d : %s", idx, " ".join(filter_overrides(overrides)))
        sweep_config = context.config_loader.load_sweep_config(config, list(overrides))
        with open_dict(sweep_config):
            sweep_config.hydra.job.id = f"job_id_for_{idx}"
            sweep_config.hydra.job.num = idx
            sweep_config.hydra.sweep.dir = str(sweep_dir)
        runs.append(job.remote(cwd, context, sweep_config, launcher.task_function,
                               Singleton.get_state()))
    return [ray.get(run) for run in runs]
